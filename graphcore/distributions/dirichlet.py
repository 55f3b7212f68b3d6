"""``tf.distributions.Dirichlet``, ``Multinomial`` and ``DirichletMultinomial``: the
distributions over the simplex and over count vectors, with the Dirichlet-Dirichlet KL
divergence."""

from __future__ import annotations

from typing import Any

import numpy as np

from graphcore.distributions import distribution, kullback_leibler, util
from graphcore.distributions.normal import param_property
from graphcore.framework import dtypes, tensor_shape
from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import (
    array_ops,
    check_ops,
    control_flow_ops,
    elementwise_ops,
    functional_ops,
    linalg_ops,
    math_ops,
    nn_ops,
    random_distribution_ops,
)

__all__ = ["Dirichlet", "DirichletMultinomial", "Multinomial"]


def _outer_covariance(x: ops_lib.Tensor, variance: ops_lib.Tensor) -> ops_lib.Tensor:
    """-x x^T with ``variance`` on the diagonal."""
    return linalg_ops.matrix_set_diag(
        -math_ops.matmul(x[..., array_ops.newaxis], x[..., array_ops.newaxis, :]),
        variance)


def _with_count_checks(counts: Any, total_count: Any, validate_args: bool,
                       message: str) -> ops_lib.Tensor:
    if not validate_args:
        return counts
    counts = util.embed_check_nonnegative_integer_form(counts)
    return control_flow_ops.with_dependencies([check_ops.assert_equal(
        total_count, math_ops.reduce_sum(counts, -1), message=message)], counts)


class _ConcentrationVector(distribution.Distribution):
    """A distribution over vectors parameterized by a ``concentration`` vector (its last
    axis the event), batched over the other axes."""

    concentration = param_property("concentration")
    total_concentration = param_property("total_concentration")

    def _batch_shape_tensor(self) -> ops_lib.Tensor:
        return array_ops.shape(self.total_concentration)

    def _batch_shape(self) -> tensor_shape.TensorShape:
        return self.total_concentration.get_shape()

    def _event_shape_tensor(self) -> ops_lib.Tensor:
        return array_ops.shape(self.concentration)[-1:]

    def _event_shape(self) -> tensor_shape.TensorShape:
        return self.concentration.get_shape().with_rank_at_least(1)[-1:]


class Dirichlet(_ConcentrationVector):
    """Dirichlet(concentration) over the simplex of the last axis."""

    def __init__(self, concentration: Any, validate_args: bool = False,
                 allow_nan_stats: bool = True, name: str = "Dirichlet"):
        parameters = dict(locals())
        with ops_lib.name_scope(name, values=[concentration]) as name:
            self._concentration = self._maybe_assert_valid_concentration(
                convert_to_tensor(concentration, name="concentration"), validate_args)
            self._total_concentration = math_ops.reduce_sum(self._concentration, -1)
        super().__init__(dtype=self._concentration.dtype, validate_args=validate_args,
                         allow_nan_stats=allow_nan_stats,
                         reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                         parameters=parameters,
                         graph_parents=[self._concentration, self._total_concentration],
                         name=name)


    def _sample_n(self, n: Any, seed: int | None = None) -> ops_lib.Tensor:
        gamma_sample = random_distribution_ops.random_gamma(
            shape=[n], alpha=self.concentration, dtype=self.dtype, seed=seed)
        return gamma_sample / math_ops.reduce_sum(gamma_sample, -1, keepdims=True)

    def _log_prob(self, x: Any) -> ops_lib.Tensor:
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _prob(self, x: Any) -> ops_lib.Tensor:
        return math_ops.exp(self._log_prob(x))

    def _log_unnormalized_prob(self, x: Any) -> ops_lib.Tensor:
        x = self._maybe_assert_valid_sample(x)
        return math_ops.reduce_sum(elementwise_ops.xlogy(self.concentration - 1.0, x), -1)

    def _log_normalization(self) -> ops_lib.Tensor:
        return elementwise_ops.lbeta(self.concentration)

    def _entropy(self) -> ops_lib.Tensor:
        digamma = elementwise_ops.digamma
        k = math_ops.cast(self.event_shape_tensor()[0], self.dtype)
        return (self._log_normalization()
                + (self.total_concentration - k) * digamma(self.total_concentration)
                - math_ops.reduce_sum((self.concentration - 1.0) * digamma(self.concentration),
                                      axis=-1))

    def _mean(self) -> ops_lib.Tensor:
        return self.concentration / self.total_concentration[..., array_ops.newaxis]

    def _covariance(self) -> ops_lib.Tensor:
        return _outer_covariance(self._variance_scale_term() * self._mean(),
                                 self._variance())

    def _variance(self) -> ops_lib.Tensor:
        scale = self._variance_scale_term()
        x = scale * self._mean()
        return x * (scale - x)

    def _variance_scale_term(self) -> ops_lib.Tensor:
        return math_ops.rsqrt(1.0 + self.total_concentration[..., array_ops.newaxis])

    def _mode(self) -> ops_lib.Tensor:
        """(concentration - 1) / (total - k) where every concentration > 1, else NaN."""
        k = math_ops.cast(self.event_shape_tensor()[0], self.dtype)
        mode = (self.concentration - 1.0) / (
            self.total_concentration[..., array_ops.newaxis] - k)
        if self.allow_nan_stats:
            nan = array_ops.fill(array_ops.shape(mode),
                                 np.array(np.nan, dtype=self.dtype.as_numpy_dtype()),
                                 name="nan")
            return math_ops.where_v2(math_ops.reduce_all(self.concentration > 1.0, axis=-1),
                                     mode, nan)
        return control_flow_ops.with_dependencies([check_ops.assert_less(
            array_ops.ones([], self.dtype), self.concentration,
            message="Mode undefined when any concentration <= 1")], mode)

    def _maybe_assert_valid_concentration(self, concentration: Any,
                                          validate_args: bool) -> ops_lib.Tensor:
        if not validate_args:
            return concentration
        return control_flow_ops.with_dependencies([
            check_ops.assert_positive(
                concentration, message="Concentration parameter must be positive."),
            check_ops.assert_rank_at_least(
                concentration, 1, message="Concentration parameter must have >=1 dimensions."),
            check_ops.assert_less(
                1, array_ops.shape(concentration)[-1],
                message="Concentration parameter must have event_size >= 2.")], concentration)

    def _maybe_assert_valid_sample(self, x: Any) -> ops_lib.Tensor:
        if not self.validate_args:
            return x
        return control_flow_ops.with_dependencies([
            check_ops.assert_positive(x, message="samples must be positive"),
            check_ops.assert_near(array_ops.ones([], dtype=self.dtype),
                                  math_ops.reduce_sum(x, -1),
                                  message="sample last-dimension must sum to `1`")], x)


@kullback_leibler.RegisterKL(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(d1: Dirichlet, d2: Dirichlet,
                            name: str | None = None) -> ops_lib.Tensor:
    with ops_lib.name_scope(name, "kl_dirichlet_dirichlet",
                            values=[d1.concentration, d2.concentration]):
        digamma_sum_d1 = elementwise_ops.digamma(
            math_ops.reduce_sum(d1.concentration, axis=-1, keepdims=True))
        digamma_diff = elementwise_ops.digamma(d1.concentration) - digamma_sum_d1
        concentration_diff = d1.concentration - d2.concentration
        return (math_ops.reduce_sum(concentration_diff * digamma_diff, axis=-1)
                - elementwise_ops.lbeta(d1.concentration)
                + elementwise_ops.lbeta(d2.concentration))


class Multinomial(distribution.Distribution):
    """Counts of ``total_count`` draws over K classes (``logits`` or ``probs``)."""

    def __init__(self, total_count: Any, logits: Any = None, probs: Any = None,
                 validate_args: bool = False, allow_nan_stats: bool = True,
                 name: str = "Multinomial"):
        parameters = dict(locals())
        with ops_lib.name_scope(name, values=[total_count, logits, probs]) as name:
            self._total_count = convert_to_tensor(total_count, name="total_count")
            if validate_args:
                self._total_count = util.embed_check_nonnegative_integer_form(
                    self._total_count)
            self._logits, self._probs = util.get_logits_and_probs(
                logits=logits, probs=probs, multidimensional=True,
                validate_args=validate_args, name=name)
            self._mean_val = self._total_count[..., array_ops.newaxis] * self._probs
        super().__init__(dtype=self._probs.dtype,
                         reparameterization_type=distribution.NOT_REPARAMETERIZED,
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats,
                         parameters=parameters,
                         graph_parents=[self._total_count, self._logits, self._probs],
                         name=name)

    total_count = param_property("total_count")
    logits = param_property("logits")
    probs = param_property("probs")

    def _batch_shape_tensor(self) -> ops_lib.Tensor:
        return array_ops.shape(self._mean_val)[:-1]

    def _batch_shape(self) -> tensor_shape.TensorShape:
        return self._mean_val.get_shape().with_rank_at_least(1)[:-1]

    def _event_shape_tensor(self) -> ops_lib.Tensor:
        return array_ops.shape(self._mean_val)[-1:]

    def _event_shape(self) -> tensor_shape.TensorShape:
        return self._mean_val.get_shape().with_rank_at_least(1)[-1:]

    def _sample_n(self, n: Any, seed: int | None = None) -> ops_lib.Tensor:
        n_draws = math_ops.cast(self.total_count, dtype=dtypes.int32)
        k = self.event_shape_tensor()[0]
        n_draws = array_ops.ones_like(self.logits[..., 0], dtype=n_draws.dtype) * n_draws
        logits = array_ops.ones_like(n_draws[..., array_ops.newaxis],
                                     dtype=self.logits.dtype) * self.logits
        flat_logits = array_ops.reshape(logits, [-1, k])
        flat_ndraws = n * array_ops.reshape(n_draws, [-1])

        def _sample_single(args: list) -> ops_lib.Tensor:
            logits, n_draw = args[0], args[1]
            x = random_distribution_ops.multinomial(logits[array_ops.newaxis, ...], n_draw,
                                                    seed)
            x = array_ops.reshape(x, shape=[n, -1])
            return math_ops.reduce_sum(array_ops.one_hot(x, depth=k), axis=-2)

        x = functional_ops.map_fn(_sample_single, [flat_logits, flat_ndraws],
                                  dtype=self.dtype)
        x = array_ops.transpose(x, perm=[1, 0, 2])
        final_shape = array_ops.concat([[n], self.batch_shape_tensor(), [k]], 0)
        return array_ops.reshape(x, final_shape)

    def _log_prob(self, counts: Any) -> ops_lib.Tensor:
        return self._log_unnormalized_prob(counts) - self._log_normalization(counts)

    def _log_unnormalized_prob(self, counts: Any) -> ops_lib.Tensor:
        counts = self._maybe_assert_valid_sample(counts)
        return math_ops.reduce_sum(counts * nn_ops.log_softmax(self.logits), -1)

    def _log_normalization(self, counts: Any) -> ops_lib.Tensor:
        counts = self._maybe_assert_valid_sample(counts)
        return -util.log_combinations(self.total_count, counts)

    def _mean(self) -> ops_lib.Tensor:
        return array_ops.identity(self._mean_val)

    def _covariance(self) -> ops_lib.Tensor:
        p = self.probs * array_ops.ones_like(self.total_count)[..., array_ops.newaxis]
        return linalg_ops.matrix_set_diag(
            -math_ops.matmul(self._mean_val[..., array_ops.newaxis],
                             p[..., array_ops.newaxis, :]), self._variance())

    def _variance(self) -> ops_lib.Tensor:
        p = self.probs * array_ops.ones_like(self.total_count)[..., array_ops.newaxis]
        return self._mean_val - self._mean_val * p

    def _maybe_assert_valid_sample(self, counts: Any) -> ops_lib.Tensor:
        return _with_count_checks(counts, self.total_count, self.validate_args,
                                  "counts must sum to `self.total_count`")


class DirichletMultinomial(_ConcentrationVector):
    """Counts of ``total_count`` draws whose class probabilities are Dirichlet."""

    def __init__(self, total_count: Any, concentration: Any, validate_args: bool = False,
                 allow_nan_stats: bool = True, name: str = "DirichletMultinomial"):
        parameters = dict(locals())
        with ops_lib.name_scope(name, values=[total_count, concentration]) as name:
            self._total_count = convert_to_tensor(total_count, name="total_count")
            if validate_args:
                self._total_count = util.embed_check_nonnegative_integer_form(
                    self._total_count)
            self._concentration = self._maybe_assert_valid_concentration(
                convert_to_tensor(concentration, name="concentration"), validate_args)
            self._total_concentration = math_ops.reduce_sum(self._concentration, -1)
        super().__init__(dtype=self._concentration.dtype, validate_args=validate_args,
                         allow_nan_stats=allow_nan_stats,
                         reparameterization_type=distribution.NOT_REPARAMETERIZED,
                         parameters=parameters,
                         graph_parents=[self._total_count, self._concentration], name=name)

    total_count = param_property("total_count")


    def _sample_n(self, n: Any, seed: int | None = None) -> ops_lib.Tensor:
        n_draws = math_ops.cast(self.total_count, dtype=dtypes.int32)
        k = self.event_shape_tensor()[0]
        unnormalized_logits = array_ops.reshape(math_ops.log(
            random_distribution_ops.random_gamma(shape=[n], alpha=self.concentration,
                                                 dtype=self.dtype, seed=seed)),
            shape=[-1, k])
        draws = random_distribution_ops.multinomial(
            logits=unnormalized_logits, num_samples=n_draws,
            seed=util.gen_new_seed(seed, salt="dirichlet_multinomial"))
        x = math_ops.reduce_sum(array_ops.one_hot(draws, depth=k), -2)
        final_shape = array_ops.concat([[n], self.batch_shape_tensor(), [k]], 0)
        return math_ops.cast(array_ops.reshape(x, final_shape), self.dtype)

    def _log_prob(self, counts: Any) -> ops_lib.Tensor:
        counts = self._maybe_assert_valid_sample(counts)
        ordered_prob = (elementwise_ops.lbeta(self.concentration + counts)
                        - elementwise_ops.lbeta(self.concentration))
        return ordered_prob + util.log_combinations(self.total_count, counts)

    def _prob(self, counts: Any) -> ops_lib.Tensor:
        return math_ops.exp(self._log_prob(counts))

    def _mean(self) -> ops_lib.Tensor:
        return self.total_count * (
            self.concentration / self.total_concentration[..., array_ops.newaxis])

    def _covariance(self) -> ops_lib.Tensor:
        return _outer_covariance(self._variance_scale_term() * self._mean(),
                                 self._variance())

    def _variance(self) -> ops_lib.Tensor:
        scale = self._variance_scale_term()
        x = scale * self._mean()
        return x * (self.total_count * scale - x)

    def _variance_scale_term(self) -> ops_lib.Tensor:
        c0 = self.total_concentration[..., array_ops.newaxis]
        return math_ops.sqrt((1.0 + c0 / self.total_count) / (1.0 + c0))

    def _maybe_assert_valid_concentration(self, concentration: Any,
                                          validate_args: bool) -> ops_lib.Tensor:
        if not validate_args:
            return concentration
        concentration = util.embed_check_categorical_event_shape(concentration)
        return control_flow_ops.with_dependencies([check_ops.assert_positive(
            concentration, message="Concentration parameter must be positive.")],
            concentration)

    def _maybe_assert_valid_sample(self, counts: Any) -> ops_lib.Tensor:
        return _with_count_checks(counts, self.total_count, self.validate_args,
                                  "counts last-dimension must sum to `self.total_count`")
