"""Control flow other than loops: NoOp, ``group``, ``tuple``, ``Assert``, ``tf.cond``
(Switch / Merge and the branch contexts) and ``tf.case``. Loops are in
:mod:`graphcore.ops.while_loop`."""

from __future__ import annotations

import builtins
from typing import Any

from graphcore.framework import common_shapes, nest, op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.sparse_tensor import SparseTensor
from graphcore.ops import (
    array_ops,
    control_flow_util,
    data_flow_ops,  # noqa: F401 - registers the stack ops
)
from graphcore.ops import control_flow_context_def as cfc

__all__ = [
    "Assert",
    "case",
    "cond",
    "control_trigger",
    "no_op",
    "switch_case",
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
        return [None if t is None else with_dependencies([gate], t) for t in tensors]


def with_dependencies(dependencies: list, output_tensor: Any,
                      name: str | None = None) -> ops_lib.Tensor:
    """``output_tensor`` through an Identity (``control_dependency``) that runs after
    ``dependencies``, colocated with it (TF's control_flow_ops.with_dependencies)."""
    with ops_lib.name_scope(name, "control_dependency", list(dependencies) + [output_tensor]) \
            as scope:
        with ops_lib.colocate_with(output_tensor.op), \
                ops_lib.control_dependencies(dependencies):
            return array_ops.identity(output_tensor, name=scope)


class _SparseParts(builtins.tuple):
    """A SparseTensor's three tensors while a cond or loop carries them one by one."""

    _fields = ("indices", "values", "dense_shape")

    def __new__(cls, *parts: Any) -> _SparseParts:
        return builtins.tuple.__new__(cls, parts)


def _expand_sparse(structure: Any) -> Any:
    """``structure`` with each SparseTensor as its three tensors (TF's
    ``expand_composites``)."""
    if isinstance(structure, SparseTensor):
        return _SparseParts(structure.indices, structure.values, structure.dense_shape)
    if isinstance(structure, dict):
        return type(structure)((k, _expand_sparse(v)) for k, v in structure.items())
    if nest.is_namedtuple(structure):
        return type(structure)(*[_expand_sparse(v) for v in structure])
    if isinstance(structure, (list, builtins.tuple)):
        return type(structure)(_expand_sparse(v) for v in structure)
    return structure


def _restore_sparse(structure: Any) -> Any:
    if isinstance(structure, _SparseParts):
        return SparseTensor(*structure)
    if isinstance(structure, dict):
        return type(structure)((k, _restore_sparse(v)) for k, v in structure.items())
    if nest.is_namedtuple(structure):
        return type(structure)(*[_restore_sparse(v) for v in structure])
    if isinstance(structure, (list, builtins.tuple)):
        return type(structure)(_restore_sparse(v) for v in structure)
    return structure


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

    def __init__(self, pred: Any, pivot: Any, branch: int, outer: CondContext | None,
                 name: str = "cond_text"):
        self.pred = pred
        self.pivot = pivot
        self.branch = branch
        self.outer = outer
        self.values: set[str] = {pred.name, pivot.name}
        self.external: dict[str, Any] = {pred.name: pred}
        self._context_stack: list = []
        self._nested_contexts: list = []
        if name is not None:  # None: from_proto names it
            self.name = pred.graph.unique_name(name)
        if outer is not None:
            outer._nested_contexts.append(self)

    def to_proto(self, export_scope: str | None = None) -> Any:
        """This branch as a CondContextDef (None outside ``export_scope``)."""
        from graphcore.protobuf import control_flow_pb2

        if export_scope is not None and not self.name.startswith(export_scope):
            return None
        out = control_flow_pb2.CondContextDef(
            context_name=cfc.strip_scope(self.name, export_scope),
            pred_name=cfc.strip_scope(self.pred.name, export_scope),
            pivot_name=cfc.strip_scope(self.pivot.name, export_scope), branch=self.branch)
        out.values_def.CopyFrom(cfc.to_values_def(self.values, self.external, export_scope))
        for nested in self._nested_contexts:
            cfc.to_context_def(nested, out.nested_contexts.add(), export_scope)
        return out

    @staticmethod
    def from_proto(context_def: Any, import_scope: str | None = None) -> CondContext:
        """The branch a CondContextDef describes, over the default graph's ops."""

        graph = ops_lib.get_default_graph()
        pred = graph.as_graph_element(cfc.prepend_scope(context_def.pred_name, import_scope))
        pivot = graph.as_graph_element(cfc.prepend_scope(context_def.pivot_name,
                                                          import_scope))
        ctx = CondContext(pred, pivot, context_def.branch, graph._get_control_flow_context(),
                          name=None)
        ctx.name = cfc.prepend_scope(context_def.context_name, import_scope)
        ctx.values, ctx.external = cfc.restore_values(ctx, context_def.values_def,
                                                       import_scope)
        cfc.add_nested(ctx, context_def.nested_contexts, import_scope)
        return ctx

    # TF's ControlFlowContext API (what loops and gradients use).
    outer_context = property(lambda self: self.outer)
    grad_state = property(lambda self: None)

    @property
    def back_prop(self) -> bool:
        ctx = self.GetWhileContext()
        return ctx.back_prop if ctx is not None else True

    def GetWhileContext(self) -> Any:  # noqa: N802
        return self.outer.GetWhileContext() if self.outer is not None else None

    def GetControlPivot(self) -> Any:  # noqa: N802
        return self.pivot

    def AddName(self, name: str) -> None:  # noqa: N802
        self.values.add(name)

    def AddInnerOp(self, op: ops_lib.Operation) -> None:  # noqa: N802
        if self.outer is not None:
            self.outer.AddInnerOp(op)

    def Enter(self) -> None:  # noqa: N802
        graph = self.pred.graph
        self._context_stack.append(graph._get_control_flow_context())
        graph._set_control_flow_context(self)

    def Exit(self) -> None:  # noqa: N802
        self.pred.graph._set_control_flow_context(self._context_stack.pop())

    def ExitResult(self, result: list) -> None:  # noqa: N802
        if self.outer is not None:
            for x in result:
                self.outer.AddName(x.name)

    def AddValue(self, t: Any) -> Any:  # noqa: N802
        return self.add_value(t)

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
        value = t
        if self.outer is not None:  # as TF: the outer context's value is one of ours too
            value = self.outer.add_value(t)
            self.values.add(value.name)
            self.external[value.name] = value
        graph = t.graph
        with graph.control_dependencies(None):
            result = _switch_ref_or_tensor(value, self.pred)[self.branch]
        result.op._control_flow_context = self
        graph.prevent_fetching(result.op)
        ctx: CondContext | None = self
        while ctx is not None:
            ctx.AddName(result.name)
            ctx = ctx.outer
        self.values.add(t.name)
        self.external[t.name] = result
        return result

    def add_op(self, op: ops_lib.Operation) -> None:
        """Rewrites a new op's inputs for this branch (called while it is created)."""
        op._control_flow_context = self
        for i, t in enumerate(op._inputs):
            if t.name not in self.values and not self._contains(t.op):
                _update_input(op, i, self.add_value(t))
            elif self.external.get(t.name, t) is not t:
                # An outside value seen before: its Switch (TF's AddValue each time).
                _update_input(op, i, self.external[t.name])
        if not op._inputs:
            self._remove_external_control_edges(op)
            if not any(self._contains(c) for c in op._control_inputs):
                op._control_inputs.append(self.pivot.op)
        ctx: CondContext | None = self
        while ctx is not None:
            for t in op._outputs:
                ctx.AddName(t.name)
            ctx = ctx.outer

    def _process_output_tensor(self, val: Any) -> Any:
        """A branch result as TF's ``_ProcessOutputTensor``: a value from outside the
        branch (``lambda: x``) comes through a Switch; one built inside is used as is."""
        from graphcore.framework.tensor_conversion import convert_to_tensor

        val = convert_to_tensor(val)
        if val.name not in self.values and not self._contains(val.op):
            self.values.add(val.name)
            real = val
            if self.outer is not None:
                real = self.outer.add_value(val)
                self.values.add(real.name)
                self.external[real.name] = real
            # Made inside the branch (unlike add_value's): both outputs are its values.
            real = _switch_ref_or_tensor(real, self.pred)[self.branch]
            self.external[val.name] = real
            return real
        return self.external.get(val.name, val)

    def _remove_external_control_edges(self, op: ops_lib.Operation) -> None:
        while_ctxt = self.GetWhileContext()
        if while_ctxt is None:
            return
        op._control_inputs = [c for c in op._control_inputs
                              if control_flow_util.output_while_context(c) is while_ctxt]

    def build_branch(self, fn: Any) -> builtins.tuple:
        graph = self.pred.graph
        saved = graph._get_control_flow_context()
        graph._set_control_flow_context(self)
        try:
            original = fn()
            if original is None:
                return None, no_op()
            flat = nest.flatten(_expand_sparse(original))
            results = []
            for v in flat:
                if isinstance(v, ops_lib.Operation):
                    # TF's with_dependencies: the pivot stands for the op.
                    with ops_lib.name_scope(None, "control_dependency", [v, self.pivot]) \
                            as scope, ops_lib.control_dependencies([v]):
                        results.append(array_ops.identity(self.pivot, name=scope))
                else:
                    results.append(self._process_output_tensor(v))
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
        if outer is None:  # nested ones are in their outermost context's proto
            ops_lib.add_to_collection("cond_context", context_t)
            ops_lib.add_to_collection("cond_context", context_f)
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
        if not isinstance(orig_t, (list, builtins.tuple, dict)) or (
                not strict and len(orig_t) == 1 and not isinstance(orig_t, dict)):
            orig_t = orig_t[0] if isinstance(orig_t, (list, builtins.tuple)) else orig_t
            if not isinstance(orig_t, (list, builtins.tuple, dict, SparseTensor)):
                return merges[0]
        return _restore_sparse(nest.pack_sequence_as(_expand_sparse(orig_t), merges))

op_registry.register_op("RefMerge").input("inputs: N * Ref(T)").output("output: Ref(T)") \
    .output("value_index: int32").attr("T: type").attr("N: int >= 1").shape_fn(_merge_shape)

op_registry.register_op("ControlTrigger").shape_fn(common_shapes.no_outputs)

op_registry.register_op("Assert").input("condition: bool").input("data: T") \
    .attr("T: list(type) >= 1").attr("summarize: int = 3").stateful() \
    .shape_fn(common_shapes.no_outputs)


def control_trigger(name: str | None = None) -> ops_lib.Operation:
    """A no-op that runs even when its control inputs are dead."""
    return apply_op("ControlTrigger", name=name or "ControlTrigger")


def Assert(condition: Any, data: list, summarize: int | None = None,  # noqa: N802
           name: str | None = None) -> ops_lib.Operation:
    """Fails the step with InvalidArgumentError when ``condition`` is false."""
    from graphcore.framework import dtypes as dtypes_lib
    from graphcore.framework.tensor_conversion import convert_to_tensor

    summarize = 3 if summarize is None else summarize
    values = [v for v in [condition, *data] if isinstance(v, ops_lib.Tensor)]
    with ops_lib.name_scope(name, "Assert", values or None):
        xs = [convert_to_tensor(d) for d in data]
        if all(x.dtype.base_dtype in (dtypes_lib.string, dtypes_lib.int32) for x in xs):
            return apply_op("Assert", name="Assert", condition=condition, data=list(data),
                            summarize=summarize)
        # As TF: other data is only formatted when the condition fails (AssertGuard).
        condition = convert_to_tensor(condition, name="Condition")

        def true_assert():
            return apply_op("Assert", name="Assert", condition=condition, data=list(data),
                            summarize=summarize)

        guarded_assert = cond(condition, no_op, true_assert, name="AssertGuard")
        return guarded_assert.op


def _switch_ref_or_tensor(data: Any, pred: Any, name: str = "Switch") -> builtins.tuple:
    with ops_lib.colocate_with(data, ignore_existing=True):
        return switch(data, pred, name=name)


def _update_input(op: ops_lib.Operation, index: int, tensor: Any) -> None:
    """Rewires input ``index`` of an existing op (TF's ``Operation._update_input``)."""
    op._update_input(index, tensor)


# -- case: nested conds ---------------------------------------------------------------------

def _assert_at_most_n_true(predicates: list, n: int, msg: str) -> ops_lib.Operation:
    from graphcore.ops import math_ops

    preds_c = array_ops.stack(list(predicates), name="preds_c")
    num_true_conditions = math_ops.reduce_sum(math_ops.cast(preds_c, "int32"),
                                              name="num_true_conds")
    condition = math_ops.less_equal(num_true_conditions,
                                    array_ops.constant(n, name="n_true_conds"))
    preds_names = ", ".join(getattr(p, "name", "?") for p in predicates)
    error_msg = [f"{msg}: more than {n} conditions ({preds_names}) evaluated as True:",
                 preds_c]
    return Assert(condition, data=error_msg, summarize=len(predicates))


def _case_create_default_action(predicates: list, actions: list) -> builtins.tuple:
    k = len(predicates) - 1
    predicate, action = predicates[k], actions[k]
    other_predicates, other_actions = predicates[:k], actions[:k]

    def default_action():
        others_msg = ("Implementation error: selected default action #%d was called, but "
                      "some of other predicates are True: " % k)
        default_msg = ["Input error: None of conditions evaluated as True:",
                       array_ops.stack(list(predicates), name="preds_c")]
        with ops_lib.control_dependencies([
                _assert_at_most_n_true(other_predicates, n=0, msg=others_msg),
                Assert(predicate, data=default_msg)]):
            return action()

    return default_action, other_predicates, other_actions


def _case_verify_and_canonicalize_args(pred_fn_pairs: Any, exclusive: bool) -> builtins.tuple:
    import collections

    from graphcore.framework import dtypes as dtypes_lib

    if not isinstance(pred_fn_pairs, (list, builtins.tuple, dict)):
        raise TypeError("'pred_fn_pairs' must be a list, tuple, or dict. Received: "
                        f"{type(pred_fn_pairs)}")
    if isinstance(pred_fn_pairs, collections.OrderedDict):
        pred_fn_pairs = list(pred_fn_pairs.items())
    elif isinstance(pred_fn_pairs, dict):
        pred_fn_pairs = sorted(pred_fn_pairs.items(), key=lambda item: item[0].name)
    for pair in pred_fn_pairs:
        if not isinstance(pair, builtins.tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'pred_fn_pairs' must be a 2-tuple. Received "
                            f"{pair}.")
        pred, fn = pair
        if isinstance(pred, ops_lib.Tensor):
            if pred.dtype != dtypes_lib.bool:
                raise TypeError(f"pred must be Tensor of type bool: {pred.name}")
        else:
            raise TypeError(f"pred must be a Tensor, got: {pred}")
        if not callable(fn):
            raise TypeError(f"fn for pred {pred.name} must be callable.")
    if not pred_fn_pairs:
        return (), ()
    predicates, actions = zip(*pred_fn_pairs)
    return list(predicates), list(actions)


def case(pred_fn_pairs: Any, default: Any = None, exclusive: bool = False,
         strict: bool = False, name: str = "case") -> Any:
    """The action of the first true predicate (TF1's ``tf.case``: nested conds, the
    last one falling back to ``default``); ``exclusive`` asserts at most one is true."""
    import functools

    predicates, actions = _case_verify_and_canonicalize_args(pred_fn_pairs, exclusive)
    with ops_lib.name_scope(name, "case", list(predicates) or None):
        if default is None:
            default, predicates, actions = _case_create_default_action(predicates, actions)
        fn = default
        for predicate, action in reversed(list(zip(predicates, actions))):
            fn = functools.partial(cond, predicate, true_fn=action, false_fn=fn,
                                   strict=strict)
        if exclusive:
            with ops_lib.control_dependencies([
                    _assert_at_most_n_true(predicates, n=1, msg="Input error: exclusive=True")]):
                return fn()
        return fn()


def switch_case(branch_index: Any, branch_fns: Any, default: Any = None,
                name: str = "switch_case") -> Any:
    """The result of ``branch_fns[branch_index]`` (``default``, else the last branch, for
    an index out of range), built as TF1 control flow builds it: a case over
    ``branch_index == i``."""
    from graphcore.framework.tensor_conversion import convert_to_tensor
    from graphcore.ops import math_ops

    if isinstance(branch_fns, dict):
        pairs = sorted(branch_fns.items())
    else:
        pairs = list(enumerate(branch_fns)) if not (branch_fns and isinstance(
            branch_fns[0], builtins.tuple)) else list(branch_fns)
    if not pairs:
        raise ValueError("Must provide at least one item in `branch_fns`")
    keys = [key for key, _ in pairs]
    if sorted(keys) != list(builtins.range(len(keys))):
        raise ValueError(f"branch indices (keys) must form contiguous range of [0 to "
                         f"{len(keys)}) but found {{{','.join(str(k) for k in keys)}}}")
    for key, fn in pairs:
        if not isinstance(key, int):
            raise TypeError(f"branch_index must an int: {key}")
        if not callable(fn):
            raise TypeError(f"fn for branch {key} must be callable: {fn}")
    with ops_lib.name_scope(name, "switch_case", [branch_index]):
        index = convert_to_tensor(branch_index, name="branch_index")
        fallback = default if default is not None else pairs[-1][1]
        return case([(math_ops.equal(index, key), fn) for key, fn in pairs],
                    default=fallback, exclusive=False)


cfc.register_context("cond_ctxt", CondContext.from_proto)
