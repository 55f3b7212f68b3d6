"""Weights broadcasting and rank squeezing shared by tf.losses and tf.metrics (TF's
``weights_broadcast_ops`` and ``confusion_matrix.remove_squeezable_dimensions``).

``assert_broadcastable`` checks shapes statically, as TF does when they are known; with
unknown shapes TF adds a runtime set-intersection check, which is not built here (no op
is added and no check runs)."""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_util
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, control_flow_ops, math_ops
from graphcore.ops.confusion_matrix import remove_squeezable_dimensions  # noqa: F401  (TF's losses.util name)

_ASSERT_BROADCASTABLE_ERROR_PREFIX = "weights can not be broadcast to values."


def assert_broadcastable(weights: Any, values: Any) -> Any:
    """A NoOp when ``weights`` broadcast to ``values`` by the static shapes, a ValueError
    when they can't; None when the shapes are unknown."""
    with ops_lib.name_scope(None, "assert_broadcastable", (weights, values)):
        with ops_lib.name_scope(None, "weights", (weights,)) as weights_scope:
            weights = convert_to_tensor(weights, name=weights_scope)
            weights_shape = array_ops.shape(weights, name="shape")
            weights_rank = array_ops.rank(weights, name="rank")
        weights_rank_static = tensor_util.constant_value(weights_rank)
        with ops_lib.name_scope(None, "values", (values,)) as values_scope:
            values = convert_to_tensor(values, name=values_scope)
            values_shape = array_ops.shape(values, name="shape")
            values_rank = array_ops.rank(values, name="rank")
        values_rank_static = tensor_util.constant_value(values_rank)
        if weights_rank_static is None or values_rank_static is None:
            return None
        if weights_rank_static == 0:
            return control_flow_ops.no_op(name="static_scalar_check_success")
        if weights_rank_static != values_rank_static:
            raise ValueError(f"{_ASSERT_BROADCASTABLE_ERROR_PREFIX} values.rank="
                             f"{values_rank_static}. weights.rank={weights_rank_static}. "
                             f"values.shape={values.shape}. weights.shape={weights.shape}. "
                             f"Received weights={weights}, values={values}")
        w_static = tensor_util.constant_value(weights_shape)
        v_static = tensor_util.constant_value(values_shape)
        if w_static is None or v_static is None:
            return None
        for i in range(len(v_static)):
            if w_static[i] not in (1, v_static[i]):
                raise ValueError(f"{_ASSERT_BROADCASTABLE_ERROR_PREFIX} Mismatch at dim {i}. "
                                 f"values.shape={v_static}, weights.shape={w_static}. "
                                 f"Received weights={weights}, values={values}")
        return control_flow_ops.no_op(name="static_dims_check_success")


def after(op: Any) -> Any:
    """``control_dependencies`` on ``op`` (none when it is None)."""
    return ops_lib.control_dependencies([op] if op is not None else [])


def broadcast_weights(weights: Any, values: Any) -> Any:
    """``weights`` broadcast to the shape of ``values`` (``weights * ones_like(values)``)."""
    with ops_lib.name_scope(None, "broadcast_weights", (weights, values)) as scope:
        values = convert_to_tensor(values, name="values")
        weights = convert_to_tensor(weights, dtype=values.dtype.base_dtype, name="weights")
        if weights.shape.is_fully_defined() and values.shape.is_fully_defined() and \
                weights.shape.is_compatible_with(values.shape):
            return weights
        with after(assert_broadcastable(weights, values)):
            return math_ops.multiply(weights, array_ops.ones_like(values), name=scope)


