"""``slim.learning`` (TF 1.15), the part that builds the training op: ``create_train_op``
with gradient clipping and multipliers, and the gradient helpers it uses. (slim's
Supervisor-driven ``train`` loop is not here.)"""

from __future__ import annotations

from typing import Any

# ruff: noqa: F401
from graphcore.contrib import training
from graphcore.contrib.training import (
    add_gradients_summaries,
    clip_gradient_norms,
    multiply_gradients,
)
from graphcore.train.optimizer import Optimizer

__all__ = ["add_gradients_summaries", "clip_gradient_norms", "create_train_op",
           "multiply_gradients"]


def create_train_op(total_loss: Any, optimizer: Any, global_step: Any = training._USE_GLOBAL_STEP,
                    update_ops: Any = None, variables_to_train: Any = None,
                    clip_gradient_norm: float = 0, summarize_gradients: bool = False,
                    gate_gradients: int = Optimizer.GATE_OP, aggregation_method: Any = None,
                    colocate_gradients_with_ops: bool = False,
                    gradient_multipliers: dict | None = None,
                    check_numerics: bool = True) -> Any:
    """``tf.contrib.training.create_train_op`` whose gradients are first multiplied by
    ``gradient_multipliers`` and then clipped to ``clip_gradient_norm`` (when > 0)."""
    def transform_grads_fn(grads: list) -> list:
        if gradient_multipliers:
            grads = multiply_gradients(grads, gradient_multipliers)
        if clip_gradient_norm > 0:
            grads = clip_gradient_norms(grads, clip_gradient_norm)
        return grads

    return training.create_train_op(
        total_loss=total_loss, optimizer=optimizer, global_step=global_step,
        update_ops=update_ops, variables_to_train=variables_to_train,
        transform_grads_fn=transform_grads_fn, summarize_gradients=summarize_gradients,
        gate_gradients=gate_gradients, aggregation_method=aggregation_method,
        colocate_gradients_with_ops=colocate_gradients_with_ops,
        check_numerics=check_numerics)
