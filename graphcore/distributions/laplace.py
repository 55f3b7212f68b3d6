"""``tf.distributions.Laplace`` and ``tf.distributions.StudentT``: the two other
location-scale families, sampled by transforming uniform / normal and gamma draws."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from graphcore.distributions import util
from graphcore.distributions.normal import BroadcastParamsDistribution, param_property
from graphcore.framework import ops as ops_lib
from graphcore.ops import (
    array_ops,
    check_ops,
    control_flow_ops,
    elementwise_ops,
    math_ops,
    random_distribution_ops,
    random_ops,
)

__all__ = ["Laplace", "StudentT"]


class Laplace(BroadcastParamsDistribution):
    """The Laplace distribution: density exp(-|x - loc| / scale) / (2 scale)."""

    def __init__(self, loc: Any, scale: Any, validate_args: bool = False,
                 allow_nan_stats: bool = True, name: str = "Laplace"):
        self._init_params({"loc": loc, "scale": scale}, ("scale",), validate_args,
                          allow_nan_stats, dict(locals()), name)

    _params = ("loc", "scale")
    loc = param_property("loc")
    scale = param_property("scale")

    def _sample_n(self, n: Any, seed: int | None = None) -> ops_lib.Tensor:
        shape = array_ops.concat([[n], self.batch_shape_tensor()], 0)
        np_dtype = self.dtype.as_numpy_dtype
        # (-1, 1) open at -1: log1p(-|u|) stays finite.
        uniform_samples = random_ops.random_uniform(
            shape=shape, minval=np.nextafter(np_dtype(-1.0), np_dtype(0.0)), maxval=1.0,
            dtype=self.dtype, seed=seed)
        return self.loc - self.scale * math_ops.sign(uniform_samples) * math_ops.log1p(
            -math_ops.abs(uniform_samples))

    def _log_prob(self, x: Any) -> ops_lib.Tensor:
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _prob(self, x: Any) -> ops_lib.Tensor:
        return math_ops.exp(self._log_prob(x))

    def _log_cdf(self, x: Any) -> ops_lib.Tensor:
        return util.log_cdf_laplace(self._z(x))

    def _log_survival_function(self, x: Any) -> ops_lib.Tensor:
        return util.log_cdf_laplace(-self._z(x))

    def _cdf(self, x: Any) -> ops_lib.Tensor:
        z = self._z(x)
        return 0.5 + 0.5 * math_ops.sign(z) * (1.0 - math_ops.exp(-math_ops.abs(z)))

    def _log_unnormalized_prob(self, x: Any) -> ops_lib.Tensor:
        return -math_ops.abs(self._z(x))

    def _log_normalization(self) -> ops_lib.Tensor:
        return math.log(2.0) + math_ops.log(self.scale)

    def _entropy(self) -> ops_lib.Tensor:
        scale = self.scale + array_ops.zeros_like(self.loc)
        return math.log(2.0) + 1.0 + math_ops.log(scale)

    def _mean(self) -> ops_lib.Tensor:
        return self.loc + array_ops.zeros_like(self.scale)

    def _stddev(self) -> ops_lib.Tensor:
        return math.sqrt(2.0) * self.scale + array_ops.zeros_like(self.loc)

    def _median(self) -> ops_lib.Tensor:
        return self._mean()

    def _mode(self) -> ops_lib.Tensor:
        return self._mean()

    def _z(self, x: Any) -> ops_lib.Tensor:
        return (x - self.loc) / self.scale


class StudentT(BroadcastParamsDistribution):
    """Student's t with ``df`` degrees of freedom, location ``loc`` and scale ``scale``."""

    def __init__(self, df: Any, loc: Any, scale: Any, validate_args: bool = False,
                 allow_nan_stats: bool = True, name: str = "StudentT"):
        self._init_params({"df": df, "loc": loc, "scale": scale}, ("df",), validate_args,
                          allow_nan_stats, dict(locals()), name)

    _params = ("df", "loc", "scale")
    df = param_property("df")
    loc = param_property("loc")
    scale = param_property("scale")

    def _ones(self) -> ops_lib.Tensor:
        return array_ops.ones(self.batch_shape_tensor(), dtype=self.dtype)

    def _fill(self, value: float, name: str) -> ops_lib.Tensor:
        return array_ops.fill(self.batch_shape_tensor(),
                              np.array(value, dtype=self.dtype.as_numpy_dtype()), name=name)

    def _sample_n(self, n: Any, seed: int | None = None) -> ops_lib.Tensor:
        # X ~ N(0, 1), Z ~ Chi2(df) = Gamma(df / 2, 1 / 2): X * rsqrt(Z / df) ~ t(df).
        shape = array_ops.concat([[n], self.batch_shape_tensor()], 0)
        normal_sample = random_ops.random_normal(shape, dtype=self.dtype, seed=seed)
        df = self.df * self._ones()
        gamma_sample = random_distribution_ops.random_gamma(
            [n], 0.5 * df, beta=0.5, dtype=self.dtype,
            seed=util.gen_new_seed(seed, salt="student_t"))
        samples = normal_sample * math_ops.rsqrt(gamma_sample / df)
        return samples * self.scale + self.loc

    def _log_prob(self, x: Any) -> ops_lib.Tensor:
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _log_unnormalized_prob(self, x: Any) -> ops_lib.Tensor:
        y = (x - self.loc) / self.scale
        return -0.5 * (self.df + 1.0) * math_ops.log1p(y ** 2.0 / self.df)

    def _log_normalization(self) -> ops_lib.Tensor:
        return (math_ops.log(math_ops.abs(self.scale)) + 0.5 * math_ops.log(self.df)
                + 0.5 * np.log(np.pi) + elementwise_ops.lgamma(0.5 * self.df)
                - elementwise_ops.lgamma(0.5 * (self.df + 1.0)))

    def _cdf(self, x: Any) -> ops_lib.Tensor:
        y = (x - self.loc) / math_ops.abs(self.scale)
        x_t = self.df / (y ** 2.0 + self.df)
        neg_cdf = 0.5 * elementwise_ops.betainc(0.5 * self.df, 0.5, x_t)
        return math_ops.where_v2(math_ops.less(y, 0.0), neg_cdf, 1.0 - neg_cdf)

    def _entropy(self) -> ops_lib.Tensor:
        v = self._ones()[..., array_ops.newaxis]
        u = v * self.df[..., array_ops.newaxis]
        beta_arg = array_ops.concat([u, v], -1) / 2.0
        return (math_ops.log(math_ops.abs(self.scale)) + 0.5 * math_ops.log(self.df)
                + elementwise_ops.lbeta(beta_arg)
                + 0.5 * (self.df + 1.0) * (elementwise_ops.digamma(0.5 * (self.df + 1.0))
                                           - elementwise_ops.digamma(0.5 * self.df)))

    def _mean(self) -> ops_lib.Tensor:
        mean = self.loc * self._ones()
        if self.allow_nan_stats:
            return math_ops.where_v2(math_ops.greater(self.df, self._ones()), mean,
                                     self._fill(np.nan, "nan"))
        return control_flow_ops.with_dependencies([check_ops.assert_less(
            array_ops.ones([], dtype=self.dtype), self.df,
            message="mean not defined for components of df <= 1")], mean)

    def _variance(self) -> ops_lib.Tensor:
        # df / (df - 2) for df > 2, infinity for 1 < df <= 2, NaN for df <= 1.
        denom = math_ops.where_v2(math_ops.greater(self.df, 2.0), self.df - 2.0,
                                  array_ops.ones_like(self.df))
        var = self._ones() * math_ops.square(self.scale) * self.df / denom
        result_where_defined = math_ops.where_v2(
            self.df > array_ops.fill(self.batch_shape_tensor(), 2.0), var,
            self._fill(np.inf, "inf"))
        if self.allow_nan_stats:
            return math_ops.where_v2(math_ops.greater(self.df, self._ones()),
                                     result_where_defined, self._fill(np.nan, "nan"))
        return control_flow_ops.with_dependencies([check_ops.assert_less(
            array_ops.ones([], dtype=self.dtype), self.df,
            message="variance not defined for components of df <= 1")], result_where_defined)

    def _mode(self) -> ops_lib.Tensor:
        return array_ops.identity(self.loc)
