"""The state of ``tf.gradients`` through while loops (TF1's control_flow_state): per
forward loop a :class:`GradLoopState` with a forward iteration counter, the backprop
WhileContext running that many iterations, and stacks (StackV2/StackPushV2/StackPopV2)
holding each forward value the gradient needs, pushed per forward iteration and popped
in reverse."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_util
from graphcore.ops import array_ops, control_flow_util, data_flow_ops, while_loop
from graphcore.ops import control_flow_ops as cf


def _get_loop_constant_enter(value: Any) -> Any:
    """The loop-constant Enter ``value`` comes from (through Identities), or None."""
    id_ops = {"Switch", "RefSwitch", "Identity", "RefIdentity"}
    op = value.op
    while op.type in id_ops:
        op = op._inputs[0].op
    return op if control_flow_util.is_loop_constant_enter(op) else None


def _is_constant(t: Any) -> bool:
    return t.op.type == "Const"


class GradLoopState:
    """The gradient loop of one forward while loop (TF's GradLoopState)."""

    def __init__(self, forward_ctxt: while_loop.WhileContext, outer_grad_state: GradLoopState | None):
        self._outer_grad_state = outer_grad_state
        self._forward_context = None
        self._forward_index = None
        self._forward_sync = None
        self._grad_context = None
        self._grad_index = None
        self._grad_sync = None
        self._history_map: dict[str, Any] = {}
        self._switch_map: dict[Any, Any] = {}
        self._unused_exits: list = []
        self._deferred_exits: list = []
        self._forward_loop_exits = list(forward_ctxt.loop_exits)
        self._pending_exits_count = len(forward_ctxt.loop_exits)
        if outer_grad_state is not None:
            outer_forward_ctxt = outer_grad_state.forward_context
        else:
            outer_forward_ctxt = forward_ctxt.outer_context
        graph = forward_ctxt._graph
        with graph.as_default():
            if outer_forward_ctxt is not None:
                outer_forward_ctxt.Enter()
            cnt, forward_index = forward_ctxt.AddForwardLoopCounter(outer_grad_state)
            if outer_forward_ctxt is not None:
                outer_forward_ctxt.Exit()
        self._forward_context = forward_ctxt
        self._forward_index = forward_index
        if outer_grad_state is not None:
            # A nested loop: remember the iteration count of each execution.
            outer_forward_ctxt.AddName(cnt.name)
            history_cnt = outer_grad_state.AddForwardAccumulator(cnt)
            outer_grad_ctxt = outer_grad_state.grad_context
            outer_grad_ctxt.Enter()
            self._grad_context = while_loop.WhileContext(
                maximum_iterations=forward_ctxt.maximum_iterations,
                parallel_iterations=forward_ctxt.parallel_iterations,
                back_prop=forward_ctxt.back_prop, swap_memory=forward_ctxt.swap_memory,
                name=forward_ctxt.name, grad_state=self)
            real_cnt = outer_grad_state.AddBackpropAccumulatedValue(history_cnt, cnt)
            self._grad_index = self._grad_context.AddBackpropLoopCounter(
                real_cnt, outer_grad_state)
            outer_grad_ctxt.Exit()
        else:
            if outer_forward_ctxt is not None:
                outer_forward_ctxt.Enter()
            self._grad_context = while_loop.WhileContext(
                maximum_iterations=forward_ctxt.maximum_iterations,
                parallel_iterations=forward_ctxt.parallel_iterations,
                back_prop=forward_ctxt.back_prop, swap_memory=forward_ctxt.swap_memory,
                name=forward_ctxt.name, grad_state=self)
            self._grad_index = self._grad_context.AddBackpropLoopCounter(
                cnt, outer_grad_state)
            if outer_forward_ctxt is not None:
                outer_forward_ctxt.Exit()

    outer_grad_state = property(lambda self: self._outer_grad_state)
    forward_context = property(lambda self: self._forward_context)
    forward_index = property(lambda self: self._forward_index)
    grad_context = property(lambda self: self._grad_context)
    history_map = property(lambda self: self._history_map)
    switch_map = property(lambda self: self._switch_map)
    unused_exits = property(lambda self: self._unused_exits)
    deferred_exits = property(lambda self: self._deferred_exits)
    forward_loop_exits = property(lambda self: self._forward_loop_exits)

    @property
    def pending_exits_count(self) -> int:
        return self._pending_exits_count

    @pending_exits_count.setter
    def pending_exits_count(self, cnt: int) -> None:
        self._pending_exits_count = cnt

    @staticmethod
    def _sync_trigger(name: str, context: Any, index: Any) -> Any:
        """A ControlTrigger in ``context`` that the loop's ``index`` waits on."""
        with ops_lib.control_dependencies(None):
            trigger = cf.control_trigger(name=name)
        trigger._control_flow_context = context
        index.op._add_control_input(trigger)
        return trigger

    @property
    def forward_sync(self) -> Any:
        """A ControlTrigger keeping the forward loop's stack pushes in iteration order."""
        if self._forward_sync is None:
            self._forward_sync = self._sync_trigger("f_sync", self._forward_context,
                                                    self._forward_index)
        return self._forward_sync

    @property
    def grad_sync(self) -> Any:
        """A ControlTrigger keeping the grad loop's stack pops in iteration order."""
        if self._grad_sync is None:
            self._grad_sync = self._sync_trigger("b_sync", self._grad_context,
                                                 self._grad_index)
        return self._grad_sync

    def AddForwardAccumulator(self, value: Any, dead_branch: bool = False) -> Any:  # noqa: N802
        """A stack in the forward loop's outer context; ``value`` pushed each iteration."""
        graph = self._forward_index.graph
        with graph.as_default():
            curr_ctxt = graph._get_control_flow_context()
            with ops_lib.control_dependencies(None):
                if curr_ctxt is not None:
                    curr_ctxt.Enter()
                with ops_lib.colocate_with(value):
                    max_size = array_ops.constant(-1, dtypes_lib.int32)
                    acc = data_flow_ops.stack_v2(max_size=max_size,
                                                 elem_type=value.dtype.base_dtype,
                                                 name="f_acc")
                if curr_ctxt is not None:
                    curr_ctxt.Exit()
                enter_acc = self.forward_context.AddValue(acc)
                swap_enabled = self.forward_context.swap_memory
                value_ctxt = control_flow_util.get_output_context(value.op)
                if value_ctxt is self.forward_context:
                    self.forward_context.Enter()
                    push = data_flow_ops.stack_push_v2(enter_acc, value,
                                                       swap_memory=swap_enabled)
                    self.forward_context.Exit()
                    self.forward_index.op._add_control_input(push.op)
                else:
                    if not isinstance(value_ctxt, cf.CondContext):
                        raise TypeError(f"value_ctxt is not a CondContext: {value_ctxt}")
                    if dead_branch:
                        value_ctxt.outer_context.Enter()
                        push = data_flow_ops.stack_push_v2(enter_acc, value,
                                                           swap_memory=swap_enabled)
                        value_ctxt.outer_context.Exit()
                        push.op._control_flow_context = value_ctxt
                    else:
                        value_ctxt.Enter()
                        push = data_flow_ops.stack_push_v2(enter_acc, value,
                                                           swap_memory=swap_enabled)
                        value_ctxt.Exit()
                    self.forward_sync._add_control_input(push.op)
                add_op = self.forward_index.op._inputs[0].op
                push.op._add_control_input(add_op)
                return acc

    def AddBackpropAccumulatedValue(self, history_value: Any, value: Any,  # noqa: N802
                                    dead_branch: bool = False) -> Any:
        """The pop (in the grad loop) of the stack ``history_value`` of ``value``."""
        history_ctxt = history_value.op._control_flow_context
        cond_ctxt = None
        value_ctxt = value.op._control_flow_context
        while value_ctxt is not None and value_ctxt is not history_ctxt:
            if isinstance(value_ctxt, cf.CondContext):
                cond_ctxt = value_ctxt
                break
            value_ctxt = value_ctxt.outer_context
        with ops_lib.control_dependencies(None):
            self.grad_context.Enter()
            if cond_ctxt is not None:
                grad_state = self
                pred = None
                while pred is None and grad_state is not None:
                    pred = grad_state.history_map.get(cond_ctxt.pred.name)
                    grad_state = grad_state.outer_grad_state
                if pred is None:
                    pred = cond_ctxt.pred
                branch = (1 - cond_ctxt.branch) if dead_branch else cond_ctxt.branch
                history_value = cf._switch_ref_or_tensor(history_value, pred)[branch]
            pop = data_flow_ops.stack_pop_v2(history_value, value.dtype.base_dtype)
            pop.set_shape(value.shape)
            self.grad_context.Exit()
        if self.grad_context.parallel_iterations > 1:
            self.grad_sync._add_control_input(pop.op)
        return pop

    def GetRealValue(self, value: Any) -> Any:  # noqa: N802
        """The forward ``value`` as the grad loop sees it (a stack pop per iteration, or
        the value itself when it is a loop invariant or a constant)."""
        real_value = self._history_map.get(value.name)
        if real_value is None:
            cur_value = value
            cur_grad_state = self
            history_value = None
            while True:
                enter_op = _get_loop_constant_enter(cur_value)
                if enter_op is not None:
                    cur_value = enter_op._inputs[0]
                    cur_grad_state = cur_grad_state.outer_grad_state
                    if cur_grad_state is None:
                        real_value = self._grad_context.AddValue(cur_value)
                        break
                elif _is_constant(cur_value):
                    real_value = array_ops.constant(
                        tensor_util.constant_value(cur_value), dtype=cur_value.dtype)
                    break
                else:
                    self._grad_context.Exit()
                    history_value = cur_grad_state.AddForwardAccumulator(cur_value)
                    self._grad_context.Enter()
                    break
            if real_value is None:
                real_value = cur_grad_state.AddBackpropAccumulatedValue(history_value,
                                                                        cur_value)
                if cur_grad_state is not self:
                    real_value = self._grad_context.AddValue(real_value)
            self._history_map[value.name] = real_value
        return real_value


class ControlFlowState:
    """The GradLoopStates of one ``tf.gradients`` call, per forward while loop."""

    def __init__(self) -> None:
        self._map: dict[Any, GradLoopState] = {}

    def GetGradState(self, op: ops_lib.Operation, before: bool) -> Any:  # noqa: N802
        if before and control_flow_util.is_loop_exit(op):
            forward_ctxt = op._control_flow_context.outer_context
            if forward_ctxt is not None:
                forward_ctxt = forward_ctxt.GetWhileContext()
        else:
            forward_ctxt = control_flow_util.get_while_context(op)
        if forward_ctxt is not None:
            return self._map.get(forward_ctxt)
        return None

    def ProcessUnusedLoopExits(self, pending_count: dict, to_ops_set: set) -> list:  # noqa: N802
        loop_exits = []
        for grad_state in self._map.values():
            for y in grad_state.forward_loop_exits:
                if pending_count[y.op] == 0:
                    grad_state.pending_exits_count -= 1
                    if y.op not in to_ops_set:
                        grad_state.unused_exits.append(y)
                    if grad_state.pending_exits_count == 0:
                        loop_exits.extend(grad_state.unused_exits)
            for y in grad_state.forward_context.loop_enters:
                if pending_count[y.op] == 0:
                    pending_count[y.op] = 1
        return loop_exits

    def EnterGradWhileContext(self, op: ops_lib.Operation, before: bool) -> None:  # noqa: N802
        grad_state = self.GetGradState(op, before)
        if grad_state is not None:
            grad_state.grad_context.Enter()

    def ExitGradWhileContext(self, op: ops_lib.Operation, before: bool) -> None:  # noqa: N802
        grad_state = self.GetGradState(op, before)
        if grad_state is not None:
            grad_state.grad_context.Exit()

    def AddWhileContext(self, op: ops_lib.Operation, between_op_list: list,  # noqa: N802
                        between_ops: set) -> None:
        forward_ctxt = control_flow_util.get_while_context(op)
        grad_state = self._map.get(forward_ctxt)
        if grad_state is None:
            outer_forward_ctxt = forward_ctxt.outer_context
            if outer_forward_ctxt is not None:
                outer_forward_ctxt = outer_forward_ctxt.GetWhileContext()
            outer_grad_state = None
            if outer_forward_ctxt is not None:
                outer_grad_state = self._map.get(outer_forward_ctxt)
            grad_state = GradLoopState(forward_ctxt, outer_grad_state)
            self._map[forward_ctxt] = grad_state
            for loop_exit in grad_state.forward_loop_exits:
                if loop_exit.op not in between_ops:
                    between_ops.add(loop_exit.op)
                    between_op_list.append(loop_exit.op)

    def ZerosLikeForExit(self, val: Any) -> Any:  # noqa: N802
        val_shape = val.shape
        forward_ctxt = val.op._control_flow_context
        outer_forward_ctxt = forward_ctxt.outer_context
        if outer_forward_ctxt is not None:
            outer_forward_ctxt = outer_forward_ctxt.GetWhileContext()
        outer_grad_state = None
        if outer_forward_ctxt is not None:
            outer_grad_state = self._map.get(outer_forward_ctxt)
        if outer_grad_state is not None:
            if val_shape.is_fully_defined():
                outer_grad_state.grad_context.Enter()
                result = array_ops.zeros(val_shape.as_list(), val.dtype)
                outer_grad_state.grad_context.Exit()
            else:
                forward_ctxt.outer_context.Enter()
                shape = array_ops._shape_internal(val, optimize=False)
                forward_ctxt.outer_context.Exit()
                history_shape = outer_grad_state.AddForwardAccumulator(shape)
                outer_grad_ctxt = outer_grad_state.grad_context
                outer_grad_ctxt.Enter()
                real_shape = outer_grad_state.AddBackpropAccumulatedValue(history_shape,
                                                                          shape)
                result = array_ops.zeros(real_shape, val.dtype)
                outer_grad_ctxt.Exit()
        else:
            if val_shape.is_fully_defined():
                result = array_ops.zeros(val_shape.as_list(), val.dtype)
            else:
                result = array_ops.zeros_like(val, optimize=False)
        return result

    def ZerosLike(self, op: ops_lib.Operation, index: int) -> Any:  # noqa: N802
        if control_flow_util.is_loop_switch(op):
            return None
        dead_branch = control_flow_util.is_switch(op)
        forward_ctxt = control_flow_util.get_while_context(op)
        grad_state = self._map.get(forward_ctxt)
        if grad_state is None:
            # Not in a loop being differentiated (a cond before the loop): a Switch's
            # zeros must still be dead on the branch not taken, as TF's.
            return ZerosLikeOutsideLoop(op, index)
        op_ctxt = op._control_flow_context
        val = op._outputs[index]
        shape = val.shape
        if shape.is_fully_defined():
            result = array_ops.constant(0, shape=shape.as_list(), dtype=val.dtype)
            if dead_branch:
                pred = grad_state.history_map.get(op_ctxt.pred.name)
                branch = op_ctxt.branch
                result = cf._switch_ref_or_tensor(result, pred)[1 - branch]
        else:
            if dead_branch:
                pred = op_ctxt.pred
                branch = op_ctxt.branch
                op_ctxt.outer_context.Enter()
                val = cf._switch_ref_or_tensor(op._inputs[0], pred)[1 - branch]
                zeros_shape = array_ops._shape_internal(val, optimize=False)
                op_ctxt.outer_context.Exit()
                val.op._control_flow_context = op_ctxt
                zeros_shape.op._control_flow_context = op_ctxt
            else:
                op_ctxt.Enter()
                zeros_shape = array_ops._shape_internal(val, optimize=False)
                op_ctxt.Exit()
            grad_state.grad_context.Exit()
            history_zeros_shape = grad_state.AddForwardAccumulator(zeros_shape,
                                                                   dead_branch=dead_branch)
            grad_state.grad_context.Enter()
            shape = grad_state.AddBackpropAccumulatedValue(history_zeros_shape, zeros_shape,
                                                           dead_branch)
            result = array_ops.zeros(shape, val.dtype)
        return result

    def PostProcessing(self) -> None:  # noqa: N802
        """A loop variable whose next value does not depend on its current one: zeros
        for its gradient in iterations after the first."""
        for grad_state in self._map.values():
            for b_merge in grad_state.switch_map.values():
                if b_merge.op._inputs[0] is b_merge.op._inputs[1]:
                    dtype = b_merge.op._inputs[0].dtype
                    shape = b_merge.op._inputs[0].shape
                    if shape.is_fully_defined():
                        grad_state.grad_context.Enter()
                        grad_val = array_ops.constant(0, dtype=dtype, shape=shape.as_list())
                        next_grad_val = while_loop._next_iteration(grad_val)
                        grad_state.grad_context.Exit()
                    else:
                        outer_grad_ctxt = grad_state.grad_context.outer_context
                        if outer_grad_ctxt is not None:
                            outer_grad_ctxt.Enter()
                        enter_grad = b_merge.op._inputs[0].op._inputs[0]
                        grad_shape = array_ops._shape_internal(enter_grad, optimize=False)
                        grad_val = array_ops.zeros(grad_shape, dtype)
                        if outer_grad_ctxt is not None:
                            outer_grad_ctxt.Exit()
                        grad_state.grad_context.Enter()
                        next_grad_val = while_loop._next_iteration(grad_val)
                        grad_state.grad_context.Exit()
                    cf._update_input(b_merge.op, 1, next_grad_val)


def ZerosLikeOutsideLoop(op: ops_lib.Operation, index: int) -> Any:  # noqa: N802
    """Zeros for output ``index`` of ``op`` (outside while loops). For a cond's Switch,
    zeros on the branch not taken, so the Switch's gradient Merge always has a value."""
    val = op._outputs[index]
    op_ctxt = op._control_flow_context
    if not control_flow_util.is_switch(op) or op_ctxt is None:
        return array_ops.zeros_like(val, optimize=False)
    switch_val = cf.switch(op._inputs[0], op_ctxt.pred)[1 - op_ctxt.branch]
    # An op on the branch taken: the zeros below run only there.
    pivot = array_ops.identity(switch_val)
    zeros_shape = array_ops._shape_internal(switch_val, optimize=False)
    with ops_lib.control_dependencies([pivot]):
        return array_ops.zeros(zeros_shape, dtype=val.dtype)


def MaybeCreateControlFlowState(between_op_list: list, between_ops: set,  # noqa: N802
                                colocate_gradients_with_ops: bool) -> Any:
    """A ControlFlowState when ops between xs and ys include a loop's Exit, else None."""
    loop_state = None
    for op in between_op_list:  # (grows as loops add their exits, as TF)
        if control_flow_util.is_loop_exit(op):
            if loop_state is None:
                loop_state = ControlFlowState()
            if colocate_gradients_with_ops:
                with ops_lib.colocate_with(op):
                    loop_state.AddWhileContext(op, between_op_list, between_ops)
            else:
                loop_state.AddWhileContext(op, between_op_list, between_ops)
    return loop_state
