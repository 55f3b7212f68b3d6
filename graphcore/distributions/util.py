"""Helpers the distributions share (TF's ``distributions/util.py`` and
``special_math.py`` parts they use): logits/probs conversion, argument checks embedded as
control dependencies, ``log_combinations``, ``gen_new_seed``, and the normal and Laplace
CDFs in log space (``ndtr``, ``log_ndtr``, ``log_cdf_laplace``)."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from graphcore.framework import dtypes
from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, check_ops, control_flow_ops, elementwise_ops, math_ops, nn_ops

# log_ndtr switches to -ndtr(-x) above the upper bound and to the asymptotic series below
# the lower one (TF's LOGNDTR_FLOAT{32,64}_{LOWER,UPPER}).
_LOGNDTR_BOUNDS = {dtypes.float32: (np.float32(-10), np.float32(5)),
                   dtypes.float64: (np.float64(-20), np.float64(8))}


def get_logits_and_probs(logits: Any = None, probs: Any = None,
                         multidimensional: bool = False, validate_args: bool = False,
                         name: str = "get_logits_and_probs", dtype: Any = None) -> tuple:
    """(logits, probs) from exactly one of them: sigmoid/log-odds for a Bernoulli,
    softmax/log for a categorical (``multidimensional``)."""
    with ops_lib.name_scope(name, values=[probs, logits]):
        if (probs is None) == (logits is None):
            raise ValueError("Must pass probs or logits, but not both.")
        if probs is None:
            logits = convert_to_tensor(logits, name="logits", dtype=dtype)
            if not logits.dtype.is_floating:
                raise TypeError("logits must having floating type.")
            if multidimensional:
                if validate_args:
                    logits = embed_check_categorical_event_shape(logits)
                return logits, nn_ops.softmax(logits, name="probs")
            return logits, math_ops.sigmoid(logits, name="probs")
        probs = convert_to_tensor(probs, name="probs", dtype=dtype)
        if not probs.dtype.is_floating:
            raise TypeError("probs must having floating type.")
        if validate_args:
            with ops_lib.name_scope("validate_probs"):
                one = array_ops.constant(1.0, probs.dtype)
                deps = [check_ops.assert_non_negative(probs)]
                if multidimensional:
                    probs = embed_check_categorical_event_shape(probs)
                    deps.append(check_ops.assert_near(math_ops.reduce_sum(probs, -1), one,
                                                      message="probs does not sum to 1."))
                else:
                    deps.append(check_ops.assert_less_equal(
                        probs, one, message="probs has components greater than 1."))
                probs = control_flow_ops.with_dependencies(deps, probs)
        with ops_lib.name_scope("logits"):
            if multidimensional:
                return math_ops.log(probs), probs
            return math_ops.log(probs) - math_ops.log1p(-1.0 * probs), probs


def _largest_integer_by_dtype(dt: Any) -> int:
    if dt.is_floating:
        return int(2 ** (np.finfo(dt.as_numpy_dtype).nmant + 1))
    if dt.is_integer:
        return int(np.iinfo(dt.as_numpy_dtype).max)
    if dt.base_dtype == dtypes.bool:
        return 1
    raise TypeError(f"Unrecognized dtype: {dt.name}")


def _smallest_integer_by_dtype(dt: Any) -> int:
    if dt.base_dtype in (dtypes.bool, dtypes.uint8, dtypes.uint16):
        return 0
    return -1 * _largest_integer_by_dtype(dt)


def _is_integer_like(dt: Any) -> bool:
    return dt.is_integer or dt.base_dtype == dtypes.bool


def embed_check_categorical_event_shape(
        categorical_param: Any,
        name: str = "embed_check_categorical_event_shape") -> ops_lib.Tensor:
    """``categorical_param`` after checks that its last dimension has 2 or more events
    and no more than its float dtype counts exactly."""
    with ops_lib.name_scope(name, values=[categorical_param]):
        x = convert_to_tensor(categorical_param, name="categorical_param")
        x_dtype = x.dtype.base_dtype
        max_event_size = _largest_integer_by_dtype(x_dtype) if x_dtype.is_floating else 0
        if max_event_size == 0:
            raise TypeError(f"Unable to validate size of unrecognized dtype ({x_dtype.name}).")
        try:
            static = x.get_shape().with_rank_at_least(1)
        except ValueError:
            raise ValueError("A categorical-distribution parameter must have at least 1 "
                             "dimension.") from None
        if static.dims[-1].value is not None:
            event_size = static.dims[-1].value
            if event_size < 2:
                raise ValueError("A categorical-distribution parameter must have at least 2 "
                                 "events.")
            if event_size > max_event_size:
                raise ValueError(f"Number of classes exceeds `dtype` precision, i.e., "
                                 f"{x_dtype.name} implies shape ({event_size}) cannot exceed "
                                 f"{max_event_size}.")
            return x
        event_size = array_ops.shape(x, name="x_shape")[-1]
        return control_flow_ops.with_dependencies([
            check_ops.assert_rank_at_least(
                x, 1, message="A categorical-distribution parameter must have at least 1 "
                              "dimension."),
            check_ops.assert_greater_equal(
                array_ops.shape(x)[-1], 2,
                message="A categorical-distribution parameter must have at least 2 events."),
            check_ops.assert_less_equal(
                event_size, max_event_size,
                message=f"Number of classes exceeds `dtype` precision, i.e., {x_dtype.name} "
                        f"dtype cannot exceed {max_event_size} shape.")], x)


def assert_integer_form(x: Any, data: Any = None, summarize: Any = None,
                        message: str | None = None, int_dtype: Any = None,
                        name: str = "assert_integer_form") -> ops_lib.Operation:
    """An assertion that ``x`` has no fractional components."""
    with ops_lib.name_scope(name, values=[x, data]):
        x = convert_to_tensor(x, name="x")
        if x.dtype.is_integer:
            return control_flow_ops.no_op()
        message = message or f"{x} has non-integer components"
        if int_dtype is None:
            try:
                int_dtype = {dtypes.float16: dtypes.int16, dtypes.float32: dtypes.int32,
                             dtypes.float64: dtypes.int64}[x.dtype.base_dtype]
            except KeyError:
                raise TypeError(f"Unrecognized type {x.dtype.name}") from None
        return check_ops.assert_equal(x, math_ops.cast(math_ops.cast(x, int_dtype), x.dtype),
                                      data=data, summarize=summarize, message=message,
                                      name=name)


def embed_check_nonnegative_integer_form(
        x: Any, name: str = "embed_check_nonnegative_integer_form") -> ops_lib.Tensor:
    with ops_lib.name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        assertions = [check_ops.assert_non_negative(x, message=f"'{x}' must be non-negative.")]
        if not x.dtype.is_integer:
            assertions.append(assert_integer_form(
                x, message=f"'{x}' cannot contain fractional components."))
        return control_flow_ops.with_dependencies(assertions, x)


def embed_check_integer_casting_closed(x: Any, target_dtype: Any,
                                       assert_nonnegative: bool = True,
                                       name: str = "embed_check_casting_closed") -> Any:
    """``x`` after checks that casting it to ``target_dtype`` loses nothing."""
    with ops_lib.name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        if not _is_integer_like(x.dtype) and not x.dtype.is_floating:
            raise TypeError(f"{x.dtype.name}.dtype must be floating- or integer-type.")
        if not _is_integer_like(target_dtype) and not target_dtype.is_floating:
            raise TypeError(f"target_dtype ({target_dtype.name}) must be floating- or "
                            "integer-type.")
        if not _is_integer_like(x.dtype) and not _is_integer_like(target_dtype):
            raise TypeError(f"At least one of {x}.dtype ({x.dtype.name}) and target_dtype "
                            f"({target_dtype.name}) must be integer-type.")
        assertions = []
        if assert_nonnegative:
            assertions.append(check_ops.assert_non_negative(
                x, message="Elements must be non-negative."))
        if x.dtype.is_floating:
            assertions.append(assert_integer_form(
                x, int_dtype=target_dtype,
                message=f"Elements must be {target_dtype.name}-equivalent."))
        else:
            largest = _largest_integer_by_dtype(target_dtype)
            if _largest_integer_by_dtype(x.dtype) > largest:
                assertions.append(check_ops.assert_less_equal(
                    x, largest, message=f"Elements cannot exceed {largest}."))
            smallest = _smallest_integer_by_dtype(target_dtype)
            if not assert_nonnegative and _smallest_integer_by_dtype(x.dtype) < smallest:
                assertions.append(check_ops.assert_greater_equal(
                    x, smallest, message=f"Elements cannot be smaller than {smallest}."))
        if not assertions:
            return x
        return control_flow_ops.with_dependencies(assertions, x)


def log_combinations(n: Any, counts: Any, name: str = "log_combinations") -> ops_lib.Tensor:
    """log(n! / prod(counts!)), the multinomial coefficient over the last axis."""
    with ops_lib.name_scope(name, values=[n, counts]):
        n = convert_to_tensor(n, name="n")
        counts = convert_to_tensor(counts, name="counts")
        total_permutations = elementwise_ops.lgamma(n + 1)
        redundant = math_ops.reduce_sum(elementwise_ops.lgamma(counts + 1), axis=[-1])
        return total_permutations - redundant


def gen_new_seed(seed: int | None, salt: str) -> int | None:
    """A seed derived from ``seed`` and ``salt`` (TF's md5 recipe), None stays None."""
    if seed is None:
        return None
    digest = hashlib.md5((str(seed) + salt).encode("utf-8")).hexdigest()
    return int(digest[:8], 16) & 0x7FFFFFFF


def broadcast_cat_event_and_params(event: Any, params: Any, base_dtype: Any) -> tuple:
    """Integer ``event`` and ``params`` (with a trailing class axis) broadcast together."""
    if event.dtype.is_floating:
        event = math_ops.cast(event, dtype=dtypes.int32)
    elif not event.dtype.is_integer:
        raise TypeError(f"`value` should have integer `dtype` or `self.dtype` ({base_dtype})")
    known = (params.shape.ndims is not None and params.shape[:-1].is_fully_defined()
             and event.shape.is_fully_defined())
    if not known or params.shape[:-1] != event.shape:
        params *= array_ops.ones_like(event[..., array_ops.newaxis], dtype=params.dtype)
        params_shape = array_ops.shape(params)[:-1]
        event *= array_ops.ones(params_shape, dtype=event.dtype)
        if params.shape.ndims is not None:
            event.set_shape(params.shape[:-1])
    return event, params


def _ndtr(x: ops_lib.Tensor) -> ops_lib.Tensor:
    half_sqrt_2 = array_ops.constant(0.5 * np.sqrt(2.0), dtype=x.dtype, name="half_sqrt_2")
    w = x * half_sqrt_2
    z = math_ops.abs(w)
    y = math_ops.where_v2(
        math_ops.less(z, half_sqrt_2), 1.0 + elementwise_ops.erf(w),
        math_ops.where_v2(math_ops.greater(w, 0.0), 2.0 - elementwise_ops.erfc(z),
                          elementwise_ops.erfc(z)))
    return 0.5 * y


def ndtr(x: Any, name: str = "ndtr") -> ops_lib.Tensor:
    """The standard normal CDF, accurate in both tails."""
    with ops_lib.name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        if x.dtype.base_dtype not in (dtypes.float32, dtypes.float64):
            raise TypeError(f"x.dtype={x.dtype} is not handled, see docstring for supported "
                            "types.")
        return _ndtr(x)


def _double_factorial(n: int) -> int:
    return int(np.prod(np.arange(n, 1, -2)))


def _log_ndtr_lower(x: ops_lib.Tensor, series_order: int) -> ops_lib.Tensor:
    x_2 = math_ops.square(x)
    log_scale = -0.5 * x_2 - math_ops.log(-x) - 0.5 * np.log(2.0 * np.pi)
    dtype = x.dtype.as_numpy_dtype
    if series_order <= 0:
        series = np.array(1, dtype)
    else:
        x_2 = math_ops.square(x)  # TF squares again here: the same nodes as TF's
        even_sum = array_ops.zeros_like(x)
        odd_sum = array_ops.zeros_like(x)
        x_2n = x_2
        for n in range(1, series_order + 1):
            y = np.array(_double_factorial(2 * n - 1), dtype) / x_2n
            if n % 2:
                odd_sum += y
            else:
                even_sum += y
            x_2n *= x_2
        series = 1.0 + even_sum - odd_sum
    return log_scale + math_ops.log(series)


def log_ndtr(x: Any, series_order: int = 3, name: str = "log_ndtr") -> ops_lib.Tensor:
    """log of the standard normal CDF: -ndtr(-x) in the upper tail, an asymptotic series
    of ``series_order`` terms in the lower."""
    if not isinstance(series_order, int):
        raise TypeError("series_order must be a Python integer.")
    if series_order < 0:
        raise ValueError("series_order must be non-negative.")
    if series_order > 30:
        raise ValueError("series_order must be <= 30.")
    with ops_lib.name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        if x.dtype.base_dtype not in _LOGNDTR_BOUNDS:
            raise TypeError(f"x.dtype={x.dtype} is not supported.")
        lower, upper = _LOGNDTR_BOUNDS[x.dtype.base_dtype]
        return math_ops.where_v2(
            math_ops.greater(x, upper), -_ndtr(-x),
            math_ops.where_v2(math_ops.greater(x, lower),
                              math_ops.log(_ndtr(math_ops.maximum(x, lower))),
                              _log_ndtr_lower(math_ops.minimum(x, lower), series_order)))


def log_cdf_laplace(x: Any, name: str = "log_cdf_laplace") -> ops_lib.Tensor:
    """log of the standard Laplace CDF."""
    with ops_lib.name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        lower_solution = -np.log(2.0) + x
        safe_exp_neg_x = math_ops.exp(-math_ops.abs(x))
        upper_solution = math_ops.log1p(-0.5 * safe_exp_neg_x)
        return math_ops.where_v2(x < 0.0, lower_solution, upper_solution)
