"""``tf.while_loop``: the frame ops (Enter / Exit / NextIteration / LoopCond) and the
loop context (TF1's WhileContext) that builds a loop from them."""

from __future__ import annotations

import builtins
from typing import Any

from graphcore.framework import common_shapes, nest, op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.ops import array_ops, control_flow_ops, control_flow_util, tensor_array_ops
from graphcore.ops import control_flow_context_def as cfc

__all__ = ["while_loop"]

def _enter_shape(op: ops_lib.Operation) -> list:
    from graphcore.framework import tensor_shape as shape_lib

    # As TF's Enter shape function: only a loop constant keeps its input's shape.
    if op.get_attr("is_constant"):
        return [op._inputs[0].shape]
    return [shape_lib.unknown_shape()]


def _frame_op(name: str, ref: bool) -> op_registry.OpBuilder:
    t = "Ref(T)" if ref else "T"
    return op_registry.register_op(name).input(f"data: {t}").output(f"output: {t}") \
        .attr("T: type")


for _ref in (False, True):
    _p = "Ref" if _ref else ""
    _frame_op(f"{_p}Enter", _ref).attr("frame_name: string") \
        .attr("is_constant: bool = false").attr("parallel_iterations: int = 10") \
        .shape_fn(_enter_shape)
    _frame_op(f"{_p}Exit", _ref).shape_fn(common_shapes.unchanged_shape)
    _frame_op(f"{_p}NextIteration", _ref).shape_fn(common_shapes.unchanged_shape)
del _ref, _p

if op_registry.lookup("RefIdentity") is None:
    op_registry.register_op("RefIdentity").input("input: Ref(T)").output("output: Ref(T)") \
        .attr("T: type").allows_uninitialized_input().shape_fn(common_shapes.unchanged_shape)

op_registry.register_op("LoopCond").input("input: bool").output("output: bool") \
    .shape_fn(common_shapes.unchanged_shape)


def _is_ref(t: Any) -> bool:
    return t.dtype._is_ref_dtype


def _enter(data: Any, frame_name: str, is_constant: bool = False,
           parallel_iterations: int = 10, use_ref: bool = True,
           use_input_shape: bool = True, name: str | None = None) -> Any:
    """TF's ``_Enter``: ``data`` made available in the child frame ``frame_name``."""
    from graphcore.framework.tensor_conversion import convert_to_tensor

    data = convert_to_tensor(data, as_ref=True)
    op_type = "RefEnter" if _is_ref(data) and use_ref else "Enter"
    if op_type == "Enter" and _is_ref(data):
        data = convert_to_tensor(data)
    out = apply_op(op_type, name=name or "Enter", data=data, frame_name=frame_name,
                   is_constant=is_constant,
                   parallel_iterations=parallel_iterations).outputs[0]
    if use_input_shape:
        out.set_shape(data.shape)
    return out


def exit(data: Any, name: str | None = None) -> Any:  # noqa: A001
    """Exits the current frame to its parent frame (TF's ``exit``)."""
    from graphcore.framework.tensor_conversion import convert_to_tensor

    data = convert_to_tensor(data, as_ref=True)
    op_type = "RefExit" if _is_ref(data) else "Exit"
    return apply_op(op_type, name=name or "Exit", data=data).outputs[0]


def _next_iteration(data: Any, name: str | None = None) -> Any:
    from graphcore.framework.tensor_conversion import convert_to_tensor

    data = convert_to_tensor(data, as_ref=True)
    op_type = "RefNextIteration" if _is_ref(data) else "NextIteration"
    return apply_op(op_type, name=name or "NextIteration", data=data).outputs[0]


def loop_cond(input: Any, name: str | None = None) -> Any:  # noqa: A002
    """Forwards the loop's predicate; the executor reads it to end the frame."""
    return apply_op("LoopCond", name=name or "LoopCond", input=input).outputs[0]


def _shape_less_than_or_equal(shape1: Any, shape2: Any) -> bool:
    if shape2.dims is None:
        return True
    if shape1.ndims != shape2.ndims:
        return False
    for d1, d2 in zip(shape1.dims, shape2.dims):
        v1 = getattr(d1, "value", d1)
        v2 = getattr(d2, "value", d2)
        if v2 is not None and v1 != v2:
            return False
    return True


def _enforce_shape_invariant(merge_var: Any, next_var: Any) -> None:
    m_shape = merge_var.shape
    n_shape = next_var.shape
    if not _shape_less_than_or_equal(n_shape, m_shape):
        enter = merge_var.op._inputs[0].op
        input_t = enter._inputs[0]
        raise ValueError(
            f"Input tensor '{input_t.name}' enters the loop with shape {input_t.shape}, but "
            f"has shape {n_shape} after one iteration. To allow the shape to vary across "
            "iterations, use the `shape_invariants` argument of tf.while_loop to specify a "
            "less-specific shape.")


def _add_next_and_back_edge(m: Any, v: Any, enforce_shape_invariant: bool = True) -> Any:
    from graphcore.framework.tensor_conversion import convert_to_tensor

    v = convert_to_tensor(v)
    v = _next_iteration(v)
    if enforce_shape_invariant:
        _enforce_shape_invariant(m, v)
    control_flow_ops._update_input(m.op, 1, v)
    return v


class WhileContext:
    """The context of one ``while_loop`` (TF1's WhileContext): ops built inside belong
    to the loop's frame; tensors from outside enter through loop-constant Enters."""

    def __init__(self, maximum_iterations: Any = None, parallel_iterations: int = 10,
                 back_prop: bool = True, swap_memory: bool = False,
                 name: str = "while_context", grad_state: Any = None):
        if not isinstance(parallel_iterations, int) or parallel_iterations <= 0:
            raise ValueError(f"'parallel_iterations' must be a positive integer: "
                             f"{parallel_iterations}")
        graph = ops_lib.get_default_graph()
        self._graph = graph
        self._outer_context = graph._get_control_flow_context()
        self._context_stack: list = []
        self._values: set[str] = set()
        self._external_values: dict[str, Any] = {}
        self._name = graph.unique_name(name)
        self._maximum_iterations = maximum_iterations
        self._parallel_iterations = parallel_iterations
        self._back_prop = back_prop
        self._swap_memory = swap_memory
        self._pivot_for_pred = None
        self._pivot_for_body = None
        self._pivot = None
        self._loop_exits: list = []
        self._loop_enters: list = []
        self._grad_state = grad_state
        self._nested_contexts: list = []
        if self._outer_context is not None:
            self._outer_context._nested_contexts.append(self)

    # -- TF's ControlFlowContext API ----------------------------------------------------
    name = property(lambda self: self._name)
    outer_context = property(lambda self: self._outer_context)
    outer = property(lambda self: self._outer_context)
    grad_state = property(lambda self: self._grad_state)
    back_prop = property(lambda self: self._back_prop)
    pivot = property(lambda self: self._pivot)
    loop_enters = property(lambda self: self._loop_enters)
    loop_exits = property(lambda self: self._loop_exits)
    parallel_iterations = property(lambda self: self._parallel_iterations)
    maximum_iterations = property(lambda self: self._maximum_iterations)
    swap_memory = property(lambda self: self._swap_memory)

    def GetWhileContext(self) -> WhileContext:  # noqa: N802
        return self

    def to_proto(self, export_scope: str | None = None) -> Any:
        """This loop as a WhileContextDef (None outside ``export_scope``)."""
        from graphcore.protobuf import control_flow_pb2

        if export_scope is not None and not self._name.startswith(export_scope):
            return None

        def strip(t: Any) -> str:
            return cfc.strip_scope(t.name, export_scope)

        out = control_flow_pb2.WhileContextDef(
            context_name=cfc.strip_scope(self._name, export_scope),
            parallel_iterations=self._parallel_iterations, back_prop=self._back_prop,
            swap_memory=self._swap_memory, pivot_name=strip(self._pivot),
            pivot_for_pred_name=strip(self._pivot_for_pred),
            pivot_for_body_name=strip(self._pivot_for_body),
            loop_exit_names=[strip(t) for t in self._loop_exits],
            loop_enter_names=[strip(t) for t in self._loop_enters])
        if self._maximum_iterations is not None:
            out.maximum_iterations_name = strip(self._maximum_iterations)
        out.values_def.CopyFrom(cfc.to_values_def(self._values, self._external_values,
                                                   export_scope))
        for nested in self._nested_contexts:
            cfc.to_context_def(nested, out.nested_contexts.add(), export_scope)
        return out

    @staticmethod
    def from_proto(context_def: Any, import_scope: str | None = None) -> WhileContext:
        """The loop a WhileContextDef describes, over the default graph's ops; with an
        ``import_scope`` its Enters' frame names become the scoped context name."""
        from graphcore.protobuf import attr_value_pb2

        graph = ops_lib.get_default_graph()

        def element(name: str) -> Any:
            return graph.as_graph_element(cfc.prepend_scope(name, import_scope))

        ctx = WhileContext.__new__(WhileContext)
        ctx._graph = graph
        ctx._outer_context = graph._get_control_flow_context()
        ctx._context_stack = []
        ctx._name = cfc.prepend_scope(context_def.context_name, import_scope)
        ctx._maximum_iterations = element(context_def.maximum_iterations_name) \
            if context_def.maximum_iterations_name else None
        ctx._parallel_iterations = context_def.parallel_iterations
        ctx._back_prop = context_def.back_prop
        ctx._swap_memory = context_def.swap_memory
        ctx._pivot_for_pred = element(context_def.pivot_for_pred_name)
        ctx._pivot_for_body = element(context_def.pivot_for_body_name)
        ctx._pivot = element(context_def.pivot_name)
        ctx._loop_exits = [element(n) for n in context_def.loop_exit_names]
        ctx._loop_enters = [element(n) for n in context_def.loop_enter_names]
        ctx._grad_state = None
        ctx._nested_contexts = []
        if ctx._outer_context is not None:
            ctx._outer_context._nested_contexts.append(ctx)
        ctx._values, ctx._external_values = cfc.restore_values(
            ctx, context_def.values_def, import_scope)
        if import_scope:
            frame = attr_value_pb2.AttrValue(s=ctx._name.encode())
            for name in ctx._values:
                op = graph.as_graph_element(name).op
                if op.type in ("Enter", "RefEnter"):
                    op._set_attr("frame_name", frame)
        cfc.add_nested(ctx, context_def.nested_contexts, import_scope)
        return ctx

    def GetControlPivot(self) -> Any:  # noqa: N802
        return self._pivot_for_body if self._pivot_for_body is not None \
            else self._pivot_for_pred

    def AddName(self, name: str) -> None:  # noqa: N802
        self._values.add(name)

    def Enter(self) -> None:  # noqa: N802
        self._context_stack.append(self._graph._get_control_flow_context())
        self._graph._set_control_flow_context(self)

    def Exit(self) -> None:  # noqa: N802
        self._graph._set_control_flow_context(self._context_stack.pop())

    def ExitResult(self, result: list) -> None:  # noqa: N802
        if self._outer_context is not None:
            for x in result:
                self._outer_context.AddName(x.name)

    def AddInnerOp(self, op: ops_lib.Operation) -> None:  # noqa: N802
        if self._outer_context is not None:
            self._outer_context.AddInnerOp(op)

    def __repr__(self) -> str:
        return f"<WhileContext {self._name}>"

    # -- values and ops ---------------------------------------------------------------
    def AddValue(self, val: Any) -> Any:  # noqa: N802
        """``val`` as seen inside this loop: an Enter (is_constant) for outside values;
        in a gradient loop, a forward loop value comes from its per-iteration stack."""
        result = val
        new_value = val.name not in self._values and \
            val.op._control_flow_context is not self
        if new_value:
            self._values.add(val.name)
            grad_ctxt = self._graph._get_control_flow_context()
            if grad_ctxt is not None:
                grad_ctxt = grad_ctxt.GetWhileContext()
                if grad_ctxt is not None and grad_ctxt.grad_state is not None:
                    forward_ctxt = control_flow_util.get_while_context(val.op)
                    if control_flow_util.is_loop_exit(val.op):
                        forward_ctxt = forward_ctxt.outer_context
                        if forward_ctxt is not None:
                            forward_ctxt = forward_ctxt.GetWhileContext()
                    if forward_ctxt is grad_ctxt.grad_state.forward_context:
                        real_val = grad_ctxt.grad_state.GetRealValue(val)
                        self._external_values[val.name] = real_val
                        return real_val
            if self._outer_context is not None:
                result = self._outer_context.AddValue(val)
            with ops_lib.control_dependencies(None):
                enter = _enter(result, self._name, is_constant=True,
                               parallel_iterations=self._parallel_iterations)
                self._graph.prevent_feeding(enter)
            self._fix_control_inputs_and_context([enter])
            self._values.add(enter.name)
            self._external_values[val.name] = enter
            result = enter
        else:
            actual = self._external_values.get(val.name)
            if actual is not None:
                result = actual
        return result

    add_value = AddValue

    def add_op(self, op: ops_lib.Operation) -> None:
        """Called while ``op`` is created in this context (TF's ``_AddOpInternal``)."""
        op._control_flow_context = self
        if not op._inputs:
            internal, external = self._remove_external_control_edges(op)
            if not internal:
                op._control_inputs.append(self.GetControlPivot().op)
        else:
            for i, x in enumerate(op._inputs):
                real_x = self.AddValue(x)
                if real_x is not x:
                    control_flow_ops._update_input(op, i, real_x)
            _, external = self._remove_external_control_edges(op)
            if not op._control_inputs and all(
                    control_flow_util.is_loop_constant_enter(x.op) for x in op._inputs):
                op._control_inputs.append(self.GetControlPivot().op)
        if external:
            # External control inputs enter the loop as data: an Identity of each
            # (through a loop-constant Enter) inside the loop carries the edge.
            with ops_lib.control_dependencies(None):
                self.Enter()
                try:
                    ids = [array_ops.identity(x._outputs[0]).op for x in external
                           if x._outputs]
                finally:
                    self.Exit()
            for x in ids:
                op._add_control_input(x)
        for x in op._outputs:
            self._values.add(x.name)
        if self._outer_context is not None or not control_flow_util.is_loop_exit(op):
            self._graph.prevent_fetching(op)
            for x in op._outputs:
                self._graph.prevent_feeding(x)

    AddOp = add_op

    def _remove_external_control_edges(self, op: ops_lib.Operation) -> builtins.tuple:
        internal, external = [], []
        for c in op._control_inputs:
            (internal if control_flow_util.output_while_context(c) is self else external).append(c)
        if external:
            op._control_inputs = internal
        return internal, external

    def _fix_control_inputs_and_context(self, enters: list) -> None:
        for x in enters:
            x.op._control_flow_context = self
            if self._outer_context is not None:
                self._outer_context.AddInnerOp(x.op)

    # -- building the loop --------------------------------------------------------------
    def BuildLoop(self, pred: Any, body: Any, loop_vars: Any, shape_invariants: Any,  # noqa: N802
                  return_same_structure: bool = False) -> Any:
        from graphcore.framework.tensor_conversion import convert_to_tensor

        # TensorArrays travel through the loop as their flow tensors (as TF1's BuildLoop).
        loop_vars = nest.pack_sequence_as(loop_vars, [
            v if isinstance(v, (ops_lib.Tensor, tensor_array_ops.TensorArray))
            else convert_to_tensor(v) for v in nest.flatten(loop_vars)])
        flat_loop_vars = [tensor_array_ops.to_flow(v) for v in nest.flatten(loop_vars)]
        if shape_invariants is not None:
            nest.assert_same_structure(loop_vars, shape_invariants)
            flat_shapes = nest.flatten(shape_invariants)
            from graphcore.framework import tensor_shape as shape_lib

            for s in flat_shapes:
                if not isinstance(s, shape_lib.TensorShape):
                    raise TypeError("'shape' must be one of TypeSpec, TensorShape or None. "
                                    f"Received: {type(s)}")
        else:
            flat_shapes = [v.shape for v in flat_loop_vars]
        self.Enter()
        try:
            original_body_result, exit_vars = self._build_loop(
                pred, body, loop_vars, flat_loop_vars, flat_shapes)
        finally:
            self.Exit()
        packed = nest.pack_sequence_as(original_body_result, tensor_array_ops.from_flows(
            nest.flatten(original_body_result), exit_vars))
        if return_same_structure:
            return packed
        return packed[0] if len(exit_vars) == 1 else packed

    def _build_loop(self, pred: Any, body: Any, loop_vars: Any, flat_loop_vars: list,
                    flat_shapes: list) -> builtins.tuple:
        from graphcore.framework.tensor_conversion import convert_to_tensor

        self._values = {x.name for x in flat_loop_vars}
        if self._outer_context is not None:
            real_vars = [self._outer_context.AddValue(x) for x in flat_loop_vars]
        else:
            real_vars = flat_loop_vars
        enter_vars = []
        with ops_lib.control_dependencies(None):
            for real_var, shape in zip(real_vars, flat_shapes):
                enter_var = _enter(real_var, self._name, is_constant=False,
                                   parallel_iterations=self._parallel_iterations,
                                   use_input_shape=False)
                if _shape_less_than_or_equal(real_var.shape, shape):
                    enter_var._shape = shape
                else:
                    raise ValueError(
                        f"The shape invariant specified for {real_var.name} is not compatible "
                        "with the initial shape of the loop variable. It enters the loop with "
                        f"shape {real_var.shape}, but the specified shape invariant is "
                        f"{shape}.")
                self._graph.prevent_feeding(enter_var)
                enter_vars.append(enter_var)
        outer = self._outer_context
        control_pivot = None
        while outer is not None and control_pivot is None:
            control_pivot = outer.GetControlPivot()
            outer = outer.outer_context
        if control_pivot is not None:
            for var in enter_vars:
                if control_flow_util.is_loop_constant_enter(var.op._inputs[0].op):
                    var.op._add_control_input(control_pivot.op)
        self._fix_control_inputs_and_context(enter_vars)
        self._values = {x.name for x in enter_vars}
        self._loop_enters = enter_vars

        merge_vars = [control_flow_ops.merge([x, x])[0] for x in enter_vars]
        self._pivot_for_pred = merge_vars[0]
        flat_structure = nest.flatten(loop_vars)
        packed_vars = nest.pack_sequence_as(
            loop_vars, tensor_array_ops.from_flows(flat_structure, merge_vars))
        c = convert_to_tensor(pred(*packed_vars))
        self._pivot = loop_cond(c, name="LoopCond")
        switch_vars = [control_flow_ops._switch_ref_or_tensor(x, self._pivot) for x in merge_vars]

        vars_for_body = [_identity(x[1]) for x in switch_vars]
        self._pivot_for_body = vars_for_body[0]
        packed_vars_for_body = nest.pack_sequence_as(
            loop_vars, tensor_array_ops.from_flows(flat_structure, vars_for_body))
        body_result = body(*packed_vars_for_body)
        if not nest.is_nested(body_result):
            body_result = [body_result]
        nest.assert_same_structure(list(packed_vars_for_body), list(body_result))
        original_body_result = body_result
        result = [v if isinstance(v, ops_lib.Tensor) else convert_to_tensor(v)
                  for v in map(tensor_array_ops.to_flow, nest.flatten(body_result))]
        if len(merge_vars) != len(result):
            raise ValueError("Number of inputs and outputs of 'body' must match 'loop_vars'. "
                             f"Got {len(merge_vars)} for the number of inputs/outputs, and "
                             f"{len(result)} for 'loop_vars'.")
        for m, v in zip(merge_vars, result):
            if m.dtype.base_dtype != v.dtype.base_dtype:
                raise ValueError(f"Loop variable {m.name} enters the loop as "
                                 f"{m.dtype.base_dtype.name} but the body returns "
                                 f"{v.dtype.base_dtype.name}")
            _add_next_and_back_edge(m, v)
        exit_vars = [exit(x[0]) for x in switch_vars]
        self._loop_exits = exit_vars
        self.ExitResult(exit_vars)
        return original_body_result, exit_vars

    # -- gradient support (TF's AddForwardLoopCounter & co.) ------------------------------
    def AddForwardLoopCounter(self, outer_grad_state: Any) -> builtins.tuple:  # noqa: N802
        from graphcore.ops import math_ops

        n = array_ops.constant(0, name="f_count")
        if outer_grad_state is not None:
            outer_add_op = outer_grad_state.forward_index.op._inputs[0].op
            n.op._add_control_input(outer_add_op)
        self.Enter()
        try:
            self.AddName(n.name)
            enter_n = _enter(n, self._name, is_constant=False,
                             parallel_iterations=self._parallel_iterations, name="f_count")
            self._loop_enters.append(enter_n)
            merge_n = control_flow_ops.merge([enter_n, enter_n])[0]
            switch_n = control_flow_ops.switch(merge_n, self._pivot)
            index = math_ops.add(switch_n[1], 1)
            next_n = _next_iteration(index)
            control_flow_ops._update_input(merge_n.op, 1, next_n)
            total_iterations = exit(switch_n[0], name="f_count")
            self._loop_exits.append(total_iterations)
            self.ExitResult([total_iterations])
        finally:
            self.Exit()
        return total_iterations, next_n

    def AddBackpropLoopCounter(self, count: Any, outer_grad_state: Any) -> Any:  # noqa: N802
        from graphcore.ops import math_ops

        one = array_ops.constant(1, name="b_count")
        self.Enter()
        try:
            self.AddName(count.name)
            enter_count = _enter(count, self._name, is_constant=False,
                                 parallel_iterations=self._parallel_iterations, name="b_count")
            self._loop_enters.append(enter_count)
            merge_count = control_flow_ops.merge([enter_count, enter_count])[0]
            self._pivot_for_pred = merge_count
            pred = math_ops.greater_equal(merge_count, one)
            self._pivot = loop_cond(pred, name="b_count")
            switch_count = control_flow_ops.switch(merge_count, self._pivot)
            index = math_ops.subtract(switch_count[1], one)
            self._pivot_for_body = index
            next_count = _next_iteration(index)
            control_flow_ops._update_input(merge_count.op, 1, next_count)
            final_zero = exit(switch_count[0], name="b_count")
            self._loop_exits.append(final_zero)
            if outer_grad_state is not None:
                outer_grad_state.grad_sync._add_control_input(final_zero.op)
            self.ExitResult([final_zero])
        finally:
            self.Exit()
        return next_count

    def AddBackpropAccumulator(self, op: ops_lib.Operation, grad: Any) -> Any:  # noqa: N802
        """Sums ``grad`` over the gradient loop's iterations (the gradient of a loop
        invariant ``op``, a constant Enter)."""
        from graphcore.ops import math_ops

        self.Exit()
        outer = self._outer_context
        shape = grad.shape
        if shape.is_fully_defined():
            if outer is not None:
                outer.Enter()
            acc = array_ops.constant(0, grad.dtype, shape=shape.as_list(), name="b_acc")
            if outer is not None:
                outer.Exit()
        else:
            value = op._inputs[0]
            if isinstance(outer, WhileContext) and outer.grad_state is not None:
                forward_ctxt = self.grad_state.forward_context
                forward_ctxt.outer_context.Enter()
                zeros_shape = array_ops._shape_internal(value, optimize=False)
                forward_ctxt.outer_context.Exit()
                outer_grad_state = self.grad_state.outer_grad_state
                history_zeros_shape = outer_grad_state.AddForwardAccumulator(zeros_shape)
                outer.Enter()
                real_shape = outer_grad_state.AddBackpropAccumulatedValue(
                    history_zeros_shape, zeros_shape)
                acc = array_ops.zeros(real_shape, grad.dtype)
                outer.Exit()
            else:
                if outer is not None:
                    outer.Enter()
                zeros_shape = array_ops._shape_internal(value, optimize=False)
                acc = array_ops.zeros(zeros_shape, grad.dtype)
                if outer is not None:
                    outer.Exit()
        self.Enter()
        self.AddName(acc.name)
        enter_acc = _enter(acc, self._name, is_constant=False,
                           parallel_iterations=self._parallel_iterations, name="b_acc")
        self._loop_enters.append(enter_acc)
        merge_acc = control_flow_ops.merge([enter_acc, enter_acc], name="b_acc")[0]
        switch_acc_false, switch_acc_true = control_flow_ops.switch(merge_acc, self._pivot)
        add_acc = math_ops.add(switch_acc_true, grad)
        next_acc = _next_iteration(add_acc)
        control_flow_ops._update_input(merge_acc.op, 1, next_acc)
        result_acc = exit(switch_acc_false, name="b_acc")
        self._loop_exits.append(result_acc)
        self.ExitResult([result_acc])
        return result_acc


def _identity(t: Any, name: str | None = None) -> Any:
    if _is_ref(t):
        return apply_op("RefIdentity", name=name or "Identity", input=t).outputs[0]
    return array_ops.identity(t, name=name)


def while_loop(cond: Any, body: Any, loop_vars: Any, shape_invariants: Any = None,
               parallel_iterations: int = 10, back_prop: bool = True,
               swap_memory: bool = False, name: str | None = None,
               maximum_iterations: Any = None, return_same_structure: bool = False) -> Any:
    """Repeats ``body`` while ``cond`` is true (TF1's Enter/Merge/Switch/NextIteration/Exit
    loop); ``loop_vars`` may be a nested structure of tensors."""
    from graphcore.framework import tensor_shape as shape_lib
    from graphcore.framework.tensor_conversion import convert_to_tensor
    from graphcore.ops import math_ops

    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if parallel_iterations < 1:
        raise TypeError("'parallel_iterations' must be a positive integer.")
    flat_values = [v for v in map(tensor_array_ops.to_flow, nest.flatten(loop_vars))
                   if isinstance(v, ops_lib.Tensor)]
    with ops_lib.name_scope(name, "while", flat_values or None):
        if not loop_vars:
            raise ValueError("'loop_vars' must be provided.")
        try_to_pack = len(loop_vars) == 1 and not return_same_structure
        if maximum_iterations is not None:
            maximum_iterations = convert_to_tensor(maximum_iterations,
                                                   name="maximum_iterations")
            if maximum_iterations.shape.ndims != 0:
                raise ValueError("'maximum_iterations' must be a scalar. Received shape: "
                                 f"{maximum_iterations.shape}")
            counter = array_ops.constant(0, dtype=maximum_iterations.dtype,
                                         name="iteration_counter")
            orig_cond, orig_body = cond, body
            max_iter = maximum_iterations
            if try_to_pack:
                loop_vars = (counter, loop_vars[0])

                def cond(i, lv):
                    return math_ops.logical_and(i < max_iter, orig_cond(lv))

                def body(i, lv):
                    return (i + 1, orig_body(lv))
            else:
                loop_vars = (counter, loop_vars)

                def cond(i, lv):
                    return math_ops.logical_and(i < max_iter, orig_cond(*lv))

                def body(i, lv):
                    return (i + 1, orig_body(*lv))
        if shape_invariants is not None and maximum_iterations is not None:
            shape_invariants = (shape_lib.TensorShape([]), shape_invariants)
        loop_context = WhileContext(maximum_iterations=maximum_iterations,
                                    parallel_iterations=parallel_iterations,
                                    back_prop=back_prop, swap_memory=swap_memory)
        if loop_context.outer_context is None:
            ops_lib.add_to_collection("while_context", loop_context)
        result = loop_context.BuildLoop(cond, body, loop_vars, shape_invariants,
                                        return_same_structure)
        if maximum_iterations is not None:
            return result[1]
        return result


cfc.register_context("while_ctxt", WhileContext.from_proto)
