"""``tf.train.ProximalGradientDescentOptimizer``: gradient descent followed by FOBOS's
L1/L2 proximal step (ApplyProximalGradientDescent; the Sparse op for IndexedSlices)."""

from __future__ import annotations

from typing import Any

from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import sparse_training_ops
from graphcore.train import optimizer, training_ops

__all__ = ["ProximalGradientDescentOptimizer"]


class ProximalGradientDescentOptimizer(optimizer.Optimizer):
    """Proximal gradient descent; no slots."""

    def __init__(self, learning_rate: Any, l1_regularization_strength: float = 0.0,
                 l2_regularization_strength: float = 0.0, use_locking: bool = False,
                 name: str = "ProximalGradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(self._learning_rate,
                                                       name="learning_rate")
        self._l1_regularization_strength_tensor = convert_to_tensor(
            self._l1_regularization_strength, name="l1_regularization_strength")
        self._l2_regularization_strength_tensor = convert_to_tensor(
            self._l2_regularization_strength, name="l2_regularization_strength")

    def _apply_dense(self, grad, var):
        update = training_ops.apply_proximal_gradient_descent(
            var, self._learning_rate_tensor, self._l1_regularization_strength_tensor,
            self._l2_regularization_strength_tensor, grad, use_locking=self._use_locking)
        return getattr(update, "op", update)

    def _apply_sparse(self, grad, var):
        return sparse_training_ops.sparse_apply_proximal_gradient_descent(
            var, self._learning_rate_tensor, self._l1_regularization_strength_tensor,
            self._l2_regularization_strength_tensor, grad.values, grad.indices,
            use_locking=self._use_locking).op

    def _resource_apply_sparse(self, grad, var, indices):
        cast = optimizer.cast
        return sparse_training_ops.sparse_apply_proximal_gradient_descent(
            var, cast(self._learning_rate_tensor, grad.dtype),
            cast(self._l1_regularization_strength_tensor, grad.dtype),
            cast(self._l2_regularization_strength_tensor, grad.dtype), grad, indices,
            use_locking=self._use_locking)
