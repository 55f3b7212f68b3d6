"""Gradients of the cond primitives: Switch routes gradients back through a Merge,
Merge routes its gradient into the branch that was taken (a Switch on the predicate)."""

from __future__ import annotations

from graphcore.framework.gradient_registry import RegisterGradient
from graphcore.ops import control_flow_ops


def _cond_context(op):
    return op._control_flow_context if isinstance(
        op._control_flow_context, control_flow_ops.CondContext) else None


@RegisterGradient("Switch")
def _switch_grad(op, *grads):
    # The untaken output's gradient is dead (zeros on a dead Switch output), so the
    # Merge yields the live branch's gradient.
    live = [g for g in grads if g is not None]
    if not live:
        return None, None
    if len(live) == 1:
        return live[0], None
    return control_flow_ops.merge(list(grads), name="cond_grad")[0], None


@RegisterGradient("RefSwitch")
def _ref_switch_grad(op, *grads):
    return _switch_grad(op, *grads)


@RegisterGradient("Merge")
def _merge_grad(op, grad, _):
    ctx = None
    for t in op.inputs:
        ctx = _cond_context(t.op)
        if ctx is not None:
            break
    if ctx is None:
        raise LookupError(f"Gradient of Merge '{op.name}' outside a cond is not supported")
    false_grad, true_grad = control_flow_ops.switch(grad, ctx.pred, name="cond_grad")
    return [false_grad, true_grad] + [None] * (len(op.inputs) - 2)
