"""``tf.distributions.Normal`` and its KL divergence against another Normal; samples are
``loc + scale * random_normal`` so gradients reach both parameters."""

from __future__ import annotations

import math
from typing import Any

from graphcore.distributions import distribution, kullback_leibler, util
from graphcore.framework import dtypes, tensor_shape
from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, check_ops, elementwise_ops, manip_ops, math_ops, random_ops

__all__ = ["Normal"]


def positive_params(names_values: dict, validate_args: bool, positive: tuple) -> list:
    """The parameters as Identity tensors named after them, after ``assert_positive`` on
    those named in ``positive`` when ``validate_args``; all of one float dtype."""
    checks = ([check_ops.assert_positive(names_values[n]) for n in positive]
              if validate_args else [])
    with ops_lib.control_dependencies(checks):
        params = [array_ops.identity(v, name=n) for n, v in names_values.items()]
        check_ops.assert_same_float_dtype(params)
    return params


def scalar_event(self: Any) -> Any:
    return tensor_shape.TensorShape([])


def scalar_event_tensor(self: Any) -> ops_lib.Tensor:
    return array_ops.constant([], dtype=dtypes.int32)


def same_shapes(*names: str) -> Any:
    """A ``_param_shapes`` giving every parameter the sample shape."""

    def _param_shapes(sample_shape: Any) -> dict:
        return {n: convert_to_tensor(sample_shape, dtype=dtypes.int32) for n in names}

    return staticmethod(_param_shapes)


def broadcast_batch_shape(*params: ops_lib.Tensor) -> tensor_shape.TensorShape:
    shape = params[0].get_shape()
    for p in params[1:]:
        shape = manip_ops.broadcast_static_shape(shape, p.get_shape())
    return shape


def broadcast_batch_shape_tensor(*params: ops_lib.Tensor) -> ops_lib.Tensor:
    shape = array_ops.shape(params[-1])
    for p in reversed(params[:-1]):
        shape = manip_ops.broadcast_dynamic_shape(array_ops.shape(p), shape)
    return shape


def param_property(name: str) -> property:
    """The read-only property of the tensor held as ``self._<name>``."""
    return property(lambda self: getattr(self, "_" + name),
                    doc=f"The ``{name}`` of this distribution (read-only).")


class BroadcastParamsDistribution(distribution.Distribution):
    """A distribution of scalar events whose batch shape is its parameters' broadcast
    shape (Normal, Laplace, StudentT, Gamma, Uniform); ``_params`` names the parameter
    tensors, held as ``self._<name>``."""

    _params: tuple = ()
    _event_shape = scalar_event
    _event_shape_tensor = scalar_event_tensor

    @classmethod
    def _param_shapes(cls, sample_shape: Any) -> dict:
        return {n: convert_to_tensor(sample_shape, dtype=dtypes.int32) for n in cls._params}

    def _init_params(self, params: dict, positive: tuple, validate_args: bool,
                     allow_nan_stats: bool, parameters: dict, name: str) -> None:
        """``positive_params`` under the ``name`` scope, then the Distribution's own init
        (fully reparameterized, the parameters its graph parents)."""
        with ops_lib.name_scope(name, values=list(params.values())) as name:
            tensors = positive_params(params, validate_args, positive)
        for n, t in zip(params, tensors):
            setattr(self, "_" + n, t)
        distribution.Distribution.__init__(
            self, dtype=tensors[0].dtype,
            reparameterization_type=distribution.FULLY_REPARAMETERIZED,
            validate_args=validate_args, allow_nan_stats=allow_nan_stats,
            parameters=parameters, graph_parents=tensors, name=name)

    def _param_tensors(self) -> list:
        return [getattr(self, "_" + n) for n in self._params]

    def _batch_shape_tensor(self) -> ops_lib.Tensor:
        return broadcast_batch_shape_tensor(*self._param_tensors())

    def _batch_shape(self) -> tensor_shape.TensorShape:
        return broadcast_batch_shape(*self._param_tensors())


class Normal(BroadcastParamsDistribution):
    """The normal distribution with mean ``loc`` and standard deviation ``scale``."""

    def __init__(self, loc: Any, scale: Any, validate_args: bool = False,
                 allow_nan_stats: bool = True, name: str = "Normal"):
        self._init_params({"loc": loc, "scale": scale}, ("scale",), validate_args,
                          allow_nan_stats, dict(locals()), name)

    _params = ("loc", "scale")
    loc = param_property("loc")
    scale = param_property("scale")

    def _sample_n(self, n: Any, seed: int | None = None) -> ops_lib.Tensor:
        shape = array_ops.concat([[n], self.batch_shape_tensor()], 0)
        sampled = random_ops.random_normal(shape=shape, mean=0.0, stddev=1.0,
                                           dtype=self.loc.dtype, seed=seed)
        return sampled * self.scale + self.loc

    def _log_prob(self, x: Any) -> ops_lib.Tensor:
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _log_cdf(self, x: Any) -> ops_lib.Tensor:
        return util.log_ndtr(self._z(x))

    def _cdf(self, x: Any) -> ops_lib.Tensor:
        return util.ndtr(self._z(x))

    def _log_survival_function(self, x: Any) -> ops_lib.Tensor:
        return util.log_ndtr(-self._z(x))

    def _survival_function(self, x: Any) -> ops_lib.Tensor:
        return util.ndtr(-self._z(x))

    def _log_unnormalized_prob(self, x: Any) -> ops_lib.Tensor:
        return -0.5 * math_ops.square(self._z(x))

    def _log_normalization(self) -> ops_lib.Tensor:
        return 0.5 * math.log(2.0 * math.pi) + math_ops.log(self.scale)

    def _entropy(self) -> ops_lib.Tensor:
        scale = self.scale * array_ops.ones_like(self.loc)
        return 0.5 * math.log(2.0 * math.pi * math.e) + math_ops.log(scale)

    def _mean(self) -> ops_lib.Tensor:
        return self.loc * array_ops.ones_like(self.scale)

    def _quantile(self, p: Any) -> ops_lib.Tensor:
        return self._inv_z(elementwise_ops.ndtri(p))

    def _stddev(self) -> ops_lib.Tensor:
        return self.scale * array_ops.ones_like(self.loc)

    def _mode(self) -> ops_lib.Tensor:
        return self._mean()

    def _z(self, x: Any) -> ops_lib.Tensor:
        with ops_lib.name_scope("standardize", values=[x]):
            return (x - self.loc) / self.scale

    def _inv_z(self, z: Any) -> ops_lib.Tensor:
        with ops_lib.name_scope("reconstruct", values=[z]):
            return z * self.scale + self.loc


@kullback_leibler.RegisterKL(Normal, Normal)
def _kl_normal_normal(n_a: Normal, n_b: Normal, name: str | None = None) -> ops_lib.Tensor:
    with ops_lib.name_scope(name, "kl_normal_normal", [n_a.loc, n_b.loc]):
        one = array_ops.constant(1, dtype=n_a.dtype)
        two = array_ops.constant(2, dtype=n_a.dtype)
        half = array_ops.constant(0.5, dtype=n_a.dtype)
        s_a_squared = math_ops.square(n_a.scale)
        s_b_squared = math_ops.square(n_b.scale)
        ratio = s_a_squared / s_b_squared
        return (math_ops.squared_difference(n_a.loc, n_b.loc) / (two * s_b_squared)
                + half * (ratio - one - math_ops.log(ratio)))
