"""``tf.train.GradientDescentOptimizer``: var -= learning_rate * grad (ApplyGradientDescent;
ScatterSub / ResourceScatterAdd of the rows for IndexedSlices gradients)."""

from __future__ import annotations

from typing import Any

from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import scatter_ops
from graphcore.train import optimizer, training_ops

__all__ = ["GradientDescentOptimizer"]


class GradientDescentOptimizer(optimizer.Optimizer):
    """Plain gradient descent; ``learning_rate`` is a float, a Tensor or a callable."""

    def __init__(self, learning_rate: Any, use_locking: bool = False,
                 name: str = "GradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._learning_rate_tensor = None

    def _apply_dense(self, grad, var):
        return training_ops.apply_gradient_descent(
            var, optimizer.cast(self._learning_rate_tensor, var.dtype.base_dtype), grad,
            use_locking=self._use_locking)

    def _resource_apply_sparse_duplicate_indices(self, grad, handle, indices):
        # Scatters add duplicates themselves, so TF skips the deduplication.
        return scatter_ops.resource_scatter_add(
            handle.handle, indices, -grad * optimizer.cast(self._learning_rate_tensor,
                                                           grad.dtype.base_dtype))

    def _apply_sparse_duplicate_indices(self, grad, var):
        values = grad.values * optimizer.cast(self._learning_rate_tensor, var.dtype.base_dtype)
        return scatter_ops.scatter_sub(var, grad.indices, values, use_locking=self._use_locking)

    def _prepare(self):
        learning_rate = self._call_if_callable(self._learning_rate)
        self._learning_rate_tensor = convert_to_tensor(learning_rate, name="learning_rate")
