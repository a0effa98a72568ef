"""What shape operations make of padded values in the flow pass (the rows are in shape_ops.py)."""

from __future__ import annotations

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis import shape_ops
from padlint.analysis.values import GoodMask, Padded, Value
from padlint.analysis.walker_state import WalkerState


class ShapeFlow(WalkerState):
    """Mixed into the scope walker next to ExpressionEvaluator."""

    def keep_padding(
        self,
        node: cst.CSTNode,
        data: Value,
        row: shape_ops.KeepsPadding,
        axes: list,
        kind: str | None = None,
    ) -> Value:
        """`x.t()`, `np.insert(x, 0, sot, axis=1)`, `x.permute(1, 0)`: `data`'s padding, moved as the row says.

        `node` is the whole expression and `axes` the int arguments that say which axes move (a
        TRANSPOSED row); `kind` the kind of the result when the call makes a new array."""
        if not any(isinstance(t, (Padded, GoodMask)) for t in data):
            return data
        effect = row.effect
        if effect == shape_ops.TRANSPOSED:
            padded = next((t for t in data if isinstance(t, Padded)), None)
            method = row.match.rsplit(".", 1)[-1]
            if method == "transpose" and (padded is not None and padded.kind == "np" or row.match.startswith("numpy")):
                method = "transpose_axes"  # numpy's transpose takes the new order, torch's a pair
            swap = shape_ops.transposes(method, axes)
            effect = {
                True: shape_ops.TRANSPOSED,
                False: shape_ops.SAME,
                None: shape_ops.MOVED,
            }[swap]
        before, after = self.around_data(node)
        out = set()
        for tag in data:
            if isinstance(tag, Padded):
                if effect == shape_ops.SAME:
                    tag = tag.derived(before, after, kind)
                elif effect == shape_ops.TRANSPOSED:
                    tag = tag.transposed(before, after)
                else:
                    tag = tag.moved(kind)
            elif isinstance(tag, GoodMask) and effect != shape_ops.SAME:
                continue  # a mask for the old positions
            out.add(tag)
        return frozenset(out)

    def around_data(self, node: cst.CSTNode) -> tuple[str, str]:
        """The code before and after the padded operand: ("", ".t()") for `ids.t()`."""
        text = self.code(node)
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and not self.is_module_call(node):
            inner = self.code(node.func.value)
            return "", text[len(inner) :]
        if isinstance(node, cst.Attribute):
            return "", text[len(self.code(node.value)) :]
        arg = P.positional(node, 0) if isinstance(node, cst.Call) else None
        if arg is None or not isinstance(node, cst.Call):
            return "", ""
        inner = self.code(arg.value)
        start = text.find(inner, len(self.code(node.func)))
        return text[:start], text[start + len(inner) :]

    def is_module_call(self, call: cst.Call) -> bool:
        """`np.insert(...)`, `torch.t(...)`: a function of a module, not a method of a value."""
        qualified = self.imports.qualify(call.func) if isinstance(call.func, (cst.Name, cst.Attribute)) else None
        return qualified in shape_ops.FUNCTIONS

    def axes_of(self, call: cst.Call, skip: int = 0) -> list:
        """The int positional arguments after the first `skip` (the axes of transpose / permute)."""
        args = [a for a in call.args if a.keyword is None and not a.star][skip:]
        if len(args) == 1 and isinstance(args[0].value, (cst.Tuple, cst.List)):  # `permute((1, 0))`
            return [P.int_value(e.value) for e in args[0].value.elements]
        axes = [P.int_value(a.value) for a in args]
        for name in ("dim0", "dim1", "axis1", "axis2", "axes", "dims"):
            arg = P.keyword(call, name)
            if arg is not None:
                axes.append(P.int_value(arg.value))
        return axes
