"""Rows of the library table for tensor and array operations: what keeps, moves, copies or removes padding,
and the builders of constant tensors."""

from __future__ import annotations

from padlint.semantics.row import NUMPY, TENSORFLOW, TORCH, Row

TORCH_ATTENTION_LAYERS = (
    "torch.nn.MultiheadAttention",
    "torch.nn.Transformer",
    "torch.nn.TransformerEncoder",
    "torch.nn.TransformerEncoderLayer",
    "torch.nn.TransformerDecoder",
    "torch.nn.TransformerDecoderLayer",
)

TENSOR_ROWS: tuple[Row, ...] = (
    # ---- reductions over every element: a mean counts the pads of a padded product too ------------
    Row(
        ("torch.mean", "numpy.mean", "tensorflow.reduce_mean", "tensorflow.math.reduce_mean"),
        "reduces",
        f"{TORCH}, torch/_torch_docs.py torch.mean ('mean(input, *, dtype=None) -> Tensor': the mean of all "
        f"elements); {NUMPY}, numpy/_core/fromnumeric.py mean (axis=None: over the flattened array); "
        f"{TENSORFLOW}, tensorflow/python/ops/math_ops.py reduce_mean(input_tensor, axis=None, keepdims=False): "
        "'If axis is None, all dimensions are reduced'",
        style="mean",
    ),
    Row(
        ("torch.max", "torch.amax", "numpy.max", "numpy.amax", "tensorflow.reduce_max", "tensorflow.math.reduce_max"),
        "pools",
        f"{TORCH}, torch/_torch_docs.py torch.max ('max(input, dim, keepdim=False, *, out=None)': a namedtuple "
        "(values, indices) of the maximum value of each row in the dimension dim) and torch.amax ('amax(input, "
        f"dim, keepdim=False)': the maximum of each slice in dim); {NUMPY}, numpy/_core/fromnumeric.py max/amax "
        f"(axis); {TENSORFLOW}, tensorflow/python/ops/math_ops.py reduce_max(input_tensor, axis=None)",
        style="max",
    ),
    Row(
        ("torch.mul", "torch.multiply", "tensorflow.multiply", "tensorflow.math.multiply"),
        "multiplies",
        f"{TORCH}, torch/_torch_docs.py torch.mul ('mul(input, other, *, out=None) -> Tensor'; torch.multiply is its "
        f"alias); {TENSORFLOW}, tensorflow/python/ops/math_ops.py multiply(x, y, name=None): 'Returns an "
        "element-wise x * y'",
    ),
    Row(
        ("torch.sum", "numpy.sum", "tensorflow.reduce_sum", "tensorflow.math.reduce_sum"),
        "reduces",
        f"{TORCH}, torch/_torch_docs.py torch.sum ('sum(input, *, dtype=None) -> Tensor'); {NUMPY}, "
        f"numpy/_core/fromnumeric.py sum (axis=None); {TENSORFLOW}, tensorflow/python/ops/math_ops.py "
        "reduce_sum(input_tensor, axis=None): every element when no axis",
        style="sum",
    ),
    # ---- in-place writes where a mask is true: `target.masked_fill_(mask, value)` spelled as a function ----
    Row(
        ("numpy.place",),
        "fills_where",
        f"{NUMPY}, numpy/lib/_function_base_impl.py place(arr, mask, vals): 'Change elements of an array based on "
        "conditional and input values', in place, where mask is True",
        roles={"target": ("arr", 0), "mask": ("mask", 1), "value": ("vals", 2)},
    ),
    Row(
        ("numpy.putmask",),
        "fills_where",
        f"{NUMPY}, numpy/_core/multiarray.py putmask(a, /, mask, values): 'Sets a.flat[n] = values[n] for each n "
        "where mask.flat[n]==True'",
        roles={"target": ("a", 0), "mask": ("mask", 1), "value": ("values", 2)},
    ),
    Row(
        ("numpy.copyto",),
        "fills_where",
        f"{NUMPY}, numpy/_core/multiarray.py copyto(dst, src, casting='same_kind', where=True): copies src into dst "
        "in place at the elements where `where` is True",
        roles={"target": ("dst", 0), "value": ("src", 1), "mask": ("where", 3)},
        condition="only with `where=` given: without it the whole array is written",
    ),
    # ---- what attends: a module built on these lets every position read the pads (unless masked) ---
    Row(
        (*TORCH_ATTENTION_LAYERS, "torch.nn.functional.scaled_dot_product_attention"),
        "attention",
        f"{TORCH}, torch/nn/modules/activation.py MultiheadAttention (key_padding_mask, attn_mask); "
        "torch/nn/modules/transformer.py Transformer*, src_key_padding_mask; torch/nn/functional.py "
        "scaled_dot_product_attention(query, key, value, attn_mask=None, ...)",
    ),
    Row(
        TORCH_ATTENTION_LAYERS,
        "ignores_true_keys",
        f"{TORCH}, torch/nn/modules/activation.py MultiheadAttention.forward (key_padding_mask: 'a True value "
        "indicates that the corresponding key value will be ignored', line 1287; a float mask is added to the "
        "scores); torch/nn/modules/transformer.py Transformer.forward ('the positions with the value of True will "
        "be ignored', line 251; src/tgt/memory_key_padding_mask); torch/nn/functional.py _canonical_mask: only "
        "bool and float masks are supported, line 6598",
        on="class",
        roles={
            "key_padding_mask": ("key_padding_mask", None),
            "src_key_padding_mask": ("src_key_padding_mask", None),
            "tgt_key_padding_mask": ("tgt_key_padding_mask", None),
            "memory_key_padding_mask": ("memory_key_padding_mask", None),
        },
        condition="an instance called with a mask that is True (1) at the real tokens ignores them and attends "
        "to the pads; an int mask raises",
    ),
    # ---- what keeps or removes padding -----------------------------------------------------------
    Row(
        (
            "torch.tensor",
            "torch.as_tensor",
            "torch.LongTensor",
            "torch.IntTensor",
            "torch.stack",
            "torch.vstack",
            "torch.cat",
            "torch.concat",
            "torch.from_numpy",
            "numpy.array",
            "numpy.asarray",
            "numpy.stack",
            "numpy.vstack",
            "numpy.concatenate",
            "tuple",
        ),
        "keeps",
        f"{TORCH}, torch/_torch_docs.py (tensor, stack, cat...); {NUMPY}, numpy/_core (array, stack...)",
    ),
    Row(
        (
            "to",
            "long",
            "int",
            "bool",
            "float",
            "half",
            "bfloat16",
            "cuda",
            "cpu",
            "squeeze",
            "unsqueeze",
            "contiguous",
            "view",
            "reshape",
            "detach",
            "numpy",
            "tolist",
            "astype",
            "type",
            "flatten",
            "view_as",
            "reshape_as",
            "pin_memory",
            "expand",
            "expand_as",
        ),
        "keeps",
        f"{TORCH}, torch/_tensor_docs.py Tensor methods; {NUMPY} ndarray.astype/tolist",
        on="method",
    ),
    # Shape operations that keep the padding at other places; `style` says what the positions do
    # (analysis/shape_ops.py): "transposed", the batch and sequence axes swap (on a swap of axes 0 and
    # 1; other axes: "moved"); "moved", positions shift or rows mix: lengths and the tokenizer's mask
    # no longer describe them.
    Row(
        ("t", "T", "mT", "transpose", "swapaxes", "permute"),
        "keeps",
        f"{TORCH}, torch/_tensor_docs.py Tensor.t (dims 0 and 1 of a <= 2-D tensor), .T/.mT, "
        f"transpose(dim0, dim1), swapaxes, permute(*dims); {NUMPY} ndarray.T, transpose(*axes), swapaxes",
        on="method",
        style="transposed",
    ),
    Row(
        ("torch.t", "torch.transpose", "numpy.transpose", "numpy.swapaxes"),
        "keeps",
        f"{TORCH}, torch/_torch_docs.py t, transpose(input, dim0, dim1); {NUMPY} transpose(a, axes), swapaxes",
        style="transposed",
    ),
    Row(("roll",), "keeps", f"{TORCH}, torch/_tensor_docs.py Tensor.roll(shifts, dims)", on="method", style="moved"),
    # `x.narrow(dim, start, length)` is the slice `start:start + length` of one axis: the pads it keeps may
    # sit at other positions (start > 0), so lengths and masks are not reused.
    Row(
        ("narrow",),
        "keeps",
        f"{TORCH}, torch/_tensor_docs.py Tensor.narrow (see torch.narrow), _torch_docs.py narrow(input, dim, "
        "start, length): the dimension dim from start to start + length, sharing storage",
        on="method",
        style="moved",
    ),
    Row(
        ("torch.narrow",),
        "keeps",
        f"{TORCH}, torch/_torch_docs.py narrow(input, dim, start, length)",
        style="moved",
    ),
    Row(
        ("numpy.insert", "numpy.append", "numpy.roll", "torch.roll", "torch.flip", "numpy.flip"),
        "keeps",
        f"{NUMPY}, numpy/lib/_function_base_impl.py insert(arr, obj, values, axis) (values before obj), "
        f"append, roll, flip; {TORCH}, torch/_torch_docs.py roll, flip",
        style="moved",
    ),
    Row(
        ("copy.deepcopy", "copy.copy", "list", "torch.clone", "numpy.copy"),
        "copies",
        f"{TORCH}, torch/_torch_docs.py clone; {NUMPY}, numpy copy; CPython 3.11 copy.py",
    ),
    Row(("clone", "copy", "deepcopy"), "copies", f"{TORCH}, torch/_tensor_docs.py Tensor.clone", on="method"),
    Row(
        ("torch.masked_select",),
        "removes",
        f"{TORCH}, torch/_torch_docs.py masked_select (a 1-D tensor of the selected elements)",
        roles={"data": ("input", 0), "mask": ("mask", 1)},
    ),
    Row(
        ("masked_select",),
        "removes",
        f"{TORCH}, torch/_tensor_docs.py Tensor.masked_select",
        on="method",
        roles={"mask": ("mask", 0)},
    ),
    Row(
        ("__getitem__",),
        "removes",
        f"{TORCH}, torch/_tensor.py Tensor.__getitem__ with a boolean mask or `torch.where(mask)` / "
        f"`nonzero()` indices (the selected elements only, as {NUMPY} boolean indexing)",
        on="method",
        condition="the index is a mask (a boolean tensor, `where(mask)` with one argument, `mask.nonzero()`)",
    ),
    # ---- constant builders ----------------------------------------------------------------------
    Row(
        ("torch.ones", "numpy.ones"),
        "fills",
        f"{TORCH}, torch/_torch_docs.py ones; {NUMPY} ones",
        defaults={"fill": 1},
        style="ones",
    ),
    Row(
        ("torch.ones_like", "numpy.ones_like"),
        "fills",
        f"{TORCH}, torch/_torch_docs.py ones_like; {NUMPY} ones_like",
        defaults={"fill": 1},
        style="ones_like",
    ),
    # Zero or uninitialised buffers, and one-hot codes: what is then written into them is a class score
    # target (a detection head's one-hot), not language-model token ids.
    Row(
        (
            "torch.zeros",
            "torch.zeros_like",
            "torch.empty",
            "torch.empty_like",
            "numpy.zeros",
            "numpy.zeros_like",
            "numpy.empty",
            "torch.nn.functional.one_hot",
        ),
        "fills",
        f"{TORCH}, torch/_torch_docs.py zeros/zeros_like/empty/empty_like, torch/nn/functional.py one_hot; "
        f"{NUMPY} zeros/empty",
        defaults={"fill": 0},
        style="zeros",
    ),
    Row(
        ("new_zeros", "new_empty"),
        "fills",
        f"{TORCH}, torch/_tensor_docs.py Tensor.new_zeros/new_empty",
        on="method",
        defaults={"fill": 0},
        style="zeros",
    ),
    # Indices made from a size alone: targets so made (contrastive in-batch labels `arange(B)`) are class
    # indices, whatever they are named.
    Row(
        ("torch.arange", "numpy.arange"),
        "positions",
        f"{TORCH}, torch/_torch_docs.py arange (start=0, end, step=1); {NUMPY} arange",
    ),
    Row(
        ("torch.full", "numpy.full"),
        "fills",
        f"{TORCH}, torch/_torch_docs.py full; {NUMPY} full",
        roles={"fill": ("fill_value", 1)},
        style="full",
    ),
    Row(
        ("torch.full_like", "numpy.full_like"),
        "fills",
        f"{TORCH}, torch/_torch_docs.py full_like; {NUMPY} full_like",
        roles={"fill": ("fill_value", 1)},
        style="full_like",
    ),
)
