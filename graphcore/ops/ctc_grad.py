"""The gradient of CTCLoss (TF's ``ctc_ops._CTCLossGrad``): the op's own gradient output,
scaled by the loss gradient; the decoders are not differentiable."""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import NotDifferentiable, RegisterGradient
from graphcore.ops import array_ops, ctc_ops  # noqa: F401 - registers the ops


@RegisterGradient("CTCLoss")
def _ctc_loss_grad(op: ops_lib.Operation, grad_loss: Any, _: Any) -> list:
    grad_without_gradient = array_ops.prevent_gradient(
        op.outputs[1], message="Currently there is no way to take the second  derivative "
                               "of ctc_loss due to the fused implementation's interaction "
                               " with tf.gradients()")
    return [array_ops.expand_dims(grad_loss, -1) * grad_without_gradient, None, None, None]


NotDifferentiable("CTCGreedyDecoder")
NotDifferentiable("CTCBeamSearchDecoder")
