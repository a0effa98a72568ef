# The corrected version of buggy_training_script.py; padlint reports nothing here.
#   - the whole encoding (ids and attention mask) goes to the model;
#   - labels are the ids where the mask is 1 and -100 at the pad positions;
#   - generation receives the mask together with the left-padded ids.

# %%
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

checkpoint = "HuggingFaceTB/SmolLM2-135M"
device = "cuda" if torch.cuda.is_available() else "cpu"

tokenizer = AutoTokenizer.from_pretrained(checkpoint)
tokenizer.pad_token = tokenizer.eos_token
model = AutoModelForCausalLM.from_pretrained(checkpoint).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)

replies = [
    "Thanks for reaching out. Your refund was issued today and should arrive within five days.",
    "You can change the delivery address from the Orders page until the parcel ships.",
    "We are sorry the charger arrived damaged; a replacement is on its way.",
    "Your subscription renews on the first of each month; cancel any time under Account.",
]

# %% train
model.train()
for epoch in range(3):
    batch = tokenizer(
        replies, padding=True, truncation=True, max_length=128, return_tensors="pt"
    ).to(device)
    labels = batch["input_ids"].masked_fill(batch["attention_mask"] == 0, -100)
    loss = model(
        input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], labels=labels
    ).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    print(f"epoch {epoch}: loss {loss.item():.3f}")

# %% sample
model.eval()
tokenizer.padding_side = "left"
prompts = ["Customer: my parcel is late.\nAgent:", "Customer: how do I cancel?\nAgent:"]
prompt_batch = tokenizer(prompts, padding=True, return_tensors="pt").to(device)
with torch.no_grad():
    sampled = model.generate(**prompt_batch, max_new_tokens=40, pad_token_id=tokenizer.pad_token_id)
print(tokenizer.batch_decode(sampled, skip_special_tokens=True))
