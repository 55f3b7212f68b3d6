"""``tf.train.AdagradOptimizer``: accum += grad ** 2; var -= lr * grad / sqrt(accum)
(ApplyAdagrad; SparseApplyAdagrad for IndexedSlices)."""

from __future__ import annotations

from typing import Any

from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import sparse_training_ops
from graphcore.train import optimizer, training_ops

__all__ = ["AdagradOptimizer"]


class AdagradOptimizer(optimizer.Optimizer):
    """Adagrad; one slot "accumulator" per variable (``<var>/Adagrad``) starting at
    ``initial_accumulator_value``."""

    def __init__(self, learning_rate: Any, initial_accumulator_value: float = 0.1,
                 use_locking: bool = False, name: str = "Adagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError("initial_accumulator_value must be positive: "
                             f"{initial_accumulator_value}")
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value
        self._learning_rate_tensor = None

    def _create_slots(self, var_list):
        from graphcore.ops import init_ops

        for v in var_list:
            dtype = v.dtype.base_dtype
            if v.get_shape().is_fully_defined():
                init = init_ops.constant_initializer(self._initial_accumulator_value,
                                                     dtype=dtype)
            else:
                init = self._init_constant_op(v, dtype)
            self._get_or_make_slot_with_initializer(v, init, v.get_shape(), dtype,
                                                    "accumulator", self._name)

    def _init_constant_op(self, v, dtype):
        def init():
            from graphcore.ops import array_ops

            init_constant = array_ops.fill(array_ops.shape(v), self._initial_accumulator_value)
            return optimizer.cast(init_constant, dtype)

        return init

    def _prepare(self):
        learning_rate = self._call_if_callable(self._learning_rate)
        self._learning_rate_tensor = convert_to_tensor(learning_rate, name="learning_rate")

    def _apply_dense(self, grad, var):
        acc = self.get_slot(var, "accumulator")
        return training_ops.apply_adagrad(
            var, acc, optimizer.cast(self._learning_rate_tensor, var.dtype.base_dtype), grad,
            use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        acc = self.get_slot(var, "accumulator")
        return sparse_training_ops.sparse_apply_adagrad(
            var, acc, optimizer.cast(self._learning_rate_tensor, var.dtype.base_dtype),
            grad.values, grad.indices, use_locking=self._use_locking)

    def _resource_apply_sparse(self, grad, var, indices):
        acc = self.get_slot(var, "accumulator")
        return sparse_training_ops.sparse_apply_adagrad(
            var, acc, optimizer.cast(self._learning_rate_tensor, grad.dtype), grad, indices,
            use_locking=self._use_locking)
