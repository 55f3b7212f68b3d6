"""The composite tf.nn functions of TF's ``nn_impl.py`` (no op types of their own):
logistic and Poisson losses, zero_fraction, the moments family (sufficient statistics,
normalize_moments, weighted moments) and batch normalization from its moments."""

from __future__ import annotations

import math
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, control_flow_ops, math_ops, nn_ops

__all__ = ["batch_norm_with_global_normalization", "batch_normalization",
           "log_poisson_loss", "normalize_moments", "sigmoid_cross_entropy_with_logits",
           "sufficient_statistics", "weighted_cross_entropy_with_logits", "weighted_moments",
           "zero_fraction"]


def _lookup(new_name: str, new_value: Any, old_name: str, old_value: Any) -> Any:
    if new_value is not None and old_value is not None:
        raise ValueError(f"Cannot specify both '{new_name}' and '{old_name}'")
    return new_value if new_value is not None else old_value


def _same_shape(a: ops_lib.Tensor, b: ops_lib.Tensor, message: str) -> None:
    try:
        a.get_shape().assert_is_compatible_with(b.get_shape())
    except ValueError:
        raise ValueError(message) from None


def log_poisson_loss(targets: Any, log_input: Any, compute_full_loss: bool = False,
                     name: str | None = None) -> ops_lib.Tensor:
    """exp(log_input) - log_input * targets (+ Stirling's term when compute_full_loss)."""
    with ops_lib.name_scope(name, "log_poisson_loss", [log_input, targets]) as name:
        log_input = convert_to_tensor(log_input, name="log_input")
        targets = convert_to_tensor(targets, name="targets")
        _same_shape(targets, log_input, "`log_input` and `targets` must have the same shape, "
                    f"received ({log_input.get_shape()} vs {targets.get_shape()}).")
        result = math_ops.exp(log_input) - log_input * targets
        if compute_full_loss:
            point_five = array_ops.constant(0.5, dtype=targets.dtype)
            two_pi = array_ops.constant(2 * math.pi, dtype=targets.dtype)
            stirling_approx = (targets * math_ops.log(targets)) - targets + (
                point_five * math_ops.log(two_pi * targets))
            zeros = array_ops.zeros_like(targets, dtype=targets.dtype)
            ones = array_ops.ones_like(targets, dtype=targets.dtype)
            cond = math_ops.logical_and(targets >= zeros, targets <= ones)
            result += array_ops.where(cond, zeros, stirling_approx)
        return result


def sigmoid_cross_entropy_with_logits(_sentinel: Any = None, labels: Any = None,
                                      logits: Any = None,
                                      name: str | None = None) -> ops_lib.Tensor:
    """max(logits, 0) - logits * labels + log(1 + exp(-abs(logits)))."""
    if _sentinel is not None:
        raise ValueError("Only call `sigmoid_cross_entropy_with_logits` with named "
                         "arguments (labels=..., logits=..., ...).")
    nn_ops._ensure_xent_args("sigmoid_cross_entropy_with_logits", labels, logits)
    with ops_lib.name_scope(name, "logistic_loss", [logits, labels]) as name:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        _same_shape(labels, logits, "`logits` and `labels` must have the same shape, "
                    f"received ({logits.get_shape()} vs {labels.get_shape()}).")
        zeros = array_ops.zeros_like(logits, dtype=logits.dtype)
        cond = logits >= zeros
        relu_logits = array_ops.where(cond, logits, zeros)
        neg_abs_logits = array_ops.where(cond, -logits, logits)
        return math_ops.add(relu_logits - logits * labels,
                            math_ops.log1p(math_ops.exp(neg_abs_logits)), name=name)


def weighted_cross_entropy_with_logits(labels: Any = None, logits: Any = None,
                                       pos_weight: Any = None, name: str | None = None,
                                       targets: Any = None) -> ops_lib.Tensor:
    """The logistic loss with the positive term weighted by ``pos_weight``."""
    labels = _lookup("labels", labels, "targets", targets)
    with ops_lib.name_scope(name, "logistic_loss", [logits, labels]) as name:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        _same_shape(labels, logits, "`logits` and `labels` must have the same shape, "
                    f"received ({logits.get_shape()} vs {labels.get_shape()}).")
        log_weight = 1 + (pos_weight - 1) * labels
        return math_ops.add(
            (1 - labels) * logits,
            log_weight * (math_ops.log1p(math_ops.exp(-math_ops.abs(logits)))
                          + nn_ops.relu(-logits)),
            name=name)


def _count_nonzero(input_tensor: ops_lib.Tensor, dtype: Any) -> ops_lib.Tensor:
    with ops_lib.name_scope("count_nonzero", values=[input_tensor]):
        zero = array_ops.zeros([], dtype=input_tensor.dtype)
        return math_ops.reduce_sum(
            math_ops.cast(math_ops.not_equal(input_tensor, zero), dtype=dtype),
            name="nonzero_count")


def zero_fraction(value: Any, name: str | None = None) -> ops_lib.Tensor:
    """The fraction of zeros in ``value`` (float32)."""
    with ops_lib.name_scope(name, "zero_fraction", [value]):
        value = convert_to_tensor(value, name="value")
        size = array_ops.size(value, out_type=dtypes_lib.int64)
        num_nonzero = control_flow_ops.cond(
            size <= dtypes_lib.int32.max,
            true_fn=lambda: math_ops.cast(_count_nonzero(value, dtypes_lib.int32),
                                          dtype=dtypes_lib.int64),
            false_fn=lambda: _count_nonzero(value, dtypes_lib.int64))
        with ops_lib.name_scope("counts_to_fraction"):
            num_zero = size - num_nonzero
            num_zero_float32 = math_ops.cast(num_zero, dtype=dtypes_lib.float32)
            size_float32 = math_ops.cast(size, dtype=dtypes_lib.float32)
            zero_fraction_float32 = num_zero_float32 / size_float32
        return array_ops.identity(zero_fraction_float32, "fraction")


def sufficient_statistics(x: Any, axes: Any, shift: Any = None, keep_dims: Any = None,
                          name: str | None = None, keepdims: Any = None) -> tuple:
    """(count, sum(x - shift), sum((x - shift) ** 2), shift) over ``axes``."""
    axes = list(set(axes))
    keep_dims = bool(_lookup("keepdims", keepdims, "keep_dims", keep_dims))
    with ops_lib.name_scope(name, "sufficient_statistics", [x, shift]):
        x = convert_to_tensor(x, name="x")
        x_shape = x.get_shape()
        if x_shape.ndims is not None and all(x_shape.as_list()[d] is not None for d in axes):
            counts = 1
            for d in axes:
                counts *= x_shape.as_list()[d]
            counts = array_ops.constant(counts, dtype=x.dtype)
        else:
            rank = array_ops.rank(x)
            positive_axes = [axis + rank if axis < 0 else axis for axis in axes]
            x_dims = array_ops.gather(math_ops.cast(array_ops.shape(x), x.dtype),
                                      positive_axes)
            counts = math_ops.reduce_prod(x_dims, name="count")
        if shift is not None:
            shift = convert_to_tensor(shift, name="shift")
            m_ss = math_ops.subtract(x, shift)
            v_ss = math_ops.squared_difference(x, shift)
        else:
            m_ss = x
            v_ss = math_ops.square(x)
        m_ss = math_ops.reduce_sum(m_ss, axes, keepdims=keep_dims, name="mean_ss")
        v_ss = math_ops.reduce_sum(v_ss, axes, keepdims=keep_dims, name="var_ss")
    return counts, m_ss, v_ss, shift


def normalize_moments(counts: Any, mean_ss: Any, variance_ss: Any, shift: Any,
                      name: str | None = None) -> tuple:
    """(mean, variance) from sufficient statistics."""
    with ops_lib.name_scope(name, "normalize", [counts, mean_ss, variance_ss, shift]):
        divisor = math_ops.reciprocal(counts, name="divisor")
        if shift is not None:
            shifted_mean = math_ops.multiply(mean_ss, divisor, name="shifted_mean")
            mean = math_ops.add(shifted_mean, shift, name="mean")
        else:
            shifted_mean = math_ops.multiply(mean_ss, divisor, name="mean")
            mean = shifted_mean
        variance = math_ops.subtract(math_ops.multiply(variance_ss, divisor),
                                     math_ops.square(shifted_mean), name="variance")
    return mean, variance


def weighted_moments(x: Any, axes: Any, frequency_weights: Any, name: str | None = None,
                     keep_dims: Any = None, keepdims: Any = None) -> tuple:
    """(mean, variance) of ``x`` over ``axes``, each element counted by its weight."""
    keep_dims = bool(_lookup("keepdims", keepdims, "keep_dims", keep_dims))
    with ops_lib.name_scope(name, "weighted_moments", [x, frequency_weights, axes]):
        x = convert_to_tensor(x, name="x")
        frequency_weights = convert_to_tensor(frequency_weights, name="frequency_weights")
        needs_cast = x.dtype == dtypes_lib.float16
        if needs_cast:
            x = math_ops.cast(x, dtypes_lib.float32)
        if frequency_weights.dtype != x.dtype:
            frequency_weights = math_ops.cast(frequency_weights, x.dtype)
        weighted_input_sum = math_ops.reduce_sum(
            frequency_weights * x, axes, name="weighted_input_sum", keepdims=True)
        broadcasted_weights = frequency_weights + array_ops.zeros_like(x)
        sum_of_weights = math_ops.reduce_sum(broadcasted_weights, axes,
                                             name="sum_of_weights", keepdims=True)
        weighted_mean = math_ops.div_no_nan(weighted_input_sum, sum_of_weights)
        weighted_distsq = math_ops.reduce_sum(
            frequency_weights * math_ops.squared_difference(x, weighted_mean), axes,
            name="weighted_distsq", keepdims=True)
        weighted_variance = math_ops.div_no_nan(weighted_distsq, sum_of_weights)
        if not keep_dims:
            weighted_mean = array_ops.squeeze(weighted_mean, axis=axes)
            weighted_variance = array_ops.squeeze(weighted_variance, axis=axes)
        if needs_cast:
            weighted_mean = math_ops.cast(weighted_mean, dtypes_lib.float16)
            weighted_variance = math_ops.cast(weighted_variance, dtypes_lib.float16)
        return weighted_mean, weighted_variance


def batch_normalization(x: Any, mean: Any, variance: Any, offset: Any, scale: Any,
                        variance_epsilon: Any, name: str | None = None) -> ops_lib.Tensor:
    """scale * (x - mean) / sqrt(variance + variance_epsilon) + offset."""
    with ops_lib.name_scope(name, "batchnorm", [x, mean, variance, scale, offset]):
        inv = math_ops.rsqrt(variance + variance_epsilon)
        if scale is not None:
            inv *= scale
        return x * math_ops.cast(inv, x.dtype) + math_ops.cast(
            offset - mean * inv if offset is not None else -mean * inv, x.dtype)


def batch_norm_with_global_normalization(t: Any = None, m: Any = None, v: Any = None,
                                         beta: Any = None, gamma: Any = None,
                                         variance_epsilon: Any = None,
                                         scale_after_normalization: Any = None,
                                         name: str | None = None, input: Any = None,  # noqa: A002
                                         mean: Any = None,
                                         variance: Any = None) -> ops_lib.Tensor:
    """batch_normalization with ``gamma`` applied only when scale_after_normalization."""
    t = _lookup("input", input, "t", t)
    m = _lookup("mean", mean, "m", m)
    v = _lookup("variance", variance, "v", v)
    return batch_normalization(t, m, v, beta, gamma if scale_after_normalization else None,
                               variance_epsilon, name)
