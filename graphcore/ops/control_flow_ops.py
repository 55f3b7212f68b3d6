"""Grouping and ordering: NoOp, ``group``, ``tuple``."""

from __future__ import annotations

import builtins
from typing import Any

from graphcore.framework import common_shapes, op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.ops import array_ops

__all__ = [
    "cond",
    "no_op",
    "group",
    "tuple",
]

op_registry.register_op("NoOp").shape_fn(common_shapes.no_outputs)


def no_op(name: str | None = None) -> ops_lib.Operation:
    """An op that does nothing; useful as a control-dependency anchor."""
    return apply_op("NoOp", name=name)


def _group_on_device(dev: str | None, deps: list, name: str | None) -> ops_lib.Operation:
    with ops_lib.control_dependencies(deps):
        if dev is None:
            return no_op(name=name)
        with ops_lib.device(dev):
            return no_op(name=name)


def group(*inputs: Any, name: str | None = None) -> ops_lib.Operation:
    """A NoOp that runs after all ``inputs``; one NoOp per device when they span
    several devices, under a final NoOp (TF's two-level tree)."""
    flat = _flatten(inputs)
    values = [x for x in flat if x is not None]
    graph = ops_lib._get_graph_from_inputs(values)
    with graph.as_default(), graph.name_scope(name or "group_deps") as scope:
        if not values:
            return no_op(name=scope)
        by_device: dict[str, list] = {}
        for inp in values:
            if not hasattr(inp, "device"):
                raise TypeError(f"'{inp}' is not an Operation or Tensor")
            by_device.setdefault(inp.device, []).append(inp)
        if len(by_device) == 1:
            ((dev, deps),) = by_device.items()
            return _group_on_device(dev, deps, scope)
        per_device = [_group_on_device(dev, by_device[dev], None)
                      for dev in sorted(by_device, key=lambda d: d or "")]
        with ops_lib.control_dependencies(per_device):
            return no_op(name=scope)


def tuple(tensors: list, name: str | None = None, control_inputs: list | None = None) -> list:  # noqa: A001
    """Each tensor passed through an Identity that waits for all of them."""
    values = [t for t in tensors if t is not None]
    graph = ops_lib._get_graph_from_inputs(values)
    with graph.as_default(), graph.name_scope(name or "tuple") as scope:
        gate = group(*(values + list(control_inputs or [])), name=None)
        del scope
        out = []
        for t in tensors:
            if t is None:
                out.append(None)
                continue
            with ops_lib.control_dependencies([gate]):
                out.append(array_ops.identity(t))
        return out


def _flatten(items: Any) -> list:
    out: list = []
    for x in items:
        if isinstance(x, (list, builtins.tuple)):
            out.extend(_flatten(x))
        else:
            out.append(x)
    return out


# -- cond: Switch / Merge and the branch contexts -----------------------------------------

def _switch_shape(op: ops_lib.Operation) -> list:
    shape = op._inputs[0].shape
    return [shape, shape]


def _merge_shape(op: ops_lib.Operation) -> list:
    from graphcore.framework import tensor_shape as shape_lib

    shape = op._inputs[0].shape
    for t in op._inputs[1:]:
        if shape.ndims != t.shape.ndims:
            shape = shape_lib.unknown_shape()
            break
        shape = shape.most_specific_compatible_shape(t.shape)
    return [shape, shape_lib.TensorShape([])]


op_registry.register_op("Switch").input("data: T").input("pred: bool") \
    .output("output_false: T").output("output_true: T").attr("T: type") \
    .shape_fn(_switch_shape)

op_registry.register_op("RefSwitch").input("data: Ref(T)").input("pred: bool") \
    .output("output_false: Ref(T)").output("output_true: Ref(T)").attr("T: type") \
    .allows_uninitialized_input().shape_fn(_switch_shape)

op_registry.register_op("Merge").input("inputs: N * T").output("output: T") \
    .output("value_index: int32").attr("T: type").attr("N: int >= 1").shape_fn(_merge_shape)


def switch(data: Any, pred: Any, name: str | None = None) -> builtins.tuple:
    """(output_false, output_true): ``data`` forwarded to one side, the other dead."""
    from graphcore.framework.tensor_conversion import convert_to_tensor

    data = convert_to_tensor(data, as_ref=True, name="data")
    op_type = "RefSwitch" if data.dtype._is_ref_dtype else "Switch"
    if op_type == "Switch":
        data = convert_to_tensor(data, name="data")
    op = apply_op(op_type, name=name or "Switch", data=data, pred=pred)
    return op.outputs[0], op.outputs[1]


def merge(inputs: list, name: str | None = None) -> builtins.tuple:
    """(output, value_index): the value of whichever input is alive."""
    op = apply_op("Merge", name=name or "Merge", inputs=list(inputs))
    return op.outputs[0], op.outputs[1]


class CondContext:
    """One branch of a ``cond``: tensors from outside enter through Switches on the
    predicate, and ops without inputs wait on the branch's pivot, so everything in
    the untaken branch is dead."""

    def __init__(self, pred: Any, pivot: Any, branch: int, outer: CondContext | None):
        self.pred = pred
        self.pivot = pivot
        self.branch = branch
        self.outer = outer
        self.values: set[str] = {pred.name, pivot.name}
        self.external: dict[str, Any] = {pred.name: pred}

    def _contains(self, op: ops_lib.Operation) -> bool:
        ctx = op._control_flow_context
        while ctx is not None:
            if ctx is self:
                return True
            ctx = ctx.outer
        return False

    def add_value(self, t: Any) -> Any:
        if t.name in self.values:
            return self.external.get(t.name, t)
        value = self.outer.add_value(t) if self.outer is not None else t
        graph = t.graph
        saved = graph._get_control_flow_context()
        graph._set_control_flow_context(self.outer)
        try:
            with graph.control_dependencies(None):
                result = switch(value, self.pred)[self.branch]
        finally:
            graph._set_control_flow_context(saved)
        result.op._control_flow_context = self
        graph.prevent_fetching(result.op)
        ctx: CondContext | None = self
        while ctx is not None:
            ctx.values.add(result.name)
            ctx = ctx.outer
        self.values.add(t.name)
        self.external[t.name] = result
        return result

    def add_op(self, op: ops_lib.Operation) -> None:
        """Rewrites a new op's inputs for this branch (called while it is created)."""
        op._control_flow_context = self
        for i, t in enumerate(op._inputs):
            if t.name not in self.values and not self._contains(t.op):
                op._inputs[i] = self.add_value(t)
        if not op._inputs and not op._control_inputs:
            op._control_inputs.append(self.pivot.op)
        ctx: CondContext | None = self
        while ctx is not None:
            ctx.values.update(t.name for t in op._outputs)
            ctx = ctx.outer

    def build_branch(self, fn: Any) -> builtins.tuple:
        graph = self.pred.graph
        saved = graph._get_control_flow_context()
        graph._set_control_flow_context(self)
        try:
            original = fn()
            if original is None:
                return None, no_op()
            flat = _flatten([original])
            results = []
            for v in flat:
                if isinstance(v, ops_lib.Operation):
                    with ops_lib.control_dependencies([v]):
                        results.append(array_ops.identity(self.pivot))
                else:
                    results.append(array_ops.identity(v))
            return original, results
        finally:
            graph._set_control_flow_context(saved)


def cond(pred: Any, true_fn: Any = None, false_fn: Any = None, strict: bool = False,
         name: str | None = None, fn1: Any = None, fn2: Any = None) -> Any:
    """``true_fn()`` if ``pred`` else ``false_fn()`` (TF1 Switch/Merge dataflow): both
    branches are in the graph; only the taken one runs."""
    from graphcore.framework.tensor_conversion import convert_to_tensor

    true_fn = true_fn if true_fn is not None else fn1
    false_fn = false_fn if false_fn is not None else fn2
    if not callable(true_fn) or not callable(false_fn):
        raise TypeError("true_fn and false_fn must be callable.")
    if isinstance(pred, bool):
        raise TypeError("pred must not be a Python bool")
    with ops_lib.name_scope(name, "cond", [pred]):
        pred = convert_to_tensor(pred)
        graph = pred.graph
        outer = graph._get_control_flow_context()
        p_f, p_t = switch(pred, pred)
        pivot_t = array_ops.identity(p_t, name="switch_t")
        pivot_f = array_ops.identity(p_f, name="switch_f")
        pred = array_ops.identity(pred, name="pred_id")
        for t in (p_t, pivot_t, pivot_f, pred):
            graph.prevent_fetching(t.op)
        context_t = CondContext(pred, pivot_t, 1, outer)
        orig_t, res_t = context_t.build_branch(true_fn)
        context_f = CondContext(pred, pivot_f, 0, outer)
        orig_f, res_f = context_f.build_branch(false_fn)
        if orig_t is None or orig_f is None:
            raise ValueError("true_fn and false_fn must return a value (got None)")
        if len(res_t) != len(res_f):
            raise ValueError(f"Outputs of true_fn and false_fn must have the same structure: "
                             f"{len(res_t)} vs {len(res_f)} values")
        for a, b in zip(res_t, res_f):
            if a.dtype.base_dtype != b.dtype.base_dtype:
                raise TypeError(f"Outputs of true_fn and false_fn must have the same type: "
                                f"{a.dtype.name}, {b.dtype.name}")
        merges = [merge([f, t])[0] for f, t in zip(res_f, res_t)]
        if isinstance(orig_t, (list, builtins.tuple)):
            if len(merges) == 1 and not strict:
                return merges[0]
            return type(orig_t)(merges) if isinstance(orig_t, list) else builtins.tuple(merges)
        return merges[0]
