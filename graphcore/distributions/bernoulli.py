"""``tf.distributions.Bernoulli`` and ``tf.distributions.Categorical`` (parameterized by
``logits`` or ``probs``) with their KL divergences."""

from __future__ import annotations

from typing import Any

from graphcore.distributions import distribution, kullback_leibler, util
from graphcore.distributions.normal import param_property, scalar_event, scalar_event_tensor
from graphcore.framework import dtypes, tensor_shape
from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import (
    array_ops,
    math_ops,
    nn_impl,
    nn_ops,
    random_distribution_ops,
    random_ops,
)

__all__ = ["Bernoulli", "Categorical"]


class Bernoulli(distribution.Distribution):
    """A 0/1 outcome with P(1) = ``probs`` = sigmoid(``logits``)."""

    def __init__(self, logits: Any = None, probs: Any = None, dtype: Any = dtypes.int32,
                 validate_args: bool = False, allow_nan_stats: bool = True,
                 name: str = "Bernoulli"):
        parameters = dict(locals())
        with ops_lib.name_scope(name) as name:
            self._logits, self._probs = util.get_logits_and_probs(
                logits=logits, probs=probs, validate_args=validate_args, name=name)
        super().__init__(dtype=dtype,
                         reparameterization_type=distribution.NOT_REPARAMETERIZED,
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats,
                         parameters=parameters, graph_parents=[self._logits, self._probs],
                         name=name)

    @staticmethod
    def _param_shapes(sample_shape: Any) -> dict:
        return {"logits": convert_to_tensor(sample_shape, dtype=dtypes.int32)}

    _event_shape = scalar_event
    _event_shape_tensor = scalar_event_tensor

    logits = param_property("logits")
    probs = param_property("probs")

    def _batch_shape_tensor(self) -> ops_lib.Tensor:
        return array_ops.shape(self._logits)

    def _batch_shape(self) -> tensor_shape.TensorShape:
        return self._logits.get_shape()

    def _sample_n(self, n: Any, seed: int | None = None) -> ops_lib.Tensor:
        new_shape = array_ops.concat([[n], self.batch_shape_tensor()], 0)
        uniform = random_ops.random_uniform(new_shape, seed=seed, dtype=self.probs.dtype)
        return math_ops.cast(math_ops.less(uniform, self.probs), self.dtype)

    def _log_prob(self, event: Any) -> ops_lib.Tensor:
        if self.validate_args:
            event = util.embed_check_integer_casting_closed(event, target_dtype=dtypes.bool)
        event = math_ops.cast(event, self.logits.dtype)
        logits = self.logits
        if not (event.get_shape().is_fully_defined()
                and logits.get_shape().is_fully_defined()
                and event.get_shape() == logits.get_shape()):
            logits, event = (array_ops.ones_like(event) * logits,
                             array_ops.ones_like(logits) * event)
        return -nn_impl.sigmoid_cross_entropy_with_logits(labels=event, logits=logits)

    def _entropy(self) -> ops_lib.Tensor:
        return (-self.logits * (math_ops.sigmoid(self.logits) - 1)
                + nn_ops.softplus(-self.logits))

    def _mean(self) -> ops_lib.Tensor:
        return array_ops.identity(self.probs)

    def _variance(self) -> ops_lib.Tensor:
        return self._mean() * (1.0 - self.probs)

    def _mode(self) -> ops_lib.Tensor:
        return math_ops.cast(self.probs > 0.5, self.dtype)


@kullback_leibler.RegisterKL(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(a: Bernoulli, b: Bernoulli,
                            name: str | None = None) -> ops_lib.Tensor:
    with ops_lib.name_scope(name, "kl_bernoulli_bernoulli", values=[a.logits, b.logits]):
        delta_probs0 = nn_ops.softplus(-b.logits) - nn_ops.softplus(-a.logits)
        delta_probs1 = nn_ops.softplus(b.logits) - nn_ops.softplus(a.logits)
        return (math_ops.sigmoid(a.logits) * delta_probs0
                + math_ops.sigmoid(-a.logits) * delta_probs1)


class Categorical(distribution.Distribution):
    """One of K classes (the last axis of ``logits`` / ``probs``)."""

    def __init__(self, logits: Any = None, probs: Any = None, dtype: Any = dtypes.int32,
                 validate_args: bool = False, allow_nan_stats: bool = True,
                 name: str = "Categorical"):
        parameters = dict(locals())
        with ops_lib.name_scope(name, values=[logits, probs]) as name:
            self._logits, self._probs = util.get_logits_and_probs(
                logits=logits, probs=probs, validate_args=validate_args,
                multidimensional=True, name=name)
            if validate_args:
                self._logits = util.embed_check_categorical_event_shape(self._logits)
            static = self._logits.get_shape().with_rank_at_least(1)
            if static.ndims is not None:
                self._batch_rank = convert_to_tensor(static.ndims - 1, dtype=dtypes.int32,
                                                     name="batch_rank")
            else:
                with ops_lib.name_scope("batch_rank"):
                    self._batch_rank = array_ops.rank(self._logits) - 1
            logits_shape = array_ops.shape(self._logits, name="logits_shape")
            if static.dims[-1].value is not None:
                self._event_size = convert_to_tensor(static.dims[-1].value,
                                                     dtype=dtypes.int32, name="event_size")
            else:
                with ops_lib.name_scope("event_size"):
                    self._event_size = logits_shape[self._batch_rank]
            if static[:-1].is_fully_defined():
                self._batch_shape_val = array_ops.constant(
                    static[:-1].as_list(), dtype=dtypes.int32, name="batch_shape")
            else:
                with ops_lib.name_scope("batch_shape"):
                    self._batch_shape_val = logits_shape[:-1]
        super().__init__(dtype=dtype,
                         reparameterization_type=distribution.NOT_REPARAMETERIZED,
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats,
                         parameters=parameters, graph_parents=[self._logits, self._probs],
                         name=name)

    _event_shape = scalar_event
    _event_shape_tensor = scalar_event_tensor

    event_size = param_property("event_size")
    logits = param_property("logits")
    probs = param_property("probs")

    def _batch_shape_tensor(self) -> ops_lib.Tensor:
        return array_ops.identity(self._batch_shape_val)

    def _batch_shape(self) -> tensor_shape.TensorShape:
        return self.logits.get_shape()[:-1]

    def _sample_n(self, n: Any, seed: int | None = None) -> ops_lib.Tensor:
        if self.logits.get_shape().ndims == 2:
            logits_2d = self.logits
        else:
            logits_2d = array_ops.reshape(self.logits, [-1, self.event_size])
        sample_dtype = dtypes.int64 if self.dtype.size > 4 else dtypes.int32
        draws = random_distribution_ops.multinomial(logits_2d, n, seed=seed,
                                                    output_dtype=sample_dtype)
        draws = array_ops.reshape(array_ops.transpose(draws),
                                  array_ops.concat([[n], self.batch_shape_tensor()], 0))
        return math_ops.cast(draws, self.dtype)

    def _cdf(self, k: Any) -> ops_lib.Tensor:
        k = convert_to_tensor(k, name="k")
        if self.validate_args:
            k = util.embed_check_integer_casting_closed(k, target_dtype=dtypes.int32)
        k, probs = util.broadcast_cat_event_and_params(k, self.probs,
                                                       base_dtype=self.dtype.base_dtype)
        flat_probs = array_ops.reshape(probs, (-1, self._event_size))
        flat_k = array_ops.reshape(k, [-1])
        to_sum_over = array_ops.where(array_ops.sequence_mask(flat_k, self._event_size),
                                      flat_probs, array_ops.zeros_like(flat_probs))
        return array_ops.reshape(math_ops.reduce_sum(to_sum_over, axis=-1),
                                 array_ops.shape(k))

    def _log_prob(self, k: Any) -> ops_lib.Tensor:
        k = convert_to_tensor(k, name="k")
        if self.validate_args:
            k = util.embed_check_integer_casting_closed(k, target_dtype=dtypes.int32)
        k, logits = util.broadcast_cat_event_and_params(k, self.logits,
                                                        base_dtype=self.dtype.base_dtype)
        return -nn_ops.sparse_softmax_cross_entropy_with_logits(labels=k, logits=logits)

    def _entropy(self) -> ops_lib.Tensor:
        return -math_ops.reduce_sum(nn_ops.log_softmax(self.logits) * self.probs, axis=-1)

    def _mode(self) -> ops_lib.Tensor:
        ret = math_ops.cast(math_ops.argmax(self.logits, axis=self._batch_rank), self.dtype)
        ret.set_shape(self.batch_shape)
        return ret


@kullback_leibler.RegisterKL(Categorical, Categorical)
def _kl_categorical_categorical(a: Categorical, b: Categorical,
                                name: str | None = None) -> ops_lib.Tensor:
    with ops_lib.name_scope(name, "kl_categorical_categorical",
                            values=[a.logits, b.logits]):
        delta_log_probs1 = nn_ops.log_softmax(a.logits) - nn_ops.log_softmax(b.logits)
        return math_ops.reduce_sum(nn_ops.softmax(a.logits) * delta_log_probs1, axis=-1)
