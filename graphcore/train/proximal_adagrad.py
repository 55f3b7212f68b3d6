"""``tf.train.ProximalAdagradOptimizer``: Adagrad's learning rate with FOBOS's L1/L2
proximal step (ApplyProximalAdagrad; the Sparse op for IndexedSlices)."""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, sparse_training_ops
from graphcore.train import optimizer, training_ops

__all__ = ["ProximalAdagradOptimizer"]


class ProximalAdagradOptimizer(optimizer.Optimizer):
    """Proximal Adagrad; slot "accumulator" (``<var>/ProximalAdagrad``) starting at
    ``initial_accumulator_value``."""

    def __init__(self, learning_rate: Any, initial_accumulator_value: float = 0.1,
                 l1_regularization_strength: float = 0.0,
                 l2_regularization_strength: float = 0.0, use_locking: bool = False,
                 name: str = "ProximalAdagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError("initial_accumulator_value must be positive: "
                             f"{initial_accumulator_value}")
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength

    def _create_slots(self, var_list):
        for v in var_list:
            with ops_lib.colocate_with(v):
                val = array_ops.constant(self._initial_accumulator_value,
                                           shape=v.get_shape(), dtype=v.dtype.base_dtype)
            self._get_or_make_slot(v, val, "accumulator", self._name)

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(self._learning_rate,
                                                       name="learning_rate")
        self._l1_regularization_strength_tensor = convert_to_tensor(
            self._l1_regularization_strength, name="l1_regularization_strength")
        self._l2_regularization_strength_tensor = convert_to_tensor(
            self._l2_regularization_strength, name="l2_regularization_strength")

    def _apply_dense(self, grad, var):
        return training_ops.apply_proximal_adagrad(
            var, self.get_slot(var, "accumulator"), self._learning_rate_tensor,
            self._l1_regularization_strength_tensor, self._l2_regularization_strength_tensor,
            grad, use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        return sparse_training_ops.sparse_apply_proximal_adagrad(
            var, self.get_slot(var, "accumulator"), self._learning_rate_tensor,
            self._l1_regularization_strength_tensor, self._l2_regularization_strength_tensor,
            grad.values, grad.indices, use_locking=self._use_locking)

    def _resource_apply_sparse(self, grad, var, indices):
        cast = optimizer.cast
        return sparse_training_ops.sparse_apply_proximal_adagrad(
            var, self.get_slot(var, "accumulator"), cast(self._learning_rate_tensor, grad.dtype),
            cast(self._l1_regularization_strength_tensor, grad.dtype),
            cast(self._l2_regularization_strength_tensor, grad.dtype), grad, indices,
            use_locking=self._use_locking)
