"""``tf.train.ProximalAdagradOptimizer``: Adagrad's learning rate with FOBOS's L1/L2
proximal step (ApplyProximalAdagrad; the Sparse op for IndexedSlices)."""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.ops import array_ops, sparse_training_ops
from graphcore.train import training_ops
from graphcore.train.proximal_gradient_descent import ProximalOptimizer

__all__ = ["ProximalAdagradOptimizer"]


class ProximalAdagradOptimizer(ProximalOptimizer):
    """Proximal Adagrad; slot "accumulator" (``<var>/ProximalAdagrad``) starting at
    ``initial_accumulator_value``."""

    def __init__(self, learning_rate: Any, initial_accumulator_value: float = 0.1,
                 l1_regularization_strength: float = 0.0,
                 l2_regularization_strength: float = 0.0, use_locking: bool = False,
                 name: str = "ProximalAdagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError("initial_accumulator_value must be positive: "
                             f"{initial_accumulator_value}")
        super().__init__(learning_rate, l1_regularization_strength,
                         l2_regularization_strength, use_locking, name)
        self._initial_accumulator_value = initial_accumulator_value

    def _create_slots(self, var_list):
        for v in var_list:
            with ops_lib.colocate_with(v):
                val = array_ops.constant(self._initial_accumulator_value,
                                           shape=v.get_shape(), dtype=v.dtype.base_dtype)
            self._get_or_make_slot(v, val, "accumulator", self._name)

    def _apply_dense(self, grad, var):
        return training_ops.apply_proximal_adagrad(
            var, self.get_slot(var, "accumulator"), *self._proximal_tensors(), grad,
            use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        return sparse_training_ops.sparse_apply_proximal_adagrad(
            var, self.get_slot(var, "accumulator"), *self._proximal_tensors(), grad.values,
            grad.indices, use_locking=self._use_locking)

    def _resource_apply_sparse(self, grad, var, indices):
        return sparse_training_ops.sparse_apply_proximal_adagrad(
            var, self.get_slot(var, "accumulator"), *self._proximal_tensors(grad.dtype), grad,
            indices, use_locking=self._use_locking)
