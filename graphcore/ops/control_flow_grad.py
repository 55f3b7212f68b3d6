"""Gradients of the control flow primitives (TF1's control_flow_grad).

In a cond, Switch routes gradients back through a Merge and Merge routes its gradient
into the branch that was taken.  In a while loop the gradient is a second loop: Exit's
gradient enters it, the loop Switch's gradient is its Merge (back edge added when the
body's gradient arrives), the loop Merge's gradient is a Switch on the gradient loop's
predicate, NextIteration passes gradients on, and Enter's gradient exits the gradient
loop (or, for a loop invariant, accumulates over its iterations).
"""

from __future__ import annotations

from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import NotDifferentiable, RegisterGradient
from graphcore.ops import control_flow_ops as cf
from graphcore.ops import control_flow_util, while_loop

for _op in ("LoopCond", "ControlTrigger", "Assert", "StackV2", "StackPushV2", "StackPopV2",
            "StackCloseV2"):
    NotDifferentiable(_op)


@RegisterGradient("Switch")
def _switch_grad(op, *grad):
    graph = ops_lib.get_default_graph()
    op_ctxt = op._control_flow_context
    grad_ctxt = graph._get_control_flow_context()
    if isinstance(op_ctxt, while_loop.WhileContext):
        merge_grad = grad_ctxt.grad_state.switch_map.get(op)
        if merge_grad is not None:
            # Second visit, from the body (Identity) side: the back edge of the Merge.
            if grad[1] is not None:
                while_loop._add_next_and_back_edge(merge_grad, grad[1],
                                           enforce_shape_invariant=False)
            return None, None
        if grad[0] is not None:
            # First visit, from the Exit side: a Merge whose second input is set when
            # the body's gradient comes back.
            merge_grad = cf.merge([grad[0], grad[0]], name="b_switch")[0]
            grad_ctxt.grad_state.switch_map[op] = merge_grad
            return merge_grad, None
        return None, None
    if isinstance(op_ctxt, cf.CondContext):
        # The untaken branch's gradient is zeros behind a Switch (ZerosLikeOutsideLoop),
        # so the Merge has a value whichever branch ran.
        if grad[1 - op_ctxt.branch] is None:
            return None, None
        return cf.merge(list(grad), name="cond_grad")[0], None
    false_grad = cf.switch(grad[0], op._inputs[1])[0]
    true_grad = cf.switch(grad[1], op._inputs[1])[1]
    return cf.merge([false_grad, true_grad])[0], None


@RegisterGradient("RefSwitch")
def _ref_switch_grad(op, *grads):
    return _switch_grad(op, *grads)


@RegisterGradient("Merge")
def _merge_grad(op, grad, _):
    input_op = op._inputs[0].op
    graph = ops_lib.get_default_graph()
    op_ctxt = control_flow_util.get_output_context(input_op)
    grad_ctxt = graph._get_control_flow_context()
    if isinstance(op_ctxt, while_loop.WhileContext):
        return cf._switch_ref_or_tensor(grad, grad_ctxt.pivot)
    if isinstance(op_ctxt, cf.CondContext):
        pred = op_ctxt.pred
        if grad_ctxt is not None and grad_ctxt.grad_state is not None:
            # A cond inside a loop: the predicate of each iteration, from a stack.
            grad_state = grad_ctxt.grad_state
            real_pred = grad_state.history_map.get(pred.name)
            if real_pred is None:
                grad_ctxt = grad_state.grad_context
                grad_ctxt.Exit()
                history_pred = grad_state.AddForwardAccumulator(pred)
                grad_ctxt.Enter()
                real_pred = grad_state.AddBackpropAccumulatedValue(history_pred, pred)
                grad_state.history_map[pred.name] = real_pred
            pred = real_pred
        false_grad, true_grad = cf._switch_ref_or_tensor(grad, pred, name="cond_grad")
        return [false_grad, true_grad] + [None] * (len(op._inputs) - 2)
    raise LookupError(f"Gradient of Merge '{op.name}' outside a cond or while loop is not "
                      "supported")


@RegisterGradient("RefMerge")
def _ref_merge_grad(op, grad, _):
    return _merge_grad(op, grad, _)


@RegisterGradient("Exit")
def _exit_grad(op, grad):
    graph = ops_lib.get_default_graph()
    op_ctxt = op._control_flow_context
    grad_ctxt = graph._get_control_flow_context()
    if not grad_ctxt.back_prop:
        return None
    if op_ctxt.grad_state is not None:
        raise TypeError("Second-order gradient for while loops not supported.")
    grad_ctxt.AddName(grad.name)
    grad_ctxt.Enter()
    result = while_loop._enter(grad, grad_ctxt.name, is_constant=False,
                       parallel_iterations=grad_ctxt.parallel_iterations, name="b_exit")
    grad_ctxt.loop_enters.append(result)
    grad_ctxt.Exit()
    return result


RegisterGradient("RefExit")(_exit_grad)


@RegisterGradient("NextIteration")
def _next_iteration_grad(_, grad):
    return grad


RegisterGradient("RefNextIteration")(_next_iteration_grad)


@RegisterGradient("Enter")
def _enter_grad(op, grad):
    graph = ops_lib.get_default_graph()
    grad_ctxt = graph._get_control_flow_context()
    if grad_ctxt is None or not grad_ctxt.back_prop or grad_ctxt.grad_state is None:
        return grad
    if op.get_attr("is_constant"):
        # A loop invariant: its gradient sums over the iterations.
        result = grad_ctxt.AddBackpropAccumulator(op, grad)
    else:
        result = while_loop.exit(grad)
        grad_ctxt.loop_exits.append(result)
        grad_ctxt.ExitResult([result])
    return result


@RegisterGradient("RefEnter")
def _ref_enter_grad(op, grad):
    return _enter_grad(op, grad)
