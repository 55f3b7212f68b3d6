"""``tf.gradients``: the symbolic gradient subgraph, TF1's algorithm.

Ops between ``xs`` and ``ys`` are visited in reverse topological order (a pending
count per op); each op's output gradients are summed (AddN when several), its
registered gradient function builds the input gradients under
``gradients/<op name>_grad``, and those flow to the producers of its inputs.
"""

from __future__ import annotations

import collections
import enum
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import gradient_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework.indexed_slices import IndexedSlices
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import control_flow_state, control_flow_util

__all__ = ["gradients", "AggregationMethod", "UnconnectedGradients"]


class UnconnectedGradients(enum.StrEnum):
    """What ``gradients`` returns for an x that ys do not depend on."""

    NONE = "none"
    ZERO = "zero"


class AggregationMethod:
    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


def _as_list(x: Any) -> list:
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _reached_from(xs_ops: list[ops_lib.Operation]) -> set[ops_lib.Operation]:
    reached: set[ops_lib.Operation] = set()
    queue = collections.deque(xs_ops)
    while queue:
        op = queue.popleft()
        if op in reached:
            continue
        reached.add(op)
        for t in op._outputs:
            if _is_backpropagatable(t):
                # As TF: gradients flow along float/complex/resource/variant tensors
                # only (so a loop's predicate, for one, is not on the path).
                queue.extend(t._consumers)
    return reached


def _between(ys_ops: list[ops_lib.Operation], reached: set[ops_lib.Operation],
             stop_ops: set[ops_lib.Operation]) -> tuple[set, list]:
    between: set[ops_lib.Operation] = set()
    between_list: list[ops_lib.Operation] = []
    queue = collections.deque(op for op in ys_ops if op in reached)
    while queue:
        op = queue.popleft()
        if op in between:
            continue
        between.add(op)
        between_list.append(op)
        if op in stop_ops:
            continue
        for t in op._inputs:
            if t.op in reached:
                queue.append(t.op)
    return between, between_list


def _is_backpropagatable(t: ops_lib.Tensor) -> bool:
    dt = t.dtype.base_dtype
    return dt.is_floating or dt.is_complex or dt.name in ("resource", "variant")


def _is_trainable(t: ops_lib.Tensor) -> bool:
    dt = t.dtype.base_dtype
    return dt.is_floating or dt.is_complex


def _default_grad_ys(ys: list[ops_lib.Tensor], grad_ys: list) -> list:
    from graphcore.ops import array_ops

    out = []
    for i, (y, gy) in enumerate(zip(ys, grad_ys)):
        if gy is None:
            if not _is_trainable(y):
                raise TypeError(f"Gradients of complex tensors or ints must set grad_ys "
                                f"(y.dtype = {y.dtype.base_dtype.name})")
            out.append(array_ops.ones(array_ops.shape(y), dtype=y.dtype.base_dtype,
                                      name=f"grad_ys_{i}"))
        else:
            out.append(convert_to_tensor(gy, dtype=y.dtype.base_dtype, name=f"grad_ys_{i}"))
    return out


def _aggregate(grads: list) -> Any:
    """The sum of one tensor's gradients: AddN of dense ones; when any is IndexedSlices,
    IndexedSlices of the concatenated values and indices (dense ones taken as all their
    rows), as TF's _AggregatedGrads."""
    grads = [g for g in grads if g is not None]
    if not grads:
        return None
    if len(grads) == 1:
        return grads[0]
    if any(not isinstance(g, (ops_lib.Tensor, IndexedSlices)) for g in grads):
        raise TypeError(f"Invalid gradient {grads}. Gradients have to be either all Tensors "
                        "or all IndexedSlices")
    if all(isinstance(g, ops_lib.Tensor) for g in grads):
        from graphcore.ops import math_ops

        return math_ops.add_n(grads)
    from graphcore.ops import array_ops, indexed_slices_ops

    slices = [_flatten_nested_slices(x) for x in indexed_slices_ops.as_indexed_slices_list(grads)]
    return IndexedSlices(array_ops.concat([x.values for x in slices], 0),
                         array_ops.concat([x.indices for x in slices], 0),
                         slices[0].dense_shape)


def _flatten_nested_slices(grad: IndexedSlices) -> IndexedSlices:
    """IndexedSlices whose values are IndexedSlices, as one level (TF's
    _HandleNestedIndexedSlices)."""
    if isinstance(grad.values, ops_lib.Tensor):
        return grad
    from graphcore.ops import array_ops

    inner = _flatten_nested_slices(grad.values)
    return IndexedSlices(inner.values, array_ops.gather(grad.indices, inner.indices),
                         inner.dense_shape)


def _zeros_like_output(op: ops_lib.Operation, index: int) -> ops_lib.Tensor:
    return control_flow_state.ZerosLikeOutsideLoop(op, index)


def gradients(ys: Any, xs: Any, grad_ys: Any = None, name: str = "gradients",
              colocate_gradients_with_ops: bool = False, gate_gradients: bool = False,
              aggregation_method: Any = None, stop_gradients: Any = None,
              unconnected_gradients: str = "none") -> list:
    """Symbolic d(sum(ys))/d(x) for each x in ``xs`` (None where unconnected).

    ``grad_ys`` weights each y (default ones); ``stop_gradients`` are treated as
    constants.  Raises LookupError for an op on the path with no registered gradient.
    """
    del aggregation_method
    ys = [convert_to_tensor(y, name="y") for y in _as_list(ys)]
    xs_list = _as_list(xs)
    xs = [convert_to_tensor(x, name="x", as_ref=True) for x in xs_list]
    grad_ys = _as_list(grad_ys) if grad_ys is not None else [None] * len(ys)
    if len(grad_ys) != len(ys):
        raise ValueError(f"Passed {len(grad_ys)} grad_ys for {len(ys)} ys")
    stop_tensors = [convert_to_tensor(t) for t in _as_list(stop_gradients)] \
        if stop_gradients is not None else []
    graph = ops_lib._get_graph_from_inputs(ys + xs + stop_tensors)
    with graph.as_default(), graph.name_scope(name or "gradients"):
        grad_ys = _default_grad_ys(ys, grad_ys)
        xs_ops = [x.op for x in xs]
        stop_ops = {t.op for t in stop_tensors}
        reached = _reached_from(xs_ops)
        between, between_list = _between([y.op for y in ys], reached, stop_ops)
        loop_state = control_flow_state.MaybeCreateControlFlowState(
            between_list, between, colocate_gradients_with_ops)
        pending: dict[ops_lib.Operation, int] = collections.defaultdict(int)
        for op in between_list:
            if op in stop_ops:
                continue
            for t in op._inputs:
                if t.op in between:
                    pending[t.op] += 1
        grads: dict[ops_lib.Tensor, list] = collections.defaultdict(list)
        for y, gy in zip(ys, grad_ys):
            grads[y].append(gy)
        queue = collections.deque()
        seen_ys: set[ops_lib.Operation] = set()
        for y in ys:
            if y.op in between and pending[y.op] == 0 and y.op not in seen_ys:
                seen_ys.add(y.op)
                queue.append(y.op)
        if loop_state is not None:
            # Loop exits not on the path still need a (zero) gradient: the gradient loop
            # runs once for all of a loop's exits.
            for y in loop_state.ProcessUnusedLoopExits(pending, seen_ys):
                if _is_trainable(y):
                    grads[y].append(loop_state.ZerosLikeForExit(y))
                queue.append(y.op)
        # As TF's _StopOps: an x op none of whose inputs is on the path is where
        # backprop ends (so a Placeholder x needs no gradient function).
        for op in xs_ops:
            if not any(pending.get(t.op, 0) > 0 for t in op._inputs):
                stop_ops.add(op)
        xs_set = set(xs)
        while queue:
            op = queue.popleft()
            _backprop_op(op, grads, stop_ops, xs_set, colocate_gradients_with_ops,
                         gate_gradients, loop_state)
            if op in stop_ops:
                continue
            for t in op._inputs:
                src = t.op
                if src not in between:
                    continue
                pending[src] -= 1
                ready = pending[src] == 0
                if loop_state is not None and not ready:
                    ready = pending[src] > 0 and control_flow_util.is_loop_switch(src)
                if not ready:
                    continue
                if loop_state is not None and control_flow_util.is_loop_exit(src):
                    _defer_exit(src, grads, queue, loop_state)
                else:
                    queue.append(src)
        if loop_state is not None:
            loop_state.PostProcessing()
        result = []
        for x in xs:
            g = _aggregate(grads.get(x, []))
            if g is None and unconnected_gradients == "zero":
                from graphcore.ops import array_ops

                g = array_ops.zeros_like(x)
            result.append(g)
        return result


def _defer_exit(exit_op: ops_lib.Operation, grads: dict, queue: Any, loop_state: Any) -> None:
    """A forward loop's exits are processed together, once all of them are ready."""
    grad_state = loop_state.GetGradState(exit_op, before=False)
    grad_state.deferred_exits.append(exit_op._outputs[0])
    grad_state.pending_exits_count -= 1
    if grad_state.pending_exits_count != 0:
        return
    has_not_none_grad = False
    for y in grad_state.deferred_exits:
        if any(grads.get(t) for t in y.op._outputs):
            has_not_none_grad = True
            queue.append(y.op)
        else:
            grad_state.unused_exits.append(y)
    for y in grad_state.unused_exits:
        if has_not_none_grad and _is_trainable(y):
            grads[y].append(loop_state.ZerosLikeForExit(y))
        queue.append(y.op)


def _backprop_op(op: ops_lib.Operation, grads: dict, stop_ops: set, xs_set: set,
                 colocate: bool, gate: bool, loop_state: Any = None) -> None:
    cm = op.graph.colocate_with(op) if colocate else _NullContext()
    with cm:
        if loop_state is not None:
            loop_state.EnterGradWhileContext(op, before=True)
        try:
            out_grads = [_aggregate(grads.get(t, [])) for t in op._outputs]
        finally:
            if loop_state is not None:
                loop_state.ExitGradWhileContext(op, before=True)
    for t, g in zip(op._outputs, out_grads):
        if g is not None:
            grads[t] = [g]
    if op in stop_ops or not any(g is not None for g in out_grads):
        return
    grad_fn = gradient_registry.get_gradient_function(op)
    if grad_fn is None:
        return
    if loop_state is not None:
        loop_state.EnterGradWhileContext(op, before=False)
    try:
        _call_grad_fn(op, grad_fn, out_grads, grads, xs_set, colocate, gate, loop_state)
    finally:
        if loop_state is not None:
            loop_state.ExitGradWhileContext(op, before=False)


def _call_grad_fn(op: ops_lib.Operation, grad_fn: Any, out_grads: list, grads: dict,
                  xs_set: set, colocate: bool, gate: bool, loop_state: Any) -> None:
    del xs_set
    cm = op.graph.colocate_with(op) if colocate else _NullContext()
    with cm, ops_lib.name_scope(op.name + "_grad"):
        for i, g in enumerate(out_grads):
            if g is None and _is_trainable(op._outputs[i]):
                out_grads[i] = loop_state.ZerosLike(op, i) if loop_state is not None \
                    else _zeros_like_output(op, i)
        in_grads = _as_list(grad_fn(op, *out_grads))
        if len(in_grads) != len(op._inputs):
            raise ValueError(f"Num gradients {len(in_grads)} generated for op {op.node_def} "
                             f"do not match num inputs {len(op._inputs)}")
        if gate and sum(g is not None for g in in_grads) > 1:
            from graphcore.ops import control_flow_ops

            with ops_lib.device(None):
                in_grads = control_flow_ops.tuple(in_grads)
    for t_in, g in zip(op._inputs, in_grads):
        if g is None:
            continue
        # A resource handle is a scalar; its gradient has the variable's shape (TF's check
        # skips resource inputs too).
        if isinstance(g, ops_lib.Tensor) and t_in.dtype != dtypes_lib.resource:
            try:
                g.set_shape(t_in.shape)
            except ValueError:
                raise ValueError(f"Incompatible shapes between op input and calculated input "
                                 f"gradient. Forward operation: {op.name}. Input: {t_in.name}. "
                                 f"Input shape: {t_in.shape}. Calculated gradient shape: "
                                 f"{g.shape}") from None
        grads[t_in].append(g)


class _NullContext:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None
