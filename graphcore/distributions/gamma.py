"""``tf.distributions.Gamma`` (concentration, rate), its special case ``Exponential``,
and ``Beta`` (a ratio of gammas), with the Gamma-Gamma and Beta-Beta KL divergences.
Samples come from RandomGamma, whose gradient makes them reparameterized."""

from __future__ import annotations

from typing import Any

import numpy as np

from graphcore.distributions import distribution, kullback_leibler, util
from graphcore.distributions.normal import (
    BroadcastParamsDistribution,
    param_property,
    same_shapes,
    scalar_event,
    scalar_event_tensor,
)
from graphcore.framework import dtypes, tensor_shape
from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import (
    array_ops,
    check_ops,
    control_flow_ops,
    elementwise_ops,
    math_ops,
    random_distribution_ops,
    random_ops,
)

__all__ = ["Beta", "Exponential", "Gamma"]


class Gamma(BroadcastParamsDistribution):
    """Gamma(concentration, rate): density x^(a-1) e^(-rate x) rate^a / Gamma(a)."""

    def __init__(self, concentration: Any, rate: Any, validate_args: bool = False,
                 allow_nan_stats: bool = True, name: str = "Gamma"):
        self._init_params({"concentration": concentration, "rate": rate},
                          ("concentration", "rate"), validate_args, allow_nan_stats,
                          dict(locals()), name)

    _params = ("concentration", "rate")
    concentration = param_property("concentration")
    rate = param_property("rate")

    def _sample_n(self, n: Any, seed: int | None = None) -> ops_lib.Tensor:
        return random_distribution_ops.random_gamma(shape=[n], alpha=self.concentration,
                                                    beta=self.rate, dtype=self.dtype,
                                                    seed=seed)

    def _log_prob(self, x: Any) -> ops_lib.Tensor:
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _cdf(self, x: Any) -> ops_lib.Tensor:
        x = self._maybe_assert_valid_sample(x)
        return elementwise_ops.igamma(self.concentration, self.rate * x)

    def _log_unnormalized_prob(self, x: Any) -> ops_lib.Tensor:
        x = self._maybe_assert_valid_sample(x)
        return elementwise_ops.xlogy(self.concentration - 1.0, x) - self.rate * x

    def _log_normalization(self) -> ops_lib.Tensor:
        return (elementwise_ops.lgamma(self.concentration)
                - self.concentration * math_ops.log(self.rate))

    def _entropy(self) -> ops_lib.Tensor:
        return (self.concentration - math_ops.log(self.rate)
                + elementwise_ops.lgamma(self.concentration)
                + (1.0 - self.concentration) * elementwise_ops.digamma(self.concentration))

    def _mean(self) -> ops_lib.Tensor:
        return self.concentration / self.rate

    def _variance(self) -> ops_lib.Tensor:
        return self.concentration / math_ops.square(self.rate)

    def _stddev(self) -> ops_lib.Tensor:
        return math_ops.sqrt(self.concentration) / self.rate

    def _mode(self) -> ops_lib.Tensor:
        """(concentration - 1) / rate where concentration > 1, NaN elsewhere."""
        mode = (self.concentration - 1.0) / self.rate
        if self.allow_nan_stats:
            nan = array_ops.fill(self.batch_shape_tensor(),
                                 np.array(np.nan, dtype=self.dtype.as_numpy_dtype()),
                                 name="nan")
            return math_ops.where_v2(self.concentration > 1.0, mode, nan)
        return control_flow_ops.with_dependencies([check_ops.assert_less(
            array_ops.ones([], self.dtype), self.concentration,
            message="mode not defined when any concentration <= 1")], mode)

    def _maybe_assert_valid_sample(self, x: Any) -> ops_lib.Tensor:
        check_ops.assert_same_float_dtype(tensors=[x], dtype=self.dtype)
        if not self.validate_args:
            return x
        return control_flow_ops.with_dependencies([check_ops.assert_positive(x)], x)


@kullback_leibler.RegisterKL(Gamma, Gamma)
def _kl_gamma_gamma(g0: Gamma, g1: Gamma, name: str | None = None) -> ops_lib.Tensor:
    with ops_lib.name_scope(name, "kl_gamma_gamma",
                            values=[g0.concentration, g0.rate, g1.concentration, g1.rate]):
        return ((g0.concentration - g1.concentration)
                * elementwise_ops.digamma(g0.concentration)
                + elementwise_ops.lgamma(g1.concentration)
                - elementwise_ops.lgamma(g0.concentration)
                + g1.concentration * math_ops.log(g0.rate)
                - g1.concentration * math_ops.log(g1.rate)
                + g0.concentration * (g1.rate / g0.rate - 1.0))


class Exponential(Gamma):
    """Exponential(rate) = Gamma(1, rate), sampled as -log(U) / rate."""

    def __init__(self, rate: Any, validate_args: bool = False, allow_nan_stats: bool = True,
                 name: str = "Exponential"):
        parameters = dict(locals())
        with ops_lib.name_scope(name, values=[rate]) as name:
            self._rate = convert_to_tensor(rate, name="rate")
        super().__init__(concentration=array_ops.ones([], dtype=self._rate.dtype),
                         rate=self._rate, allow_nan_stats=allow_nan_stats,
                         validate_args=validate_args, name=name)
        self._parameters = parameters
        self._graph_parents += [self._rate]

    @staticmethod
    def _param_shapes(sample_shape: Any) -> dict:
        return {"rate": convert_to_tensor(sample_shape, dtype=dtypes.int32)}

    rate = param_property("rate")

    def _log_survival_function(self, value: Any) -> ops_lib.Tensor:
        return self._log_prob(value) - math_ops.log(self._rate)

    def _sample_n(self, n: Any, seed: int | None = None) -> ops_lib.Tensor:
        shape = array_ops.concat([[n], array_ops.shape(self._rate)], 0)
        # (0, 1): the smallest positive float keeps log() finite.
        sampled = random_ops.random_uniform(
            shape, minval=np.finfo(self.dtype.as_numpy_dtype).tiny, maxval=1.0, seed=seed,
            dtype=self.dtype)
        return -math_ops.log(sampled) / self._rate


class Beta(distribution.Distribution):
    """Beta(concentration1, concentration0) on (0, 1)."""

    def __init__(self, concentration1: Any = None, concentration0: Any = None,
                 validate_args: bool = False, allow_nan_stats: bool = True,
                 name: str = "Beta"):
        parameters = dict(locals())
        with ops_lib.name_scope(name, values=[concentration1, concentration0]) as name:
            self._concentration1 = self._maybe_assert_valid_concentration(
                convert_to_tensor(concentration1, name="concentration1"), validate_args)
            self._concentration0 = self._maybe_assert_valid_concentration(
                convert_to_tensor(concentration0, name="concentration0"), validate_args)
            check_ops.assert_same_float_dtype([self._concentration1, self._concentration0])
            self._total_concentration = self._concentration1 + self._concentration0
        super().__init__(dtype=self._total_concentration.dtype, validate_args=validate_args,
                         allow_nan_stats=allow_nan_stats,
                         reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                         parameters=parameters,
                         graph_parents=[self._concentration1, self._concentration0,
                                        self._total_concentration], name=name)

    _param_shapes = same_shapes("concentration1", "concentration0")
    _event_shape = scalar_event
    _event_shape_tensor = scalar_event_tensor

    concentration1 = param_property("concentration1")
    concentration0 = param_property("concentration0")
    total_concentration = param_property("total_concentration")

    def _batch_shape_tensor(self) -> ops_lib.Tensor:
        return array_ops.shape(self.total_concentration)

    def _batch_shape(self) -> tensor_shape.TensorShape:
        return self.total_concentration.get_shape()

    def _sample_n(self, n: Any, seed: int | None = None) -> ops_lib.Tensor:
        expanded1 = array_ops.ones_like(self.total_concentration,
                                        dtype=self.dtype) * self.concentration1
        expanded0 = array_ops.ones_like(self.total_concentration,
                                        dtype=self.dtype) * self.concentration0
        gamma1_sample = random_distribution_ops.random_gamma(
            shape=[n], alpha=expanded1, dtype=self.dtype, seed=seed)
        gamma2_sample = random_distribution_ops.random_gamma(
            shape=[n], alpha=expanded0, dtype=self.dtype,
            seed=util.gen_new_seed(seed, "beta"))
        return gamma1_sample / (gamma1_sample + gamma2_sample)

    def _log_prob(self, x: Any) -> ops_lib.Tensor:
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _prob(self, x: Any) -> ops_lib.Tensor:
        return math_ops.exp(self._log_prob(x))

    def _log_cdf(self, x: Any) -> ops_lib.Tensor:
        return math_ops.log(self._cdf(x))

    def _cdf(self, x: Any) -> ops_lib.Tensor:
        return elementwise_ops.betainc(self.concentration1, self.concentration0, x)

    def _log_unnormalized_prob(self, x: Any) -> ops_lib.Tensor:
        x = self._maybe_assert_valid_sample(x)
        return (elementwise_ops.xlogy(self.concentration1 - 1.0, x)
                + (self.concentration0 - 1.0) * math_ops.log1p(-x))

    def _log_normalization(self) -> ops_lib.Tensor:
        return (elementwise_ops.lgamma(self.concentration1)
                + elementwise_ops.lgamma(self.concentration0)
                - elementwise_ops.lgamma(self.total_concentration))

    def _entropy(self) -> ops_lib.Tensor:
        digamma = elementwise_ops.digamma
        return (self._log_normalization()
                - (self.concentration1 - 1.0) * digamma(self.concentration1)
                - (self.concentration0 - 1.0) * digamma(self.concentration0)
                + (self.total_concentration - 2.0) * digamma(self.total_concentration))

    def _mean(self) -> ops_lib.Tensor:
        return self._concentration1 / self._total_concentration

    def _variance(self) -> ops_lib.Tensor:
        return self._mean() * (1.0 - self._mean()) / (1.0 + self.total_concentration)

    def _mode(self) -> ops_lib.Tensor:
        """(c1 - 1) / (c1 + c0 - 2) where both concentrations exceed 1, NaN elsewhere."""
        mode = (self.concentration1 - 1.0) / (self.total_concentration - 2.0)
        if self.allow_nan_stats:
            nan = array_ops.fill(self.batch_shape_tensor(),
                                 np.array(np.nan, dtype=self.dtype.as_numpy_dtype()),
                                 name="nan")
            is_defined = math_ops.logical_and(self.concentration1 > 1.0,
                                              self.concentration0 > 1.0)
            return math_ops.where_v2(is_defined, mode, nan)
        one = array_ops.ones([], dtype=self.dtype)
        return control_flow_ops.with_dependencies([
            check_ops.assert_less(one, self.concentration1,
                                  message="Mode undefined for concentration1 <= 1."),
            check_ops.assert_less(one, self.concentration0,
                                  message="Mode undefined for concentration0 <= 1.")], mode)

    def _maybe_assert_valid_concentration(self, concentration: Any,
                                          validate_args: bool) -> ops_lib.Tensor:
        if not validate_args:
            return concentration
        return control_flow_ops.with_dependencies([check_ops.assert_positive(
            concentration, message="Concentration parameter must be positive.")],
            concentration)

    def _maybe_assert_valid_sample(self, x: Any) -> ops_lib.Tensor:
        if not self.validate_args:
            return x
        return control_flow_ops.with_dependencies([
            check_ops.assert_positive(x, message="sample must be positive"),
            check_ops.assert_less(x, array_ops.ones([], self.dtype),
                                  message="sample must be less than `1`.")], x)


@kullback_leibler.RegisterKL(Beta, Beta)
def _kl_beta_beta(d1: Beta, d2: Beta, name: str | None = None) -> ops_lib.Tensor:
    digamma = elementwise_ops.digamma
    with ops_lib.name_scope(name, "kl_beta_beta", values=[
            d1.concentration1, d1.concentration0, d1.total_concentration,
            d2.concentration1, d2.concentration0, d2.total_concentration]):
        return (d2._log_normalization() - d1._log_normalization()
                - digamma(d1.concentration1) * (d2.concentration1 - d1.concentration1)
                - digamma(d1.concentration0) * (d2.concentration0 - d1.concentration0)
                + digamma(d1.total_concentration)
                * (d2.total_concentration - d1.total_concentration))
