"""``tf.train.experimental.MixedPrecisionLossScaleOptimizer`` (TF's
``loss_scale_optimizer.py``): wraps an optimizer so that ``compute_gradients``
differentiates the loss times the loss scale and divides the gradients back, and
``apply_gradients`` (with a dynamic scale) applies them only when all are finite,
grouped with the scale's update."""

from __future__ import annotations

import logging
from typing import Any

from graphcore.framework.indexed_slices import IndexedSlices
from graphcore.ops import control_flow_ops, math_ops
from graphcore.train import loss_scale as loss_scale_module
from graphcore.train import optimizer

__all__ = ["MixedPrecisionLossScaleOptimizer", "disable_mixed_precision_graph_rewrite",
           "enable_mixed_precision_graph_rewrite"]

_log = logging.getLogger("tensorflow")  # tf.logging's logger, as TF logs


class MixedPrecisionLossScaleOptimizer(optimizer.Optimizer):
    """``opt`` with loss scaling (``loss_scale``: a number, "dynamic" or a LossScale)."""

    def __init__(self, opt: optimizer.Optimizer, loss_scale: Any):
        if not isinstance(opt, optimizer.Optimizer):
            raise ValueError('"opt" must be an instance of Optimizer, but got: '
                             f"{type(opt)}")
        self._optimizer = opt
        super().__init__(opt._use_locking, opt.get_name())
        self._loss_scale = loss_scale_module.get(loss_scale)
        if self._loss_scale is None:
            raise ValueError("loss_scale cannot be None")

    def _trackable_children(self) -> dict[str, Any]:
        """Checkpoint dependencies: the wrapped optimizer and the loss scale, as TF's."""
        return {"base_optimizer": self._optimizer, "loss_scale": self._loss_scale}

    def _doing_dynamic_loss_scaling(self) -> bool:
        return isinstance(self._loss_scale, loss_scale_module.DynamicLossScale)

    def compute_gradients(self, loss: Any, var_list: Any = None,
                          gate_gradients: int = optimizer.Optimizer.GATE_OP,
                          aggregation_method: Any = None,
                          colocate_gradients_with_ops: bool = False,
                          grad_loss: Any = None) -> list:
        loss = self._scale_loss(loss)
        grads_and_vars = self._optimizer.compute_gradients(
            loss=loss, var_list=var_list, gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)
        grads = [g for g, _ in grads_and_vars]
        variables = [v for _, v in grads_and_vars]
        return list(zip(self._unscale_grads(grads), variables))

    def _scale_loss(self, loss: Any) -> Any:
        loss_scale = self._loss_scale()
        if callable(loss):
            def new_loss():
                loss_val = loss()
                return loss_val * math_ops.cast(loss_scale, loss_val.dtype)
            return new_loss
        return loss * math_ops.cast(loss_scale, loss.dtype)

    def _unscale_grads(self, grads: list) -> list:
        loss_scale_reciprocal = 1 / self._loss_scale()
        return [None if g is None else self._scale_grad(g, loss_scale_reciprocal)
                for g in grads]

    @staticmethod
    def _scale_grad(grad: Any, loss_scale_reciprocal: Any) -> Any:
        if isinstance(grad, IndexedSlices):
            return IndexedSlices(grad.values * loss_scale_reciprocal, grad.indices,
                                 grad.dense_shape)
        return grad * loss_scale_reciprocal

    def apply_gradients(self, grads_and_vars: Any, global_step: Any = None,
                        name: str | None = None) -> Any:
        if not self._doing_dynamic_loss_scaling():
            return self._optimizer.apply_gradients(grads_and_vars, global_step, name)
        grads_and_vars = tuple(grads_and_vars)
        name = name if name is not None else self.get_name()
        grads = [g for g, _ in grads_and_vars]
        loss_scale_update_op, should_apply_grads = self._loss_scale.update(grads)

        def apply_fn():
            return self._optimizer.apply_gradients(grads_and_vars, global_step,
                                                   name + "-wrapped")

        maybe_apply_op = control_flow_ops.cond(should_apply_grads, apply_fn,
                                               control_flow_ops.no_op)
        return control_flow_ops.group(maybe_apply_op, loss_scale_update_op, name=name)

    def _apply_sparse(self, grad, var):
        raise RuntimeError("This function should never be called")

    def _apply_dense(self, grad, var):
        raise RuntimeError("This function should never be called")

    def _resource_apply_sparse(self, grad, handle, indices):
        raise RuntimeError("This function should never be called")

    def variables(self) -> list:
        return self._optimizer.variables() + list(self._loss_scale._weights.values())


_graph_rewrite_enabled = False


def enable_mixed_precision_graph_rewrite(opt: optimizer.Optimizer,
                                         loss_scale: Any = "dynamic"
                                         ) -> MixedPrecisionLossScaleOptimizer:
    """``opt`` wrapped in a MixedPrecisionLossScaleOptimizer, with TF's automatic mixed
    precision switched on for later sessions. That grappler pass casts ops to float16 on
    GPUs only (TF skips it when no GPU is present); graphcore's kernels run on the CPU,
    so, as TF on a CPU, the graph keeps its dtypes and the loss scaling is the effect."""
    global _graph_rewrite_enabled
    if isinstance(opt, MixedPrecisionLossScaleOptimizer):
        raise ValueError('"opt" must not already be an instance of a '
                         "MixedPrecisionLossScaleOptimizer. "
                         "`enable_mixed_precision_graph_rewrite` will automatically wrap "
                         "the optimizer with a MixedPrecisionLossScaleOptimizer.")
    if not isinstance(opt, optimizer.Optimizer):
        raise ValueError('"opt" must be an instance of a tf.train.Optimizer or a '
                         f"tf.keras.optimizers.Optimizer, but got: {opt}")
    opt = MixedPrecisionLossScaleOptimizer(opt, loss_scale)
    _graph_rewrite_enabled = True
    return opt


def disable_mixed_precision_graph_rewrite() -> None:
    """Switches automatic mixed precision off for later sessions."""
    global _graph_rewrite_enabled
    if not _graph_rewrite_enabled:
        _log.warning("disable_mixed_precision_graph_rewrite() called when mixed precision is "
                     "already disabled.")
    _graph_rewrite_enabled = False
