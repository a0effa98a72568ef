"""Recognisers for calls, names and literals, by qualified name (through the module's imports).

Everything here is a pure function of CST nodes plus the module's import table: no data flow.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
from collections.abc import Callable, Iterator
from typing import TypeGuard

import libcst as cst

from padlint.semantics import table as T

# What libraries do is data (padlint/semantics/table.py); these are the names the recognisers test.
IGNORE_VALUE = T.default("torch.nn.CrossEntropyLoss", "ignore_index")  # -100: what the standard losses skip
# Calls that pad a batch, by qualified name.
PAD_SEQUENCE = T.names("source", style="sequences")
FUNCTIONAL_PAD = T.names("source", style="widths")
KERAS_PAD = T.names("source", style="keras")
FULL = T.names("fills", style="full")
FULL_LIKE = T.names("fills", style="full_like")
ONES = T.names("fills", style="ones")
ONES_LIKE = T.names("fills", style="ones_like")
ZEROS = frozenset(n for n in T.names("fills", style="zeros") if n.endswith(".zeros"))  # a zero buffer (zero_padding.py)
WHERE = {"torch.where", "numpy.where"}
# Tensors made only to be filled (`torch.empty(B, L).fill_(pad_id)`): what they hold is the fill.
BUFFER_MAKERS = (
    T.names("fills", style="zeros")
    | ONES
    | {
        "torch.LongTensor",
        "torch.IntTensor",
        "torch.Tensor",
    }
)
BUFFER_METHODS = {"new", "new_zeros", "new_empty", "new_ones", "new_tensor"}
NOT_EQUAL_CALLS = {"torch.ne", "torch.not_equal", "numpy.not_equal"}  # `torch.ne(ids, pad_id)`: ids != pad_id
LOGICAL_NOT_CALLS = {"torch.logical_not", "torch.bitwise_not", "numpy.logical_not", "numpy.invert"}
NUMBER_CASTS = frozenset({"int", "bool", "float"})  # `int(t != pad_id)`: a comparison as a number
# Calls whose result holds the same tokens as their (first) argument.
SAME_VALUE_CALLS = T.names("keeps", style="")  # shape operations that move padding: shape_ops.py
COPY_CALLS = T.names("copies")
# Methods that return the same tokens (a view, a dtype or device change).
SAME_VALUE_METHODS = T.names("keeps", on="method", style="")
COPY_METHODS = T.names("copies", on="method")
SHAPE_METHODS = {"size", "numel"}

TOKENIZER_NAME = re.compile(r"(^|_)(tok|tokenizer|tokeniser|tknzr|processor)(_|$)|tokenizer", re.I)
NOT_TOKENIZER_NAME = re.compile(r"feature_extractor|image_processor", re.I)
TOKENIZER_FACTORIES = re.compile(r"(Tokenizer|Processor)\w*\.from_pretrained$")
MODEL_CALLEE = re.compile(
    r"(model|lm|net|clf|classifier|encoder|decoder|student|teacher|policy|critic|bert|roberta|gpt|llama|backbone)$",
    re.I,
)
# What a diffusion training script or pipeline imports: its text encoder (CLIP, T5, LDM's BERT) is
# frozen and fed prompts padded to its full context without a mask, on purpose.
DIFFUSION_IMPORT = re.compile(
    r"^diffusers(\.|$)|UNet\w*Model$|^(DDPM|DDIM|PNDM|EulerDiscrete)Scheduler$|^AutoencoderKL$"
)
# A mask the loss multiplies in, by the names the training libraries give it: Megatron and nanotron's
# `loss_mask`; verl's `response_mask` (trainer/ppo/core_algos.py compute_policy_loss); trl 1.16.0's
# `completion_mask` (trainer/grpo_trainer.py lines 3023-3027 and 3159: (per_token_loss * mask).sum());
# OpenRLHF's `action_mask`.
LOSS_MASK_KEYS = frozenset(
    {"loss_mask", "label_mask", "labels_mask", "response_mask", "completion_mask", "action_mask"}
)
CLIP_CONTEXT = 77  # tokens: CLIP's text context, which Stable Diffusion and open_clip prompts are padded to
# A frozen CLIP or T5 prompt encoder by its name: CLIP or T5 in it (`FrozenCLIPEmbedder`, `t5_encoder`),
# diffusers' `text_encoder`, CLIP's `text_model`, LDM's `cond_stage_model`, a `prompt_encoder`. A bare
# "embedder" names any embedding model (a sentence encoder, which reads every pad without its mask).
FROZEN_ENCODER = re.compile(r"clip|t5|text_encoder|text_model|prompt_encoder|cond_stage", re.I)
PAD_ID_NAME = re.compile(r"^_*(pad|padding)(_token)?(_id|_idx|_index|_value)?$|^pad_?(token_?)?id$", re.I)
# Collators that pad the features they are given again (by their bare class name).
REPADDING_COLLATORS = T.short_names(repads=True)
PAD_ID_ATTR = {"pad_token_id", "pad_id", "pad_idx", "pad_index", "padding_idx", "pad_token_idx"}
MASK_NAME = re.compile(r"attention_mask|attn_mask", re.I)
# Feature keys that hold an attention mask: `attention_mask`, and the prefixed ones of preference
# and prompt/completion batches (`chosen_attention_mask`, `prompt_attention_mask`).
MASK_KEY = re.compile(r"^(\w+_)?(attention_mask|attn_mask)$")
# Names of token ids (`input_ids`, `src_ids`, `tokens`), not of ids of another vocabulary (`token_type_ids`,
# `position_ids`, `label_ids`): a run of zeros added to them is padding with pad id 0.
TOKEN_IDS_NAME = re.compile(
    r"^(?!.*(type|position|pos|segment|seg|word|lang|speaker|label|class|entity|tag)_ids$)"
    r"(\w+_)?(input_ids|ids|token_ids|tokens)$",
    re.I,
)
# dtypes of integer buffers: `torch.long`, `np.int64`, "int32", `int`.
INTEGER_DTYPE = re.compile(r"(^|\.)(u?int\d*|long|short)$|^[\"']u?int\d*[\"']$")
LABEL_NAME = re.compile(r"label|target|tgt", re.I)
# Token-level labels (what a loss grades), as opposed to `label_map`, `target_sizes`, `labels_mask`.
TOKEN_LABELS = re.compile(r"^(labels?|label_ids|lbls?|targets?|target_ids|tgts?|\w+_labels|\w+_targets)$", re.I)


_FIELDS: dict[type, tuple[str, ...]] = {}
# Fields that hold only layout (whitespace, brackets, separators): no walk here needs them.
_LAYOUT_FIELD = re.compile(
    r"whitespace|^lpar$|^rpar$|comma|semicolon|^colon$|^dot$|^equal$|^lbrac|^rbrac|"
    r"^lbrace$|^rbrace$|^header$|^footer$|leading_lines|^newline$|^asname_|^star_tok"
)


def any_word(names) -> re.Pattern:
    """A regex for any of `names` as a whole word (names read in another module's text)."""
    return re.compile(r"\b(" + "|".join(re.escape(n) for n in sorted(names)) + r")\b")


def contains(root: cst.CSTNode, node: cst.CSTNode) -> bool:
    """Is `node` (by identity) `root` or written inside it?"""
    stack = [root]
    while stack:
        current = stack.pop()
        if current is node:
            return True
        stack.extend(child_nodes(current))
    return False


def walk(root: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Every node under `root` (itself included), each parent before its children."""
    stack: list[cst.CSTNode] = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(child_nodes(node))


def child_nodes(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The child nodes of `node`, read straight from its fields (whitespace and tokens left out).

    libcst's `node.children` runs a visitor per call, which made it the hot spot of the pass;
    reading the dataclass fields gives the same nodes far faster.
    """
    names = _FIELDS.get(type(node))
    if names is None:
        names = _FIELDS[type(node)] = tuple(
            f.name for f in dataclasses.fields(node) if not _LAYOUT_FIELD.search(f.name)
        )
    return _nodes_in(node, names)


def _nodes_in(node: cst.CSTNode, names: tuple[str, ...]) -> list[cst.CSTNode]:
    out: list[cst.CSTNode] = []
    for name in names:
        value = getattr(node, name)
        kind = _kind_of(value)
        if kind == _NODE:
            out.append(value)
        elif kind == _SEQUENCE:
            out.extend(v for v in value if _kind_of(v) == _NODE)
    return out


def node_order(root: cst.CSTNode) -> dict[int, int]:
    """id -> index of every node under `root` in reading order (whitespace and tokens left out, as
    child_nodes leaves them: no fact is about them, and they are two thirds of a module's nodes). Between
    statements, the order of the source. Rendering no code, it costs a fraction of libcst's positions."""
    order: dict[int, int] = {}
    stack: list[cst.CSTNode] = [root]
    while stack:
        node = stack.pop()
        order[id(node)] = len(order)
        stack.extend(reversed(child_nodes(node)))
    return order


# A field's kind by its type, looked up once per type: `isinstance` against libcst's abstract base
# classes was a tenth of the analysis time.
_NODE, _SEQUENCE, _OTHER = 1, 2, 0
_KIND: dict[type, int] = {}


def _kind_of(value) -> int:
    kind = _KIND.get(type(value))
    if kind is None:
        kind = _KIND[type(value)] = (
            _NODE if isinstance(value, cst.CSTNode) else _SEQUENCE if isinstance(value, (list, tuple)) else _OTHER
        )
    return kind


class Imports:
    """The module's import table: local name -> dotted qualified name."""

    def __init__(self, module: cst.Module):
        self.aliases: dict[str, str] = {}
        self.from_imports: dict[str, tuple[str, int, str]] = {}  # local -> (module, level, name)
        for node in _import_nodes(module):
            if isinstance(node, cst.ImportFrom) and not isinstance(node.names, cst.ImportStar):
                for alias in node.names:
                    local = alias.asname.name.value if alias.asname is not None else dotted(alias.name)  # type: ignore[union-attr]
                    module_name = dotted(node.module) if node.module is not None else ""
                    self.from_imports[local] = (module_name, len(node.relative), dotted(alias.name))
            if isinstance(node, cst.Import):
                for alias in node.names:
                    full = dotted(alias.name)
                    if alias.asname is not None:
                        self.aliases[alias.asname.name.value] = full  # type: ignore[union-attr]
                    else:
                        top = full.split(".")[0]
                        self.aliases[top] = top
            elif isinstance(node, cst.ImportFrom) and node.module is not None and not node.relative:
                base = dotted(node.module)
                if isinstance(node.names, cst.ImportStar):
                    continue
                for alias in node.names:
                    name = dotted(alias.name)
                    local = alias.asname.name.value if alias.asname is not None else name  # type: ignore[union-attr]
                    self.aliases[local] = f"{base}.{name}"

    def diffusion(self) -> bool:
        """Does the module import diffusers (or, inside diffusers, a U-Net, a VAE or a scheduler)?"""
        names = list(self.aliases.values()) + [name for _, _, name in self.from_imports.values()]
        return any(DIFFUSION_IMPORT.search(name) for name in names)

    def qualify(self, expr: cst.BaseExpression) -> str | None:
        """`T.nn.functional.pad` -> `torch.nn.functional.pad` when T is `import torch as T`."""
        parts = attribute_chain(expr)
        if not parts:
            return None
        head = self.aliases.get(parts[0])
        if head is None:
            return ".".join(parts)
        return ".".join([head, *parts[1:]])

    def local_name_for(self, module: str) -> str | None:
        """The name this module is bound to (`T` for `import torch as T`), if imported whole."""
        for local, full in self.aliases.items():
            if full == module:
                return local
        return None


def _import_nodes(module: cst.Module):
    # Imports anywhere in the module count (notebooks and functions import locally too).
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        kind = type(node)  # `type() is`, not isinstance: libcst's ABC checks are slow on every node
        if kind is cst.Import or kind is cst.ImportFrom:
            yield node
            continue
        if _is_expression(kind):
            continue
        stack.extend(child_nodes(node))


_EXPRESSION: dict[type, bool] = {}


def _is_expression(kind: type) -> bool:
    found = _EXPRESSION.get(kind)
    if found is None:
        found = _EXPRESSION[kind] = issubclass(kind, cst.BaseExpression)
    return found


def dotted(node: cst.CSTNode) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{dotted(node.value)}.{node.attr.value}"
    return ""


def attribute_chain(expr: cst.BaseExpression) -> list[str]:
    """`a.b.c` -> ["a", "b", "c"]; anything else -> []."""
    parts: list[str] = []
    while isinstance(expr, cst.Attribute):
        parts.append(expr.attr.value)
        expr = expr.value
    if isinstance(expr, cst.Name):
        parts.append(expr.value)
        return parts[::-1]
    return []


def root_name(expr: cst.BaseExpression) -> str | None:
    """The name a value is read from or written into, through subscripts and method calls:
    `func_labels[i][n:]` and `func_labels.reshape(-1)` -> "func_labels", `self.labels[:, 1:]` ->
    "self.labels"; None for anything else."""
    while True:
        if isinstance(expr, cst.Subscript):
            expr = expr.value
        elif isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
            expr = expr.func.value
        else:
            break
    chain = attribute_chain(expr)
    return ".".join(chain) if chain else None


def last_name(expr: cst.BaseExpression) -> str:
    """The last identifier of a callee: `self.model.generate` -> "generate"."""
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    if isinstance(expr, cst.Call):
        return last_name(expr.func)
    return ""


def keyword(call: cst.Call, name: str) -> cst.Arg | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def positional(call: cst.Call, index: int) -> cst.Arg | None:
    found = [a for a in call.args if a.keyword is None and not a.star]
    return found[index] if index < len(found) else None


def popped_key(call: cst.Call) -> str | None:
    """ "k" of `d.pop("k")` or `d.get("k", default)` (a list's `pop(i)` takes no string)."""
    if not call.args or len(call.args) > 2 or any(a.keyword is not None or a.star for a in call.args):
        return None
    return string_value(call.args[0].value)


def role_argument(call: cst.Call, role: tuple[str, int | None]) -> cst.Arg | None:
    """The argument a library table row's role names (`row.roles[...]`: its keyword, and its position when it
    can be passed positionally)."""
    name, position = role
    return keyword(call, name) or (positional(call, position) if position is not None else None)


def has_star_kwargs(call: cst.Call) -> bool:
    return any(a.star == "**" for a in call.args)


def is_test_module(path: str) -> bool:
    """A module pytest collects by its default `python_files` (`test_*.py`, `*_test.py`), or `conftest.py`."""
    stem, _, suffix = os.path.basename(path).rpartition(".")
    return suffix == "py" and (stem.startswith("test_") or stem.endswith("_test") or stem == "conftest")


def string_value(expr: cst.BaseExpression | None) -> str | None:
    if isinstance(expr, cst.SimpleString):
        raw = expr.value
        if raw[0] == raw[-1] and "\\" not in raw and "\r" not in raw:
            # No prefix, no escape: the text between the quotes (libcst's evaluated_value compiles
            # the literal with ast.literal_eval, a tenth of the analysis time on large modules).
            quotes = 3 if len(raw) >= 6 and raw[:3] == raw[0] * 3 else 1
            return raw[quotes:-quotes]
        value = _evaluated(expr)
        return value if isinstance(value, str) else None
    if isinstance(expr, cst.ConcatenatedString):
        joined = _evaluated(expr)
        return joined if isinstance(joined, str) else None
    return None


def _evaluated(expr: cst.SimpleString | cst.ConcatenatedString | cst.Integer) -> object:
    """The literal's value; None for one that parses but that the interpreter refuses when compiling (a
    Windows path written with single backslashes: a truncated unicode escape; an int with a leading 0)."""
    try:
        return expr.evaluated_value
    except (SyntaxError, ValueError):
        return None


def dict_keys(node: cst.Dict) -> set[str]:
    """The string-literal keys of a dict literal."""
    return {key for e in node.elements if isinstance(e, cst.DictElement) and (key := string_value(e.key)) is not None}


def int_value(expr: cst.BaseExpression | None) -> int | None:
    """The value of an integer literal, also `-100` and `(1)`."""
    if isinstance(expr, cst.Integer):
        value = _evaluated(expr)
        return value if isinstance(value, int) else None
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        inner = int_value(expr.expression)
        return -inner if inner is not None else None
    if isinstance(expr, cst.Name) and expr.value in ("True", "False"):
        return int(expr.value == "True")
    return None


def method_kind(fn: cst.FunctionDef) -> str:
    """ "static" (`@staticmethod`: no receiver is bound), "class" (`@classmethod`: the class is) or
    "plain"."""
    for decorator in fn.decorators:
        name = decorator.decorator
        if isinstance(name, cst.Name) and name.value in ("staticmethod", "classmethod"):
            return "static" if name.value == "staticmethod" else "class"
    return "plain"


def parameter_names(fn: cst.FunctionDef | cst.Lambda) -> set[str]:
    """The names of `fn`'s parameters (`self`, `*args` and `**kwargs` included)."""
    return {p.name.value for p in parameters(fn.params)}


def map_batched(call: cst.Call) -> bool:
    """Does `ds.map(fn, batched=True)` hand `fn` a batch of rows (not one example)?"""
    batched = keyword(call, "batched")
    return bool(batched and int_value(batched.value) == 1)


PAD_ID_MARK = "pad id"  # facts.label_marks: the module labels positions it does not train on with the pad id


def is_pad_id_expression(expr: cst.BaseExpression) -> bool:
    """`tokenizer.pad_token_id`, `self.pad_id`, `pad_id`, `PAD_ID`: named as a pad id."""
    if isinstance(expr, cst.Attribute):
        return expr.attr.value in PAD_ID_ATTR
    if isinstance(expr, cst.Name):
        return _pad_id_name(expr.value)
    return False


# Names repeat across a module: a regex per name once (these ran hundreds of thousands of times).
@functools.lru_cache(maxsize=8192)
def _pad_id_name(name: str) -> bool:
    return bool(PAD_ID_NAME.match(name))


@functools.lru_cache(maxsize=8192)
def _tokenizer_name(name: str) -> bool:
    return not NOT_TOKENIZER_NAME.search(name) and bool(TOKENIZER_NAME.search(name))


@functools.lru_cache(maxsize=8192)
def model_callee(name: str) -> bool:
    """Named like a model (`model`, `self.encoder`, `lm`), or its `generate` / `forward`."""
    return bool(MODEL_CALLEE.search(name)) or name in ("generate", "forward")


def is_eos_expression(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.Attribute):
        return expr.attr.value in ("eos_token_id", "eos_token", "eos_id")
    if isinstance(expr, cst.Name):  # the attribute's spellings, and a bare `eos`
        return expr.value.lower() in ("eos_token_id", "eos_token", "eos_id", "eos")
    if isinstance(expr, cst.Subscript):
        return is_eos_expression(expr.value)
    return False


def mentions_eos(node: cst.CSTNode) -> bool:
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (cst.Name, cst.Attribute)) and is_eos_expression(n):
            return True
        stack.extend(child_nodes(n))
    return False


def is_tokenizer_expression(expr: cst.BaseExpression) -> bool:
    """Named like a tokenizer or processor: `tokenizer`, `self.tok`, `processor.tokenizer`."""
    name = last_name(expr) if not isinstance(expr, cst.Call) else ""
    return bool(name) and _tokenizer_name(name)


def padding_requested(
    call: cst.Call,
    constants: dict[str, cst.BaseExpression],
    resolve: Callable[[cst.BaseExpression], cst.BaseExpression | None] | None = None,
) -> str | None:
    """The padding a tokenizer call asks for: "max_length", "longest", or None (no padding). `resolve`
    gives the value an expression holds where the caller knows it (a class attribute)."""
    arg = keyword(call, "padding")
    if arg is None:
        legacy = keyword(call, "pad_to_max_length")
        if legacy is not None and int_value(legacy.value) == 1:
            return "max_length"
        return None
    value = arg.value
    if resolve is not None:
        value = resolve(value) or value
    if isinstance(value, cst.Name) and value.value in constants:
        value = constants[value.value]
    if isinstance(value, cst.Name):
        return "longest" if value.value == "True" else None
    text = string_value(value)
    if text is not None:
        return {"max_length": "max_length", "longest": "longest"}.get(text)
    if isinstance(value, cst.Attribute) and value.attr.value in ("MAX_LENGTH", "LONGEST"):
        return value.attr.value.lower() if value.attr.value == "LONGEST" else "max_length"
    return None


def assigns_name(node: cst.CSTNode, name: str) -> TypeGuard[cst.Assign]:
    """Is `node` an assignment `name = ...` (one of its targets the plain name)?"""
    return isinstance(node, cst.Assign) and any(
        isinstance(t.target, cst.Name) and t.target.value == name for t in node.targets
    )


def comparison_operand(
    expr: cst.BaseExpression, ops: tuple[type, ...]
) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """`a == b` (or `a.eq(b)`-style when ops name methods) -> (a, b) for the given operator types."""
    if isinstance(expr, cst.Comparison) and len(expr.comparisons) == 1:
        target = expr.comparisons[0]
        if isinstance(target.operator, ops):
            return expr.left, target.comparator
    return None


def parameters(params: cst.Parameters):
    """Every parameter of a def or lambda, in order."""
    yield from params.posonly_params
    yield from params.params
    if isinstance(params.star_arg, cst.Param):
        yield params.star_arg
    yield from params.kwonly_params
    if params.star_kwarg is not None:
        yield params.star_kwarg
