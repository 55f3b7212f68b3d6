"""``tf.train.AdagradDAOptimizer``: Adagrad dual averaging (ApplyAdagradDA;
SparseApplyAdagradDA for IndexedSlices), which reads the global step."""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, sparse_training_ops
from graphcore.train import optimizer, training_ops

__all__ = ["AdagradDAOptimizer"]


class AdagradDAOptimizer(optimizer.Optimizer):
    """Adagrad-DA; slots "gradient_accumulator" (``<var>/AdagradDA``, zeros) and
    "gradient_squared_accumulator" (``<var>/AdagradDA_1``, starting at
    ``initial_gradient_squared_accumulator_value``). The ops see ``global_step + 1``."""

    def __init__(self, learning_rate: Any, global_step: Any,
                 initial_gradient_squared_accumulator_value: float = 0.1,
                 l1_regularization_strength: float = 0.0,
                 l2_regularization_strength: float = 0.0, use_locking: bool = False,
                 name: str = "AdagradDA"):
        if initial_gradient_squared_accumulator_value <= 0.0:
            raise ValueError("initial_gradient_squared_accumulator_value must be positive: "
                             f"{initial_gradient_squared_accumulator_value}")
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_gradient_squared_accumulator_value = \
            initial_gradient_squared_accumulator_value
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength
        self._global_step = global_step
        self._global_step_on_worker = None

    def _create_slots(self, var_list):
        for v in var_list:
            with ops_lib.colocate_with(v):
                g_val = array_ops.constant(0.0, shape=v.get_shape(), dtype=v.dtype.base_dtype)
                gg_val = array_ops.constant(self._initial_gradient_squared_accumulator_value,
                                              shape=v.get_shape(), dtype=v.dtype.base_dtype)
            self._get_or_make_slot(v, g_val, "gradient_accumulator", self._name)
            self._get_or_make_slot(v, gg_val, "gradient_squared_accumulator", self._name)

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(self._learning_rate,
                                                       name="learning_rate")
        with ops_lib.colocate_with(self._learning_rate_tensor):
            self._global_step_on_worker = array_ops.identity(self._global_step) + 1

    def _args(self, var, dtype) -> tuple:
        with ops_lib.device(var.device):
            global_step = array_ops.identity(self._global_step_on_worker)
        cast = optimizer.cast
        return (self.get_slot(var, "gradient_accumulator"),
                self.get_slot(var, "gradient_squared_accumulator"),
                dict(lr=cast(self._learning_rate_tensor, dtype),
                     l1=cast(self._l1_regularization_strength, dtype),
                     l2=cast(self._l2_regularization_strength, dtype),
                     global_step=global_step, use_locking=self._use_locking))

    def _apply_dense(self, grad, var):
        g_acc, gg_acc, kwargs = self._args(var, var.dtype.base_dtype)
        return training_ops.apply_adagrad_da(var, g_acc, gg_acc, grad, **kwargs)

    def _apply_sparse(self, grad, var):
        g_acc, gg_acc, kwargs = self._args(var, var.dtype.base_dtype)
        return sparse_training_ops.sparse_apply_adagrad_da(var, g_acc, gg_acc, grad.values,
                                                           grad.indices, **kwargs)

    def _resource_apply_sparse(self, grad, var, indices):
        g_acc, gg_acc, kwargs = self._args(var, grad.dtype)
        return sparse_training_ops.sparse_apply_adagrad_da(var, g_acc, gg_acc, grad, indices,
                                                           **kwargs)
