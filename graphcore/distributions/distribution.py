"""``tf.distributions.Distribution``: the base class of TF1's distributions, its
``ReparameterizationType`` markers, and the public methods (``sample``, ``log_prob``,
``cdf``, ``mean``...) that open the ``<name>/<method>/`` scopes and fall back between
related private methods (``_prob`` from ``_log_prob``, ``_stddev`` from ``_variance``) as
TF's ``distribution.py`` does."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from graphcore.framework import dtypes, tensor_shape, tensor_util
from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, math_ops

__all__ = ["Distribution", "FULLY_REPARAMETERIZED", "NOT_REPARAMETERIZED",
           "ReparameterizationType"]


class ReparameterizationType:
    """Whether samples are a differentiable function of the parameters; compared by
    identity, as TF's instances are."""

    def __init__(self, rep_type: str):
        self._rep_type = rep_type

    def __repr__(self) -> str:
        return f"<Reparameterization Type: {self._rep_type}>"

    def __eq__(self, other: object) -> bool:
        return self is other

    __hash__ = object.__hash__


FULLY_REPARAMETERIZED = ReparameterizationType("FULLY_REPARAMETERIZED")
NOT_REPARAMETERIZED = ReparameterizationType("NOT_REPARAMETERIZED")


def _not_implemented(what: str, obj: Any) -> NotImplementedError:
    return NotImplementedError(f"{what} is not implemented: {type(obj).__name__}")


class Distribution:
    """A batch of probability distributions with samples of ``batch + event`` shape."""

    def __init__(self, dtype: Any, reparameterization_type: ReparameterizationType,
                 validate_args: bool, allow_nan_stats: bool, parameters: dict | None = None,
                 graph_parents: list | None = None, name: str | None = None):
        graph_parents = [] if graph_parents is None else graph_parents
        for i, t in enumerate(graph_parents):
            if t is None or not tensor_util.is_tensor(t):
                raise ValueError(f"Graph parent item {i} is not a Tensor; {t}.")
        if not name or name[-1] != "/":  # not yet a name scope: make one, unique
            with ops_lib.name_scope(name or type(self).__name__) as name:
                pass
        self._dtype = dtype
        self._reparameterization_type = reparameterization_type
        self._allow_nan_stats = allow_nan_stats
        self._validate_args = validate_args
        self._parameters = parameters or {}
        self._graph_parents = graph_parents
        self._name = name

    @property
    def _parameters(self) -> dict:
        return self._parameter_dict

    @_parameters.setter
    def _parameters(self, value: dict) -> None:
        value.pop("self", None)
        self._parameter_dict = value

    @classmethod
    def param_shapes(cls, sample_shape: Any, name: str = "DistributionParamShapes") -> dict:
        """The shapes of the parameters that give samples of shape ``sample_shape``."""
        with ops_lib.name_scope(name, values=[sample_shape]):
            return cls._param_shapes(sample_shape)

    @classmethod
    def param_static_shapes(cls, sample_shape: Any) -> dict:
        if isinstance(sample_shape, tensor_shape.TensorShape):
            if not sample_shape.is_fully_defined():
                raise ValueError("TensorShape sample_shape must be fully defined")
            sample_shape = sample_shape.as_list()
        static = {}
        for name, shape in cls.param_shapes(sample_shape).items():
            value = tensor_util.constant_value(shape)
            if value is None:
                raise ValueError("sample_shape must be a fully-defined TensorShape or "
                                 "list/tuple")
            static[name] = tensor_shape.TensorShape(value)
        return static

    @staticmethod
    def _param_shapes(sample_shape: Any) -> dict:
        raise NotImplementedError("_param_shapes not implemented")

    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self) -> Any:
        return self._dtype

    @property
    def parameters(self) -> dict:
        return {k: v for k, v in self._parameters.items()
                if not k.startswith("__") and k != "self"}

    @property
    def reparameterization_type(self) -> ReparameterizationType:
        return self._reparameterization_type

    @property
    def allow_nan_stats(self) -> bool:
        return self._allow_nan_stats

    @property
    def validate_args(self) -> bool:
        return self._validate_args

    def copy(self, **override_parameters_kwargs: Any) -> Distribution:
        return type(self)(**dict(self.parameters, **override_parameters_kwargs))

    # -- shapes ---------------------------------------------------------------------------

    def _batch_shape_tensor(self) -> Any:
        raise _not_implemented("batch_shape_tensor", self)

    def batch_shape_tensor(self, name: str = "batch_shape_tensor") -> ops_lib.Tensor:
        with self._name_scope(name):
            if self.batch_shape.is_fully_defined():
                return convert_to_tensor(self.batch_shape.as_list(), dtype=dtypes.int32,
                                         name="batch_shape")
            return self._batch_shape_tensor()

    def _batch_shape(self) -> tensor_shape.TensorShape:
        return tensor_shape.TensorShape(None)

    @property
    def batch_shape(self) -> tensor_shape.TensorShape:
        return tensor_shape.as_shape(self._batch_shape())

    def _event_shape_tensor(self) -> Any:
        raise _not_implemented("event_shape_tensor", self)

    def event_shape_tensor(self, name: str = "event_shape_tensor") -> ops_lib.Tensor:
        with self._name_scope(name):
            if self.event_shape.is_fully_defined():
                return convert_to_tensor(self.event_shape.as_list(), dtype=dtypes.int32,
                                         name="event_shape")
            return self._event_shape_tensor()

    def _event_shape(self) -> tensor_shape.TensorShape:
        return tensor_shape.TensorShape(None)

    @property
    def event_shape(self) -> tensor_shape.TensorShape:
        return tensor_shape.as_shape(self._event_shape())

    def is_scalar_event(self, name: str = "is_scalar_event") -> ops_lib.Tensor:
        with self._name_scope(name):
            return convert_to_tensor(
                self._is_scalar_helper(self.event_shape, self.event_shape_tensor),
                name="is_scalar_event")

    def is_scalar_batch(self, name: str = "is_scalar_batch") -> ops_lib.Tensor:
        with self._name_scope(name):
            return convert_to_tensor(
                self._is_scalar_helper(self.batch_shape, self.batch_shape_tensor),
                name="is_scalar_batch")

    # -- sampling -------------------------------------------------------------------------

    def _sample_n(self, n: Any, seed: int | None = None) -> Any:
        raise _not_implemented("sample_n", self)

    def _call_sample_n(self, sample_shape: Any, seed: int | None, name: str,
                       **kwargs: Any) -> ops_lib.Tensor:
        with self._name_scope(name, values=[sample_shape]):
            sample_shape = convert_to_tensor(sample_shape, dtype=dtypes.int32,
                                             name="sample_shape")
            sample_shape, n = self._expand_sample_shape_to_vector(sample_shape, "sample_shape")
            samples = self._sample_n(n, seed, **kwargs)
            batch_event_shape = array_ops.shape(samples)[1:]
            final_shape = array_ops.concat([sample_shape, batch_event_shape], 0)
            samples = array_ops.reshape(samples, final_shape)
            return self._set_sample_static_shape(samples, sample_shape)

    def sample(self, sample_shape: Any = (), seed: int | None = None,
               name: str = "sample") -> ops_lib.Tensor:
        """Samples of shape ``sample_shape + batch_shape + event_shape``."""
        return self._call_sample_n(sample_shape, seed, name)

    # -- densities and distribution functions ---------------------------------------------

    def _call_value_fn(self, value: Any, name: str, primary: str, fallback: str,
                       transform: Any) -> ops_lib.Tensor:
        """``self.<primary>(value)``, else ``transform(self.<fallback>(value))``."""
        with self._name_scope(name, values=[value]):
            value = convert_to_tensor(value, name="value", preferred_dtype=self.dtype)
            try:
                return getattr(self, primary)(value)
            except NotImplementedError as original_exception:
                try:
                    return transform(getattr(self, fallback)(value))
                except NotImplementedError:
                    raise original_exception from None

    def _log_prob(self, value: Any) -> Any:
        raise _not_implemented("log_prob", self)

    def log_prob(self, value: Any, name: str = "log_prob") -> ops_lib.Tensor:
        return self._call_value_fn(value, name, "_log_prob", "_prob", math_ops.log)

    def _prob(self, value: Any) -> Any:
        raise _not_implemented("prob", self)

    def prob(self, value: Any, name: str = "prob") -> ops_lib.Tensor:
        return self._call_value_fn(value, name, "_prob", "_log_prob", math_ops.exp)

    def _log_cdf(self, value: Any) -> Any:
        raise _not_implemented("log_cdf", self)

    def log_cdf(self, value: Any, name: str = "log_cdf") -> ops_lib.Tensor:
        return self._call_value_fn(value, name, "_log_cdf", "_cdf", math_ops.log)

    def _cdf(self, value: Any) -> Any:
        raise _not_implemented("cdf", self)

    def cdf(self, value: Any, name: str = "cdf") -> ops_lib.Tensor:
        return self._call_value_fn(value, name, "_cdf", "_log_cdf", math_ops.exp)

    def _log_survival_function(self, value: Any) -> Any:
        raise _not_implemented("log_survival_function", self)

    def log_survival_function(self, value: Any,
                              name: str = "log_survival_function") -> ops_lib.Tensor:
        return self._call_value_fn(value, name, "_log_survival_function", "cdf",
                                   lambda cdf: math_ops.log1p(-cdf))

    def _survival_function(self, value: Any) -> Any:
        raise _not_implemented("survival_function", self)

    def survival_function(self, value: Any,
                          name: str = "survival_function") -> ops_lib.Tensor:
        return self._call_value_fn(value, name, "_survival_function", "cdf",
                                   lambda cdf: 1.0 - cdf)

    def _quantile(self, value: Any) -> Any:
        raise _not_implemented("quantile", self)

    def quantile(self, value: Any, name: str = "quantile") -> ops_lib.Tensor:
        with self._name_scope(name, values=[value]):
            value = convert_to_tensor(value, name="value", preferred_dtype=self.dtype)
            return self._quantile(value)

    # -- statistics -----------------------------------------------------------------------

    def _entropy(self) -> Any:
        raise _not_implemented("entropy", self)

    def entropy(self, name: str = "entropy") -> ops_lib.Tensor:
        with self._name_scope(name):
            return self._entropy()

    def _mean(self) -> Any:
        raise _not_implemented("mean", self)

    def mean(self, name: str = "mean") -> ops_lib.Tensor:
        with self._name_scope(name):
            return self._mean()

    def _variance(self) -> Any:
        raise _not_implemented("variance", self)

    def variance(self, name: str = "variance") -> ops_lib.Tensor:
        with self._name_scope(name):
            try:
                return self._variance()
            except NotImplementedError as original_exception:
                try:
                    return math_ops.square(self._stddev())
                except NotImplementedError:
                    raise original_exception from None

    def _stddev(self) -> Any:
        raise _not_implemented("stddev", self)

    def stddev(self, name: str = "stddev") -> ops_lib.Tensor:
        with self._name_scope(name):
            try:
                return self._stddev()
            except NotImplementedError as original_exception:
                try:
                    return math_ops.sqrt(self._variance())
                except NotImplementedError:
                    raise original_exception from None

    def _covariance(self) -> Any:
        raise _not_implemented("covariance", self)

    def covariance(self, name: str = "covariance") -> ops_lib.Tensor:
        with self._name_scope(name):
            return self._covariance()

    def _mode(self) -> Any:
        raise _not_implemented("mode", self)

    def mode(self, name: str = "mode") -> ops_lib.Tensor:
        with self._name_scope(name):
            return self._mode()

    def _cross_entropy(self, other: Distribution) -> Any:
        from graphcore.distributions import kullback_leibler

        return kullback_leibler.cross_entropy(self, other,
                                              allow_nan_stats=self.allow_nan_stats)

    def cross_entropy(self, other: Distribution,
                      name: str = "cross_entropy") -> ops_lib.Tensor:
        with self._name_scope(name):
            return self._cross_entropy(other)

    def _kl_divergence(self, other: Distribution) -> Any:
        from graphcore.distributions import kullback_leibler

        return kullback_leibler.kl_divergence(self, other,
                                              allow_nan_stats=self.allow_nan_stats)

    def kl_divergence(self, other: Distribution,
                      name: str = "kl_divergence") -> ops_lib.Tensor:
        with self._name_scope(name):
            return self._kl_divergence(other)

    def __str__(self) -> str:
        batch = (f", batch_shape={self.batch_shape}"
                 if self.batch_shape.ndims is not None else "")
        event = (f", event_shape={self.event_shape}"
                 if self.event_shape.ndims is not None else "")
        return (f'tfp.distributions.{type(self).__name__}("{self.name}"{batch}{event}, '
                f"dtype={self.dtype.name})")

    def __repr__(self) -> str:
        return (f"<tfp.distributions.{type(self).__name__} '{self.name}' "
                f"batch_shape={self.batch_shape} event_shape={self.event_shape} "
                f"dtype={self.dtype.name}>")

    # -- helpers --------------------------------------------------------------------------

    @contextlib.contextmanager
    def _name_scope(self, name: str | None = None, values: list | None = None) -> Iterator:
        with ops_lib.name_scope(self.name):
            with ops_lib.name_scope(name, values=(values or []) + self._graph_parents) \
                    as scope:
                yield scope

    def _expand_sample_shape_to_vector(self, x: ops_lib.Tensor, name: str) -> tuple:
        """``x`` as a vector, and the number of samples it asks for."""
        static = tensor_util.constant_value(x)
        if static is None:
            prod = math_ops.reduce_prod(x)
        else:
            prod = np.prod(static, dtype=x.dtype.as_numpy_dtype())
        ndims = x.get_shape().ndims
        if ndims is None:
            ndims = array_ops.rank(x)
            expanded = math_ops.where_v2(math_ops.equal(ndims, 0), [1], array_ops.shape(x))
            x = array_ops.reshape(x, array_ops.reshape(expanded, [-1]))
        elif ndims == 0:
            if static is not None:
                x = convert_to_tensor(np.array([static], dtype=x.dtype.as_numpy_dtype()),
                                      name=name)
            else:
                x = array_ops.reshape(x, [1])
        elif ndims != 1:
            raise ValueError("Input is neither scalar nor vector.")
        return x, prod

    def _set_sample_static_shape(self, x: ops_lib.Tensor,
                                 sample_shape: ops_lib.Tensor) -> ops_lib.Tensor:
        sample_shape = tensor_shape.TensorShape(tensor_util.constant_value(sample_shape))
        ndims = x.get_shape().ndims
        sample_ndims = sample_shape.ndims
        batch_ndims = self.batch_shape.ndims
        event_ndims = self.event_shape.ndims
        if (ndims is None and sample_ndims is not None and batch_ndims is not None
                and event_ndims is not None):
            ndims = sample_ndims + batch_ndims + event_ndims
            x.set_shape([None] * ndims)
        if ndims is not None and sample_ndims is not None:
            x.set_shape(x.get_shape().merge_with(
                sample_shape.concatenate([None] * (ndims - sample_ndims))))
        if ndims is not None and event_ndims is not None:
            x.set_shape(x.get_shape().merge_with(tensor_shape.TensorShape(
                [None] * (ndims - event_ndims)).concatenate(self.event_shape)))
        if batch_ndims is not None:
            if ndims is not None:
                if sample_ndims is None and event_ndims is not None:
                    sample_ndims = ndims - batch_ndims - event_ndims
                elif event_ndims is None and sample_ndims is not None:
                    event_ndims = ndims - batch_ndims - sample_ndims
            if sample_ndims is not None and event_ndims is not None:
                x.set_shape(x.get_shape().merge_with(
                    tensor_shape.TensorShape([None] * sample_ndims)
                    .concatenate(self.batch_shape).concatenate([None] * event_ndims)))
        return x

    def _is_scalar_helper(self, static_shape: tensor_shape.TensorShape,
                          dynamic_shape_fn: Any) -> Any:
        if static_shape.ndims is not None:
            return static_shape.ndims == 0
        shape = dynamic_shape_fn()
        if shape.get_shape().ndims is not None and shape.get_shape().dims[0].value is not None:
            return shape.get_shape().as_list() == [0]
        return math_ops.equal(array_ops.shape(shape)[0], 0)
