"""``tf.contrib.layers`` regularizers (TF 1.15): functions ``fn(weights) -> scalar`` built by
``l1_regularizer`` / ``l2_regularizer`` / ``l1_l2_regularizer`` / ``sum_regularizer``, and
``apply_regularization``, which sums one over a list of weights into REGULARIZATION_LOSSES."""

from __future__ import annotations

import logging
import numbers
from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, math_ops, nn_ops

__all__ = ["apply_regularization", "l1_l2_regularizer", "l1_regularizer", "l2_regularizer",
           "sum_regularizer"]

_log = logging.getLogger("tensorflow")  # tf.logging's logger, as TF logs


def _check_scale(scale: Any, end: str = "") -> bool:
    """Validates a scale; True when it is the number 0 (the regularizer is disabled)."""
    if isinstance(scale, numbers.Integral):
        raise ValueError(f"scale cannot be an integer: {scale}")
    if isinstance(scale, numbers.Real):
        if scale < 0.0:
            raise ValueError(f"Setting a scale less than 0 on a regularizer: {scale:g}{end}")
        if scale == 0.0:
            _log.info("Scale of 0 disables regularizer.")
            return True
    return False


def _scaled(scale: Any, scope: str | None, default_name: str, penalty: Any) -> Any:
    def regularizer(weights: Any, name: str | None = None) -> Any:
        del name
        with ops_lib.name_scope(scope, default_name, [weights]) as name:
            my_scale = convert_to_tensor(scale, dtype=weights.dtype.base_dtype, name="scale")
            return math_ops.multiply(my_scale, penalty(weights), name=name)

    return regularizer


def l1_regularizer(scale: Any, scope: str | None = None) -> Any:
    """``scale * sum(|w|)`` (ops under ``l1_regularizer``)."""
    if _check_scale(scale):
        return lambda _: None
    return _scaled(scale, scope, "l1_regularizer",
                   lambda w: math_ops.reduce_sum(math_ops.abs(w)))


def l2_regularizer(scale: Any, scope: str | None = None) -> Any:
    """``scale * sum(w ** 2) / 2`` (``tf.nn.l2_loss``; ops under ``l2_regularizer``)."""
    if _check_scale(scale, "."):
        return lambda _: None
    return _scaled(scale, scope, "l2_regularizer", nn_ops.l2_loss)


def l1_l2_regularizer(scale_l1: Any = 1.0, scale_l2: Any = 1.0,
                      scope: str | None = None) -> Any:
    """The sum of ``l1_regularizer(scale_l1)`` and ``l2_regularizer(scale_l2)`` (just one of
    them when the other scale is 0)."""
    if isinstance(scale_l1, numbers.Integral):
        raise ValueError(f"scale_l1 cannot be an integer: {scale_l1}")
    if isinstance(scale_l2, numbers.Integral):
        raise ValueError(f"scale_l2 cannot be an integer: {scale_l2}")
    scope = scope or "l1_l2_regularizer"
    if isinstance(scale_l1, numbers.Real) and scale_l1 == 0.0:
        return l2_regularizer(scale_l2, scope)
    if isinstance(scale_l2, numbers.Real) and scale_l2 == 0.0:
        return l1_regularizer(scale_l1, scope)
    return sum_regularizer([l1_regularizer(scale_l1), l2_regularizer(scale_l2)], scope=scope)


def sum_regularizer(regularizer_list: list, scope: str | None = None) -> Any:
    """A regularizer adding the penalties of ``regularizer_list`` (None if it is empty)."""
    regularizer_list = [reg for reg in regularizer_list if reg is not None]
    if not regularizer_list:
        return None

    def sum_reg(weights: Any) -> Any:
        with ops_lib.name_scope(scope, "sum_regularizer", [weights]) as name:
            tensors = [t for t in (reg(weights) for reg in regularizer_list) if t is not None]
            return math_ops.add_n(tensors, name=name) if tensors else None

    return sum_reg


def apply_regularization(regularizer: Any, weights_list: list | None = None) -> Any:
    """The sum of ``regularizer`` over ``weights_list`` (default: the WEIGHTS collection),
    added to REGULARIZATION_LOSSES."""
    if not weights_list:
        weights_list = ops_lib.get_collection(ops_lib.GraphKeys.WEIGHTS)
    if not weights_list:
        raise ValueError("No weights to regularize.")
    with ops_lib.name_scope("get_regularization_penalty", values=weights_list) as scope:
        penalties = [regularizer(w) for w in weights_list]
        penalties = [p if p is not None else array_ops.constant(0.0) for p in penalties]
        for p in penalties:
            if p.get_shape().ndims != 0:
                raise ValueError("regularizer must return a scalar Tensor instead of a Tensor "
                                 f"with rank {p.get_shape().ndims}.")
        summed = math_ops.add_n(penalties, name=scope)
        ops_lib.add_to_collection(ops_lib.GraphKeys.REGULARIZATION_LOSSES, summed)
        return summed
