# A notebook-style script (cells marked with "# %%") that fine-tunes a small causal LM on a few
# support replies and then samples from it. It has three padding bugs:
#   - the training batch keeps only input_ids, so the model gets no attention mask (PAD003);
#   - labels=input_ids puts every pad position into the loss (PAD002);
#   - generation receives left-padded ids without their mask (PAD003).
# fixed_training_script.py next to this file is the corrected version. padlint reads this file; it
# never imports or runs it.

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
    input_ids = tokenizer(
        replies, padding=True, truncation=True, max_length=128, return_tensors="pt"
    )["input_ids"].to(device)
    loss = model(input_ids=input_ids, labels=input_ids).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    print(f"epoch {epoch}: loss {loss.item():.3f}")

# %% sample
model.eval()
tokenizer.padding_side = "left"
prompts = ["Customer: my parcel is late.\nAgent:", "Customer: how do I cancel?\nAgent:"]
prompt_ids = tokenizer(prompts, padding=True, return_tensors="pt").input_ids.to(device)
with torch.no_grad():
    sampled = model.generate(prompt_ids, max_new_tokens=40, pad_token_id=tokenizer.pad_token_id)
print(tokenizer.batch_decode(sampled, skip_special_tokens=True))
