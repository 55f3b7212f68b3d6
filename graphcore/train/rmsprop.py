"""``tf.train.RMSPropOptimizer``: ms = decay * ms + (1 - decay) * grad ** 2;
mom = momentum * mom + lr * grad / sqrt(ms + epsilon); var -= mom (ApplyRMSProp, or
ApplyCenteredRMSProp with ``centered=True``; their SparseApply* for IndexedSlices)."""

from __future__ import annotations

from typing import Any

from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import sparse_training_ops
from graphcore.train import optimizer, training_ops

__all__ = ["RMSPropOptimizer"]


class RMSPropOptimizer(optimizer.Optimizer):
    """RMSProp; slots "rms" (ones), "mg" (zeros, centered only) and "momentum" (zeros),
    named ``<var>/RMSProp``, ``<var>/RMSProp_1``... in that order."""

    def __init__(self, learning_rate: Any, decay: Any = 0.9, momentum: Any = 0.0,
                 epsilon: Any = 1e-10, use_locking: bool = False, centered: bool = False,
                 name: str = "RMSProp"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._decay = decay
        self._momentum = momentum
        self._epsilon = epsilon
        self._centered = centered
        self._learning_rate_tensor = None
        self._decay_tensor = None
        self._momentum_tensor = None
        self._epsilon_tensor = None

    def _create_slots(self, var_list):
        from graphcore.ops import array_ops, init_ops

        for v in var_list:
            if v.get_shape().is_fully_defined():
                init_rms = init_ops.ones_initializer(dtype=v.dtype.base_dtype)
            else:
                init_rms = array_ops.ones_like(v)
            self._get_or_make_slot_with_initializer(v, init_rms, v.get_shape(),
                                                    v.dtype.base_dtype, "rms", self._name)
            if self._centered:
                self._zeros_slot(v, "mg", self._name)
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        lr = self._call_if_callable(self._learning_rate)
        decay = self._call_if_callable(self._decay)
        momentum = self._call_if_callable(self._momentum)
        epsilon = self._call_if_callable(self._epsilon)
        self._learning_rate_tensor = convert_to_tensor(lr, name="learning_rate")
        self._decay_tensor = convert_to_tensor(decay, name="decay")
        self._momentum_tensor = convert_to_tensor(momentum, name="momentum")
        self._epsilon_tensor = convert_to_tensor(epsilon, name="epsilon")

    def _apply_dense(self, grad, var):
        rms = self.get_slot(var, "rms")
        mom = self.get_slot(var, "momentum")
        dtype = var.dtype.base_dtype
        args = (optimizer.cast(self._learning_rate_tensor, dtype),
                optimizer.cast(self._decay_tensor, dtype),
                optimizer.cast(self._momentum_tensor, dtype),
                optimizer.cast(self._epsilon_tensor, dtype), grad)
        if self._centered:
            mg = self.get_slot(var, "mg")
            return training_ops.apply_centered_rms_prop(
                var, mg, rms, mom, *args, use_locking=self._use_locking)
        return training_ops.apply_rms_prop(var, rms, mom, *args,
                                           use_locking=self._use_locking)

    def _sparse(self, grad, var, indices, dtype):
        rms = self.get_slot(var, "rms")
        mom = self.get_slot(var, "momentum")
        args = (optimizer.cast(self._learning_rate_tensor, dtype),
                optimizer.cast(self._decay_tensor, dtype),
                optimizer.cast(self._momentum_tensor, dtype),
                optimizer.cast(self._epsilon_tensor, dtype), grad, indices)
        if self._centered:
            mg = self.get_slot(var, "mg")
            return sparse_training_ops.sparse_apply_centered_rms_prop(
                var, mg, rms, mom, *args, use_locking=self._use_locking)
        return sparse_training_ops.sparse_apply_rms_prop(var, rms, mom, *args,
                                                         use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        return self._sparse(grad.values, var, grad.indices, var.dtype.base_dtype)

    def _resource_apply_sparse(self, grad, var, indices):
        return self._sparse(grad, var, indices, grad.dtype)
