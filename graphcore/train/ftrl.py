"""``tf.train.FtrlOptimizer``: FTRL-proximal (McMahan et al., 2013) with online and
shrinkage-type L2 (ApplyFtrl/ApplyFtrlV2; SparseApplyFtrl(V2) for IndexedSlices)."""

from __future__ import annotations

from typing import Any

from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import sparse_training_ops
from graphcore.train import optimizer, training_ops

__all__ = ["FtrlOptimizer"]


class FtrlOptimizer(optimizer.Optimizer):
    """FTRL; slots "accum" (``<var>/Ftrl``, starting at ``initial_accumulator_value``) and
    "linear" (``<var>/Ftrl_1``, zeros). ``beta`` is folded into the L2 strength passed to
    the ops: l2 + beta / (2 * learning_rate)."""

    def __init__(self, learning_rate: Any, learning_rate_power: float = -0.5,
                 initial_accumulator_value: float = 0.1,
                 l1_regularization_strength: float = 0.0,
                 l2_regularization_strength: float = 0.0, use_locking: bool = False,
                 name: str = "Ftrl", accum_name: str | None = None,
                 linear_name: str | None = None,
                 l2_shrinkage_regularization_strength: float = 0.0,
                 beta: float | None = None):
        super().__init__(use_locking, name)
        for value, what, sign in (
                (initial_accumulator_value, "initial_accumulator_value", "positive"),
                (learning_rate_power, "learning_rate_power", "negative"),
                (l1_regularization_strength, "l1_regularization_strength", "positive"),
                (l2_regularization_strength, "l2_regularization_strength", "positive"),
                (l2_shrinkage_regularization_strength, "l2_shrinkage_regularization_strength",
                 "positive")):
            if (value < 0.0) if sign == "positive" else (value > 0.0):
                raise ValueError(f"{what} {value:f} needs to be {sign} or zero")
        self._learning_rate = learning_rate
        self._learning_rate_power = learning_rate_power
        self._initial_accumulator_value = initial_accumulator_value
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength
        self._beta = 0.0 if beta is None else beta
        self._l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self._accum_name = accum_name
        self._linear_name = linear_name

    def _create_slots(self, var_list):
        from graphcore.ops import array_ops

        def accum_initializer(shape, dtype=None, partition_info=None):
            del partition_info
            return array_ops.ones(shape=shape, dtype=dtype) * self._initial_accumulator_value

        for v in var_list:
            self._get_or_make_slot_with_initializer(v, accum_initializer, v.shape, v.dtype.base_dtype,
                                                    "accum", self._accum_name or self._name)
            self._zeros_slot(v, "linear", self._linear_name or self._name)

    def _prepare(self):
        from graphcore.ops import math_ops

        self._learning_rate_tensor = convert_to_tensor(self._learning_rate,
                                                       name="learning_rate")
        self._l1_regularization_strength_tensor = convert_to_tensor(
            self._l1_regularization_strength, name="l1_regularization_strength")
        self._adjusted_l2_regularization_strength_tensor = convert_to_tensor(
            self._l2_regularization_strength
            + self._beta / (2. * math_ops.maximum(self._learning_rate, 1e-36)),
            name="adjusted_l2_regularization_strength")
        self._beta_tensor = convert_to_tensor(self._beta, name="beta")
        self._l2_shrinkage_regularization_strength_tensor = convert_to_tensor(
            self._l2_shrinkage_regularization_strength,
            name="l2_shrinkage_regularization_strength")
        self._learning_rate_power_tensor = convert_to_tensor(self._learning_rate_power,
                                                             name="learning_rate_power")

    def _hyper(self, dtype, shrinkage_dtype=None) -> dict:
        cast = optimizer.cast
        hyper = dict(lr=cast(self._learning_rate_tensor, dtype),
                     l1=cast(self._l1_regularization_strength_tensor, dtype),
                     l2=cast(self._adjusted_l2_regularization_strength_tensor, dtype))
        if self._l2_shrinkage_regularization_strength > 0.0:
            hyper["l2_shrinkage"] = cast(self._l2_shrinkage_regularization_strength_tensor,
                                         shrinkage_dtype or dtype)
        hyper["lr_power"] = cast(self._learning_rate_power_tensor, dtype)
        return hyper

    def _apply_dense(self, grad, var):
        hyper = self._hyper(var.dtype.base_dtype)
        apply = training_ops.apply_ftrl_v2 if "l2_shrinkage" in hyper else \
            training_ops.apply_ftrl
        return apply(var, self.get_slot(var, "accum"), self.get_slot(var, "linear"), grad,
                     **hyper, use_locking=self._use_locking)

    def _sparse(self, values, indices, var, hyper):
        apply = sparse_training_ops.sparse_apply_ftrl_v2 if "l2_shrinkage" in hyper else \
            sparse_training_ops.sparse_apply_ftrl
        return apply(var, self.get_slot(var, "accum"), self.get_slot(var, "linear"), values,
                     indices, **hyper, use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        return self._sparse(grad.values, grad.indices, var,
                            self._hyper(var.dtype.base_dtype, grad.dtype.base_dtype))

    def _resource_apply_sparse(self, grad, var, indices):
        return self._sparse(grad, indices, var, self._hyper(grad.dtype))
