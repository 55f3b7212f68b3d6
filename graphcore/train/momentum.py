"""``tf.train.MomentumOptimizer``: accum = momentum * accum + grad; var -= lr * accum
(ApplyMomentum, SparseApplyMomentum for IndexedSlices; Nesterov's variant with
``use_nesterov``)."""

from __future__ import annotations

from typing import Any

from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import sparse_training_ops
from graphcore.train import optimizer, training_ops

__all__ = ["MomentumOptimizer"]


class MomentumOptimizer(optimizer.Optimizer):
    """Momentum; one slot "momentum" per variable (``<var>/Momentum``), zeros."""

    def __init__(self, learning_rate: Any, momentum: Any, use_locking: bool = False,
                 name: str = "Momentum", use_nesterov: bool = False):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = use_nesterov

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        learning_rate = self._call_if_callable(self._learning_rate)
        self._learning_rate_tensor = convert_to_tensor(learning_rate, name="learning_rate")
        momentum = self._call_if_callable(self._momentum)
        self._momentum_tensor = convert_to_tensor(momentum, name="momentum")

    def _apply_dense(self, grad, var):
        mom = self.get_slot(var, "momentum")
        return training_ops.apply_momentum(
            var, mom, optimizer.cast(self._learning_rate_tensor, var.dtype.base_dtype), grad,
            optimizer.cast(self._momentum_tensor, var.dtype.base_dtype),
            use_locking=self._use_locking, use_nesterov=self._use_nesterov)

    def _apply_sparse(self, grad, var):
        mom = self.get_slot(var, "momentum")
        dtype = var.dtype.base_dtype
        return sparse_training_ops.sparse_apply_momentum(
            var, mom, optimizer.cast(self._learning_rate_tensor, dtype), grad.values,
            grad.indices, optimizer.cast(self._momentum_tensor, dtype),
            use_locking=self._use_locking, use_nesterov=self._use_nesterov).op

    def _resource_apply_sparse(self, grad, var, indices):
        mom = self.get_slot(var, "momentum")
        return sparse_training_ops.sparse_apply_momentum(
            var, mom, optimizer.cast(self._learning_rate_tensor, grad.dtype), grad, indices,
            optimizer.cast(self._momentum_tensor, grad.dtype),
            use_locking=self._use_locking, use_nesterov=self._use_nesterov)
