"""``tf.distributions.Uniform`` on [low, high): samples ``low + (high - low) * U``."""

from __future__ import annotations

import math
from typing import Any

from graphcore.distributions import distribution
from graphcore.distributions.normal import BroadcastParamsDistribution, param_property
from graphcore.framework import ops as ops_lib
from graphcore.ops import array_ops, check_ops, elementwise_ops, manip_ops, math_ops, random_ops

__all__ = ["Uniform"]


class Uniform(BroadcastParamsDistribution):
    """The uniform distribution on [``low``, ``high``)."""

    def __init__(self, low: Any = 0.0, high: Any = 1.0, validate_args: bool = False,
                 allow_nan_stats: bool = True, name: str = "Uniform"):
        parameters = dict(locals())
        with ops_lib.name_scope(name, values=[low, high]) as name:
            checks = ([check_ops.assert_less(low, high,
                                             message="uniform not defined when low >= high.")]
                      if validate_args else [])
            with ops_lib.control_dependencies(checks):
                self._low = array_ops.identity(low, name="low")
                self._high = array_ops.identity(high, name="high")
                check_ops.assert_same_float_dtype([self._low, self._high])
        super().__init__(dtype=self._low.dtype,
                         reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats,
                         parameters=parameters, graph_parents=[self._low, self._high],
                         name=name)

    _params = ("low", "high")
    low = param_property("low")
    high = param_property("high")

    def range(self, name: str = "range") -> ops_lib.Tensor:  # noqa: A003
        """``high - low``."""
        with self._name_scope(name):
            return self.high - self.low

    def _sample_n(self, n: Any, seed: int | None = None) -> ops_lib.Tensor:
        shape = array_ops.concat([[n], self.batch_shape_tensor()], 0)
        samples = random_ops.random_uniform(shape=shape, dtype=self.dtype, seed=seed)
        return self.low + self.range() * samples

    def _prob(self, x: Any) -> ops_lib.Tensor:
        broadcasted_x = x * array_ops.ones(self.batch_shape_tensor(), dtype=x.dtype)
        return math_ops.where_v2(
            elementwise_ops.is_nan(broadcasted_x), broadcasted_x,
            math_ops.where_v2(
                math_ops.logical_or(broadcasted_x < self.low, broadcasted_x >= self.high),
                array_ops.zeros_like(broadcasted_x),
                array_ops.ones_like(broadcasted_x) / self.range()))

    def _cdf(self, x: Any) -> ops_lib.Tensor:
        broadcast_shape = manip_ops.broadcast_dynamic_shape(array_ops.shape(x),
                                                            self.batch_shape_tensor())
        zeros = array_ops.zeros(broadcast_shape, dtype=self.dtype)
        ones = array_ops.ones(broadcast_shape, dtype=self.dtype)
        broadcasted_x = x * ones
        result_if_not_big = math_ops.where_v2(x < self.low, zeros,
                                              (broadcasted_x - self.low) / self.range())
        return math_ops.where_v2(x >= self.high, ones, result_if_not_big)

    def _entropy(self) -> ops_lib.Tensor:
        return math_ops.log(self.range())

    def _mean(self) -> ops_lib.Tensor:
        return (self.low + self.high) / 2.0

    def _variance(self) -> ops_lib.Tensor:
        return math_ops.square(self.range()) / 12.0

    def _stddev(self) -> ops_lib.Tensor:
        return self.range() / math.sqrt(12.0)
