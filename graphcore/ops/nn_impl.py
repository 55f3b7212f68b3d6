"""The composite tf.nn functions of TF's ``nn_impl.py`` (no op types of their own):
logistic and Poisson losses, zero_fraction, the moments family (sufficient statistics,
normalize_moments, weighted moments), batch normalization from its moments, and the
sampled losses nce_loss and sampled_softmax_loss."""

from __future__ import annotations

import math
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import (
    array_ops,
    candidate_sampling_ops,
    control_flow_ops,
    embedding_ops,
    math_ops,
    nn_ops,
    sparse_ops,
)
from graphcore.platform.deprecation import deprecated_argument_lookup

__all__ = ["batch_norm_with_global_normalization", "batch_normalization",
           "log_poisson_loss", "nce_loss", "normalize_moments", "sampled_softmax_loss",
           "sigmoid_cross_entropy_with_logits", "sufficient_statistics",
           "weighted_cross_entropy_with_logits", "weighted_moments", "zero_fraction"]


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
    labels = deprecated_argument_lookup("labels", labels, "targets", targets)
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
    keep_dims = bool(deprecated_argument_lookup("keepdims", keepdims, "keep_dims", keep_dims))
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
    keep_dims = bool(deprecated_argument_lookup("keepdims", keepdims, "keep_dims", keep_dims))
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
    t = deprecated_argument_lookup("input", input, "t", t)
    m = deprecated_argument_lookup("mean", mean, "m", m)
    v = deprecated_argument_lookup("variance", variance, "v", v)
    return batch_normalization(t, m, v, beta, gamma if scale_after_normalization else None,
                               variance_epsilon, name)


def _sum_rows(x: ops_lib.Tensor) -> ops_lib.Tensor:
    """The sum of each row of a 2-D ``x``, as a matmul with ones (TF's gradient-friendly
    construction)."""
    cols = array_ops.shape(x)[1]
    ones = array_ops.ones(array_ops.stack([cols, 1]), x.dtype)
    return array_ops.reshape(math_ops.matmul(x, ones), [-1])


def _compute_sampled_logits(weights: Any, biases: Any, labels: Any, inputs: Any,
                            num_sampled: int, num_classes: int, num_true: int = 1,
                            sampled_values: Any = None, subtract_log_q: bool = True,
                            remove_accidental_hits: bool = False,
                            partition_strategy: str = "mod", name: str | None = None,
                            seed: Any = None) -> tuple:
    """(logits, labels) over each row's true classes and the shared sampled classes."""
    if hasattr(weights, "_get_variable_list"):  # a PartitionedVariable
        weights = list(weights)
    if not isinstance(weights, list):
        weights = [weights]
    with ops_lib.name_scope(name, "compute_sampled_logits",
                            weights + [biases, inputs, labels]):
        if dtypes_lib.as_dtype(labels.dtype) != dtypes_lib.int64:
            labels = math_ops.cast(labels, dtypes_lib.int64)
        labels_flat = array_ops.reshape(labels, [-1])
        if sampled_values is None:
            sampled_values = candidate_sampling_ops.log_uniform_candidate_sampler(
                true_classes=labels, num_true=num_true, num_sampled=num_sampled, unique=True,
                range_max=num_classes, seed=seed)
        sampled, true_expected_count, sampled_expected_count = (
            array_ops.stop_gradient(s) for s in sampled_values)
        sampled = math_ops.cast(sampled, dtypes_lib.int64)
        all_ids = array_ops.concat([labels_flat, sampled], 0)
        all_w = embedding_ops.embedding_lookup(weights, all_ids,
                                               partition_strategy=partition_strategy)
        if all_w.dtype != inputs.dtype:
            all_w = math_ops.cast(all_w, inputs.dtype)
        true_w = array_ops.slice(all_w, [0, 0],
                                 array_ops.stack([array_ops.shape(labels_flat)[0], -1]))
        sampled_w = array_ops.slice(
            all_w, array_ops.stack([array_ops.shape(labels_flat)[0], 0]), [-1, -1])
        sampled_logits = math_ops.matmul(inputs, sampled_w, transpose_b=True)
        all_b = embedding_ops.embedding_lookup(biases, all_ids,
                                               partition_strategy=partition_strategy)
        if all_b.dtype != inputs.dtype:
            all_b = math_ops.cast(all_b, inputs.dtype)
        true_b = array_ops.slice(all_b, [0], array_ops.shape(labels_flat))
        sampled_b = array_ops.slice(all_b, array_ops.shape(labels_flat), [-1])
        dim = array_ops.shape(true_w)[1:2]
        new_true_w_shape = array_ops.concat([[-1, num_true], dim], 0)
        row_wise_dots = math_ops.multiply(array_ops.expand_dims(inputs, 1),
                                          array_ops.reshape(true_w, new_true_w_shape))
        dots_as_matrix = array_ops.reshape(row_wise_dots, array_ops.concat([[-1], dim], 0))
        true_logits = array_ops.reshape(_sum_rows(dots_as_matrix), [-1, num_true])
        true_b = array_ops.reshape(true_b, [-1, num_true])
        true_logits += true_b
        sampled_logits += sampled_b
        if remove_accidental_hits:
            acc_indices, acc_ids, acc_weights = candidate_sampling_ops.compute_accidental_hits(
                labels, sampled, num_true=num_true)
            acc_indices_2d = array_ops.reshape(acc_indices, [-1, 1])
            acc_ids_2d_int32 = array_ops.reshape(math_ops.cast(acc_ids, dtypes_lib.int32),
                                                 [-1, 1])
            sparse_indices = array_ops.concat([acc_indices_2d, acc_ids_2d_int32], 1,
                                              "sparse_indices")
            sampled_logits_shape = array_ops.concat(
                [array_ops.shape(labels)[:1], array_ops.expand_dims(num_sampled, 0)], 0)
            if sampled_logits.dtype != acc_weights.dtype:
                acc_weights = math_ops.cast(acc_weights, sampled_logits.dtype)
            sampled_logits += sparse_ops.sparse_to_dense(
                sparse_indices, sampled_logits_shape, acc_weights, default_value=0.0,
                validate_indices=False)
        if subtract_log_q:
            true_logits -= math_ops.log(true_expected_count)
            sampled_logits -= math_ops.log(sampled_expected_count)
        out_logits = array_ops.concat([true_logits, sampled_logits], 1)
        out_labels = array_ops.concat([array_ops.ones_like(true_logits) / num_true,
                                       array_ops.zeros_like(sampled_logits)], 1)
        return out_logits, out_labels


def nce_loss(weights: Any, biases: Any, labels: Any, inputs: Any, num_sampled: int,
             num_classes: int, num_true: int = 1, sampled_values: Any = None,
             remove_accidental_hits: bool = False, partition_strategy: str = "mod",
             name: str = "nce_loss") -> ops_lib.Tensor:
    """The noise-contrastive estimation loss of each row (logistic losses of its true and
    sampled classes, summed)."""
    logits, labels = _compute_sampled_logits(
        weights=weights, biases=biases, labels=labels, inputs=inputs,
        num_sampled=num_sampled, num_classes=num_classes, num_true=num_true,
        sampled_values=sampled_values, subtract_log_q=True,
        remove_accidental_hits=remove_accidental_hits,
        partition_strategy=partition_strategy, name=name)
    sampled_losses = sigmoid_cross_entropy_with_logits(labels=labels, logits=logits,
                                                       name="sampled_losses")
    return _sum_rows(sampled_losses)


def sampled_softmax_loss(weights: Any, biases: Any, labels: Any, inputs: Any,
                         num_sampled: int, num_classes: int, num_true: int = 1,
                         sampled_values: Any = None, remove_accidental_hits: bool = True,
                         partition_strategy: str = "mod", name: str = "sampled_softmax_loss",
                         seed: Any = None) -> ops_lib.Tensor:
    """The softmax cross entropy of each row over its true and the sampled classes."""
    logits, labels = _compute_sampled_logits(
        weights=weights, biases=biases, labels=labels, inputs=inputs,
        num_sampled=num_sampled, num_classes=num_classes, num_true=num_true,
        sampled_values=sampled_values, subtract_log_q=True,
        remove_accidental_hits=remove_accidental_hits,
        partition_strategy=partition_strategy, name=name, seed=seed)
    labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
    return nn_ops.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
