"""Rows of the library table for framework wiring: what hands datasets, rows and batches from producers to
consumers (loaders, trainers, dataset methods, `partial`, iterators); read by analysis/wiring.py."""

from __future__ import annotations

from padlint.semantics.row import ACCELERATE, CPYTHON, DATASETS, OPACUS, TORCH, TQDM, TRANSFORMERS, TRL, Row

WIRING_ROWS: tuple[Row, ...] = (
    # ---- framework wiring: what hands rows and batches on (analysis/wiring.py) ------------------------
    # styles: "loader" walks `collate` over the `dataset`'s items and yields its batches; "trainer" walks
    # `collate` over the rows of its datasets and calls its `model` with `**batch`; "partial" binds
    # arguments to a callable; "same" yields its first argument's items; "next" is one item of it.
    Row(
        ("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"),
        "wiring",
        f"{TORCH}, torch/utils/data/dataloader.py DataLoader.__init__ (dataset, batch_size, shuffle, sampler, "
        "batch_sampler, num_workers, collate_fn: collate_fn at 6); torch/utils/data/_utils/collate.py collate "
        "(default_collate keeps a sample's dict/tuple structure, stacks its tensors, turns numpy arrays into "
        "tensors with torch.as_tensor and stacks them, and transposes other sequences: zip(*batch))",
        on="class",
        roles={"dataset": ("dataset", 0), "collate": ("collate_fn", 6)},
        style="loader",
        default_collate="stacks",
    ),
    Row(
        (
            "transformers.Trainer",
            "transformers.trainer.Trainer",
            "transformers.Seq2SeqTrainer",
            "transformers.trainer_seq2seq.Seq2SeqTrainer",
            "trl.SFTTrainer",
            "trl.trainer.sft_trainer.SFTTrainer",
        ),
        "wiring",
        f"{TRANSFORMERS}, trainer.py Trainer.__init__ (model, args, data_collator, train_dataset, eval_dataset); "
        "Trainer.get_train_dataloader hands data_collator to the DataLoader as collate_fn; Trainer.compute_loss "
        "calls `model(**inputs)` with each batch; trainer_seq2seq.py "
        f"Seq2SeqTrainer.__init__ (same positions); {TRL}, trl/trainer/sft_trainer.py SFTTrainer.__init__ "
        "(same positions)",
        on="class",
        roles={
            "model": ("model", 0),
            "collate": ("data_collator", 2),
            "dataset": ("train_dataset", 3),
            "eval_dataset": ("eval_dataset", 4),
        },
        style="trainer",
    ),
    # "holds": keeps the dataset and hands its rows on only through the attributes or methods in
    # `exposes`; no other method of its own reads a column of them.
    Row(
        ("trl.PPOTrainer", "trl.trainer.PPOTrainer", "trl.trainer.ppo_trainer.PPOTrainer"),
        "wiring",
        "trl 0.11.4, trl/trainer/ppo_trainer.py PPOTrainer.__init__(config, model, ref_model, tokenizer, dataset, ...): "
        "self.dataset = dataset; self.dataloader = self.prepare_dataloader(dataset, data_collator); no method reads "
        "self.dataset or self.dataloader (the user's loop iterates `trainer.dataloader` and hands queries to "
        "generate/step); trl 0.19.1 PPOTrainer.__init__(args, processing_class, model, ref_model, reward_model, "
        "train_dataset, ...) feeds data['input_ids'] in train(): only the `dataset=` keyword is the held dataset",
        on="class",
        roles={"dataset": ("dataset", None)},
        style="holds",
        exposes=("dataloader", "dataset", "train"),
    ),
    # "rows": what a dataset's rows become without any model reading them. Functions and methods of
    # datasets that return a dataset holding the same rows (a subset, an order, a format, fewer columns)
    # or change the format in place; `map` and `filter` run a function over the rows (read by the
    # analysis: the function itself may feed a model).
    Row(
        ("datasets.Dataset.from_dict", "datasets.Dataset.from_list", "datasets.arrow_dataset.Dataset.from_dict"),
        "wiring",
        f"{DATASETS}, src/datasets/arrow_dataset.py Dataset.from_dict(mapping, ...) / from_list(mapping, ...): a new "
        "Dataset of the given columns",
        style="rows",
    ),
    Row(
        ("map", "filter", "select", "shuffle", "sort", "train_test_split"),
        "wiring",
        f"{DATASETS}, src/datasets/arrow_dataset.py Dataset.map/filter/select/shuffle/sort/train_test_split: a Dataset "
        "(or DatasetDict) of the same rows; no model is called. Dataset._map_single: the function is handed the rows "
        "through input_formatter = get_formatter(shard._format_type, ...) (python lists in the default format), one "
        "example or, with batched=True, a dict of columns of batch_size rows; what it returns is written by ArrowWriter "
        "as the new columns (a returned tensor is stored as lists) over the columns it was handed, less those "
        "remove_columns names (_map_single: `return {**inputs_to_merge, **processed_inputs}`)",
        on="method",
        style="rows",
    ),
    # "reformats": the same rows, but a later `map` reads them in another form (a format, other columns);
    # "returns" hands back a new dataset, "in place" changes the dataset it is called on.
    Row(
        ("with_format", "remove_columns", "rename_column", "select_columns"),
        "wiring",
        f"{DATASETS}, src/datasets/arrow_dataset.py Dataset.with_format/remove_columns/rename_column/select_columns: a "
        "new Dataset (or DatasetDict) of the same rows with another format or other columns; no model is called; "
        "Dataset._map_single formats a later map's inputs with the dataset's _format_type",
        on="method",
        style="rows",
        reformats="returns",
    ),
    Row(
        ("set_format", "reset_format"),
        "wiring",
        f"{DATASETS}, src/datasets/arrow_dataset.py Dataset.set_format/reset_format: the format set in place (returns "
        "None); no model is called; Dataset._map_single formats a later map's inputs with it",
        on="method",
        style="rows",
        reformats="in place",
    ),
    # "tensors": a dataset whose item i is the tuple of row i of each tensor given (default_collate then
    # stacks each position: `batch[0]` is the first tensor's rows).
    Row(
        ("torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset"),
        "wiring",
        f"{TORCH}, torch/utils/data/dataset.py TensorDataset.__init__(*tensors); __getitem__ returns "
        "tuple(tensor[index] for tensor in self.tensors); torch/utils/data/_utils/collate.py collate: a tuple "
        "sample is collated position by position into a list",
        on="class",
        style="tensors",
    ),
    # "same" for a dataset: a view of some of its items (Subset); "splits": a list of such views, one per
    # length given (random_split), each yielding items of the dataset.
    Row(
        ("torch.utils.data.Subset", "torch.utils.data.dataset.Subset"),
        "wiring",
        f"{TORCH}, torch/utils/data/dataset.py Subset.__init__(dataset, indices); Subset.__getitem__ returns "
        "self.dataset[self.indices[idx]]",
        on="class",
        style="same",
    ),
    Row(
        ("torch.utils.data.random_split", "torch.utils.data.dataset.random_split"),
        "wiring",
        f"{TORCH}, torch/utils/data/dataset.py random_split(dataset, lengths, generator): returns "
        "[Subset(dataset, indices[offset - length : offset]) for offset, length in zip(accumulate(lengths), "
        "lengths)]",
        style="splits",
    ),
    Row(
        ("functools.partial",),
        "wiring",
        f"{CPYTHON}, Lib/functools.py partial(func, /, *args, **keywords): calls func(*args, *more, **keywords)",
        style="partial",
    ),
    Row(
        ("tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "tqdm", "iter"),
        "wiring",
        f"{TQDM}, tqdm/std.py tqdm.__iter__ (yields the iterable's items); {CPYTHON} Python/bltinmodule.c builtin_iter",
        style="same",
    ),
    Row(("next",), "wiring", f"{CPYTHON}, Python/bltinmodule.c builtin_next: one item of the iterator", style="next"),
    # "returns arguments": hands back each argument in the order given, a DataLoader wrapped in one that
    # yields the same batches (a method of an instance of the class named before the method's name).
    Row(
        ("accelerate.Accelerator.prepare", "accelerate.accelerator.Accelerator.prepare"),
        "wiring",
        f"{ACCELERATE}, src/accelerate/accelerator.py Accelerator.prepare(*args, device_placement=None): "
        "`result = tuple(self._prepare_one(obj, ...) for obj in args)`, `return result if len(result) > 1 else "
        "result[0]`; _prepare_one wraps a DataLoader with prepare_data_loader; data_loader.py "
        "DataLoaderShard.__iter__ yields the base loader's batches, moved by send_to_device",
        style="returns arguments",
    ),
    # "returns roles": hands back its role arguments in the order of the row's roles (a tuple when more
    # than one), a DataLoader wrapped in one that collates the same dataset with the same function; only
    # where each argument of `defaults` is left at that default or given it.
    Row(
        (
            "opacus.PrivacyEngine.make_private",
            "opacus.privacy_engine.PrivacyEngine.make_private",
            "opacus.PrivacyEngine.make_private_with_epsilon",
            "opacus.privacy_engine.PrivacyEngine.make_private_with_epsilon",
        ),
        "wiring",
        f"{OPACUS}, opacus/privacy_engine.py PrivacyEngine.make_private(*, module, optimizer, criterion, "
        "data_loader, ...): `return module, optimizer, data_loader` (module wrapped by _prepare_model, whose "
        "forward calls the module's; data_loader by _prepare_data_loader: DPDataLoader.from_data_loader, "
        "data_loader.py, `cls(dataset=data_loader.dataset, ..., collate_fn=data_loader.collate_fn)`); with "
        "grad_sample_mode='ghost' it returns module, optimizer, criterion, data_loader; "
        "make_private_with_epsilon returns self.make_private(...)",
        roles={"module": ("module", None), "optimizer": ("optimizer", None), "data_loader": ("data_loader", None)},
        defaults={"grad_sample_mode": "hooks"},
        condition="grad_sample_mode left at its default, 'hooks' (another value may return another tuple)",
        style="returns roles",
    ),
    Row(
        ("opacus.utils.batch_memory_manager.BatchMemoryManager",),
        "wiring",
        f"{OPACUS}, opacus/utils/batch_memory_manager.py BatchMemoryManager(*, data_loader, "
        "max_physical_batch_size, optimizer).__enter__ returns wrap_data_loader(data_loader=self.data_loader, "
        "...): `DataLoader(dataset=data_loader.dataset, batch_sampler=BatchSplittingSampler(...), "
        "collate_fn=data_loader.collate_fn, ...)`: the same rows collated the same way, in smaller batches",
        on="class",
        roles={"items": ("data_loader", None)},
        condition="read through `with BatchMemoryManager(...) as loader`",
        style="same",
    ),
)
