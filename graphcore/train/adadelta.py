"""``tf.train.AdadeltaOptimizer`` (Zeiler, 2012): ApplyAdadelta; SparseApplyAdadelta for
IndexedSlices."""

from __future__ import annotations

from typing import Any

from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import sparse_training_ops
from graphcore.train import optimizer, training_ops

__all__ = ["AdadeltaOptimizer"]


class AdadeltaOptimizer(optimizer.Optimizer):
    """Adadelta; zero slots "accum" (``<var>/Adadelta``) and "accum_update"
    (``<var>/Adadelta_1``)."""

    def __init__(self, learning_rate: Any = 0.001, rho: Any = 0.95, epsilon: Any = 1e-8,
                 use_locking: bool = False, name: str = "Adadelta"):
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._rho = rho
        self._epsilon = epsilon

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "accum", self._name)
            self._zeros_slot(v, "accum_update", self._name)

    def _prepare(self):
        self._lr_t = convert_to_tensor(self._call_if_callable(self._lr), name="lr")
        self._rho_t = convert_to_tensor(self._call_if_callable(self._rho), name="rho")
        self._epsilon_t = convert_to_tensor(self._call_if_callable(self._epsilon),
                                            name="epsilon")

    def _hyper(self, dtype) -> dict:
        return dict(lr=optimizer.cast(self._lr_t, dtype), rho=optimizer.cast(self._rho_t, dtype),
                    epsilon=optimizer.cast(self._epsilon_t, dtype))

    def _apply_dense(self, grad, var):
        return training_ops.apply_adadelta(
            var, self.get_slot(var, "accum"), self.get_slot(var, "accum_update"),
            grad=grad, use_locking=self._use_locking, **self._hyper(var.dtype.base_dtype))

    def _apply_sparse(self, grad, var):
        return sparse_training_ops.sparse_apply_adadelta(
            var, self.get_slot(var, "accum"), self.get_slot(var, "accum_update"),
            grad=grad.values, indices=grad.indices, use_locking=self._use_locking,
            **self._hyper(var.dtype.base_dtype))

    def _resource_apply_sparse(self, grad, var, indices):
        return sparse_training_ops.sparse_apply_adadelta(
            var, self.get_slot(var, "accum"), self.get_slot(var, "accum_update"), grad=grad,
            indices=indices, use_locking=self._use_locking, **self._hyper(grad.dtype))
