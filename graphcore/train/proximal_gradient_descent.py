"""``tf.train.ProximalGradientDescentOptimizer``: gradient descent followed by FOBOS's
L1/L2 proximal step (ApplyProximalGradientDescent; the Sparse op for IndexedSlices)."""

from __future__ import annotations

from typing import Any

from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import sparse_training_ops
from graphcore.train import optimizer, training_ops

__all__ = ["ProximalGradientDescentOptimizer"]


class ProximalOptimizer(optimizer.Optimizer):
    """The proximal optimizers' learning rate and FOBOS L1/L2 strengths, made tensors in
    ``_prepare`` (TF's ProximalGradientDescent and ProximalAdagrad)."""

    def __init__(self, learning_rate: Any, l1_regularization_strength: float,
                 l2_regularization_strength: float, use_locking: bool, name: str):
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

    def _proximal_tensors(self, dtype: Any = None) -> list:
        """[learning rate, l1, l2], each cast to ``dtype`` when given."""
        tensors = [self._learning_rate_tensor, self._l1_regularization_strength_tensor,
                   self._l2_regularization_strength_tensor]
        return tensors if dtype is None else [optimizer.cast(t, dtype) for t in tensors]


class ProximalGradientDescentOptimizer(ProximalOptimizer):
    """Proximal gradient descent; no slots."""

    def __init__(self, learning_rate: Any, l1_regularization_strength: float = 0.0,
                 l2_regularization_strength: float = 0.0, use_locking: bool = False,
                 name: str = "ProximalGradientDescent"):
        super().__init__(learning_rate, l1_regularization_strength,
                         l2_regularization_strength, use_locking, name)

    def _apply_dense(self, grad, var):
        update = training_ops.apply_proximal_gradient_descent(
            var, *self._proximal_tensors(), grad, use_locking=self._use_locking)
        return getattr(update, "op", update)

    def _apply_sparse(self, grad, var):
        return sparse_training_ops.sparse_apply_proximal_gradient_descent(
            var, *self._proximal_tensors(), grad.values, grad.indices,
            use_locking=self._use_locking).op

    def _resource_apply_sparse(self, grad, var, indices):
        return sparse_training_ops.sparse_apply_proximal_gradient_descent(
            var, *self._proximal_tensors(grad.dtype), grad, indices,
            use_locking=self._use_locking)
