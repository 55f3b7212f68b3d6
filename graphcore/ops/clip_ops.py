"""Clipping (TF's clip_ops): by value, by norm, by average norm and by global norm, with
TF's op construction. IndexedSlices are clipped on their values."""

from __future__ import annotations

import collections.abc
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, math_ops, nn_ops

__all__ = ["clip_by_average_norm", "clip_by_global_norm", "clip_by_norm", "clip_by_value",
           "global_norm"]


def _is_indexed_slices(t: Any) -> bool:
    return hasattr(t, "indices") and hasattr(t, "dense_shape") and hasattr(t, "values")


def _values(t: Any, name: str) -> ops_lib.Tensor:
    return convert_to_tensor(t.values if _is_indexed_slices(t) else t, name=name)


def _like(t: Any, values: ops_lib.Tensor) -> Any:
    return type(t)(values, t.indices, t.dense_shape) if _is_indexed_slices(t) else values


def clip_by_value(t: Any, clip_value_min: Any, clip_value_max: Any,
                  name: str | None = None) -> Any:
    """``t`` with values below ``clip_value_min`` / above ``clip_value_max`` set to them."""
    with ops_lib.name_scope(name, "clip_by_value", [t, clip_value_min, clip_value_max]) \
            as scope:
        values = _values(t, "t")
        t_min = math_ops.minimum(values, clip_value_max)
        values.shape.assert_is_compatible_with(t_min.shape)
        t_max = math_ops.maximum(t_min, clip_value_min, name=scope)
        values.shape.assert_is_compatible_with(t_max.shape)
        return _like(t, t_max)


def clip_by_norm(t: Any, clip_norm: Any, axes: Any = None, name: str | None = None) -> Any:
    """``t * clip_norm / max(l2norm(t), clip_norm)`` (the L2 norm over ``axes``)."""
    with ops_lib.name_scope(name, "clip_by_norm", [t, clip_norm]) as scope:
        values = _values(t, "t")
        l2sum = math_ops.reduce_sum(values * values, axes, keepdims=True)
        pred = l2sum > 0
        # The two-tap where keeps the gradient of a zero tensor's norm free of NaN.
        l2sum_safe = array_ops.where(pred, l2sum, array_ops.ones_like(l2sum))
        l2norm = array_ops.where(pred, math_ops.sqrt(l2sum_safe), l2sum)
        intermediate = values * clip_norm
        values.shape.assert_is_compatible_with(intermediate.shape)
        clipped = array_ops.identity(intermediate / math_ops.maximum(l2norm, clip_norm),
                                     name=scope)
        return _like(t, clipped)


def global_norm(t_list: Any, name: str | None = None) -> ops_lib.Tensor:
    """sqrt(sum of the squared L2 norms of the tensors in ``t_list``); None entries are
    skipped."""
    if not isinstance(t_list, collections.abc.Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    t_list = list(t_list)
    with ops_lib.name_scope(name, "global_norm", [t for t in t_list if t is not None]):
        values = [None if t is None else _values(t, f"t_{i}") for i, t in enumerate(t_list)]
        half_squared_norms = []
        for v in values:
            if v is not None:
                with ops_lib.colocate_with(v.op):
                    half_squared_norms.append(nn_ops.l2_loss(v))
        half_squared_norm = math_ops.reduce_sum(array_ops.stack(half_squared_norms))
        two = array_ops.constant(2.0, dtype=half_squared_norm.dtype)
        return math_ops.sqrt(half_squared_norm * two, name="global_norm")


def clip_by_global_norm(t_list: Any, clip_norm: Any, use_norm: Any = None,
                        name: str | None = None) -> tuple[list, ops_lib.Tensor]:
    """Scales every tensor of ``t_list`` by ``clip_norm / max(global_norm, clip_norm)``;
    returns the clipped list and the global norm."""
    if not isinstance(t_list, collections.abc.Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    t_list = list(t_list)
    use_norm = global_norm(t_list, name) if use_norm is None else convert_to_tensor(use_norm)
    present = [t for t in t_list if t is not None]
    with ops_lib.name_scope(name, "clip_by_global_norm", present + [clip_norm]) as scope:
        scale_for_finite = clip_norm * math_ops.minimum(
            1.0 / use_norm, array_ops.constant(1.0, dtype=use_norm.dtype) / clip_norm)
        # A finite norm leaves the scale as is; inf or NaN makes it NaN, as TF's.
        scale = scale_for_finite + (use_norm - use_norm)
        values = [None if t is None else _values(t, f"t_{i}") for i, t in enumerate(t_list)]
        clipped = []
        for i, v in enumerate(values):
            if v is None:
                clipped.append(None)
                continue
            with ops_lib.colocate_with(v.op):
                clipped.append(array_ops.identity(v * scale, name=f"{scope}_{i}"))
        return [c if t is None else _like(t, c) for c, t in zip(clipped, t_list)], use_norm


def clip_by_average_norm(t: Any, clip_norm: Any, name: str | None = None) -> ops_lib.Tensor:
    """``t * clip_norm / max(l2norm(t) / size(t), clip_norm)`` (TF1's average norm)."""
    with ops_lib.name_scope(name, "clip_by_average_norm", [t, clip_norm]) as scope:
        t = convert_to_tensor(t, name="t")
        n_element = math_ops.cast(array_ops.size(t), dtypes_lib.float32)
        l2norm_inv = math_ops.rsqrt(math_ops.reduce_sum(t * t, math_ops.range(
            array_ops.rank(t))))
        return array_ops.identity(
            t * clip_norm * math_ops.minimum(l2norm_inv * n_element,
                                             array_ops.constant(1.0) / clip_norm),
            name=scope)
