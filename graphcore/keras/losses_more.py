"""tf.keras' other per-sample losses (TF's formulas, reduced over the last axis):
mean squared logarithmic and mean absolute percentage errors, the hinges, Huber, log-cosh,
Kullback-Leibler divergence, Poisson and cosine similarity."""

from __future__ import annotations

import math
from typing import Any

from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.keras import backend as K
from graphcore.ops import control_flow_ops, math_ops, nn_ops

__all__ = ["categorical_hinge", "cosine_similarity", "hinge", "huber", "kl_divergence",
           "log_cosh", "mean_absolute_percentage_error", "mean_squared_logarithmic_error",
           "poisson", "squared_hinge"]


def _pair(y_true: Any, y_pred: Any) -> tuple:
    y_pred = convert_to_tensor(y_pred)
    return math_ops.cast(convert_to_tensor(y_true), y_pred.dtype), y_pred


def _maybe_convert_labels(y_true: Any) -> Any:
    """Labels in {0, 1} as {-1, 1} (the hinges' labels), others as they are."""
    are_zeros = math_ops.equal(y_true, 0)
    are_ones = math_ops.equal(y_true, 1)
    is_binary = math_ops.reduce_all(math_ops.logical_or(are_zeros, are_ones))
    return control_flow_ops.cond(is_binary, lambda: 2.0 * y_true - 1.0, lambda: y_true)


def mean_squared_logarithmic_error(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = _pair(y_true, y_pred)
    first_log = math_ops.log(math_ops.maximum(y_pred, K.epsilon()) + 1.0)
    second_log = math_ops.log(math_ops.maximum(y_true, K.epsilon()) + 1.0)
    return math_ops.reduce_mean(math_ops.squared_difference(first_log, second_log), -1)


def mean_absolute_percentage_error(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = _pair(y_true, y_pred)
    diff = math_ops.abs((y_true - y_pred) / math_ops.maximum(math_ops.abs(y_true),
                                                            K.epsilon()))
    return 100.0 * math_ops.reduce_mean(diff, -1)


def hinge(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = _pair(y_true, y_pred)
    y_true = _maybe_convert_labels(y_true)
    return math_ops.reduce_mean(math_ops.maximum(1.0 - y_true * y_pred, 0.0), -1)


def squared_hinge(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = _pair(y_true, y_pred)
    y_true = _maybe_convert_labels(y_true)
    return math_ops.reduce_mean(math_ops.square(math_ops.maximum(1.0 - y_true * y_pred, 0.0)),
                                -1)


def categorical_hinge(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = _pair(y_true, y_pred)
    pos = math_ops.reduce_sum(y_true * y_pred, -1)
    neg = math_ops.reduce_max((1.0 - y_true) * y_pred, -1)
    return math_ops.maximum(0.0, neg - pos + 1.0)


def huber(y_true: Any, y_pred: Any, delta: float = 1.0) -> Any:
    y_true, y_pred = _pair(y_true, y_pred)
    delta = math_ops.cast(delta, y_pred.dtype)
    error = y_pred - y_true
    abs_error = math_ops.abs(error)
    half = math_ops.cast(0.5, y_pred.dtype)
    return K.mean(math_ops.where_v2(abs_error <= delta, half * math_ops.square(error),
                                     delta * abs_error - half * math_ops.square(delta)),
                  axis=-1)


def log_cosh(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = _pair(y_true, y_pred)
    x = y_pred - y_true
    return math_ops.reduce_mean(x + nn_ops.softplus(-2.0 * x) -
                                math_ops.cast(math.log(2.0), x.dtype), -1)


def kl_divergence(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = _pair(y_true, y_pred)
    y_true = K.clip(y_true, K.epsilon(), 1)
    y_pred = K.clip(y_pred, K.epsilon(), 1)
    return math_ops.reduce_sum(y_true * math_ops.log(y_true / y_pred), -1)


def poisson(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = _pair(y_true, y_pred)
    return K.mean(y_pred - y_true * math_ops.log(y_pred + K.epsilon()), axis=-1)


def cosine_similarity(y_true: Any, y_pred: Any, axis: int = -1) -> Any:
    """Minus the cosine of the angle between the vectors (-1 when aligned)."""
    y_true, y_pred = _pair(y_true, y_pred)
    y_true = nn_ops.l2_normalize(y_true, axis=axis)
    y_pred = nn_ops.l2_normalize(y_pred, axis=axis)
    return -math_ops.reduce_sum(y_true * y_pred, axis=axis)
