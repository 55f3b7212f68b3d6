"""TF1's partitioners (``tf.fixed_size_partitioner``, ``min_max_variable_partitioner``,
``variable_axis_size_partitioner``) and ``tf.create_partitioned_variables``.

A partitioner is called as ``partitioner(shape=TensorShape, dtype=DType)`` and returns
the number of shards per axis (all 1 but one axis); ``get_variable(...,
partitioner=...)`` then builds the shards ``<name>/part_<i>``
(:mod:`graphcore.ops.variable_scope`) and returns a
:class:`graphcore.ops.variables.PartitionedVariable`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.ops import variable_scope

__all__ = [
    "create_partitioned_variables",
    "fixed_size_partitioner",
    "min_max_variable_partitioner",
    "variable_axis_size_partitioner",
]

Partitioner = Callable[..., list]


def _element_size(dtype: Any, bytes_per_string_element: int) -> int:
    dtype = dtypes_lib.as_dtype(dtype)
    if dtype.base_dtype == dtypes_lib.string:
        return bytes_per_string_element
    return dtype.size


def variable_axis_size_partitioner(max_shard_bytes: int, axis: int = 0,
                                   bytes_per_string_element: int = 16,
                                   max_shards: int | None = None) -> Partitioner:
    """Shards along ``axis`` holding at most ``max_shard_bytes`` each (at least one slice
    of ``axis`` per shard; at most ``max_shards`` shards)."""
    if max_shard_bytes < 1 or bytes_per_string_element < 1:
        raise ValueError(
            "Both max_shard_bytes and bytes_per_string_element must be positive. "
            f"Currently, max_shard_bytes is {max_shard_bytes} and"
            f"bytes_per_string_element is {bytes_per_string_element}")
    if max_shards and max_shards < 1:
        raise ValueError("max_shards must be positive.")

    def _partitioner(shape: Any, dtype: Any) -> list:
        if not isinstance(shape, shape_lib.TensorShape):
            raise ValueError(f"shape is not a TensorShape: {shape}")
        if not shape.is_fully_defined():
            raise ValueError(f"shape is not fully defined: {shape}")
        element_size = _element_size(dtype, bytes_per_string_element)
        partitions = [1] * shape.ndims
        axis_size = shape_lib.dimension_value(shape.dims[axis])
        bytes_per_slice = 1.0 * (shape.num_elements() / axis_size) * element_size
        slices_per_shard = max(1, math.floor(max_shard_bytes / bytes_per_slice))
        axis_shards = int(math.ceil(1.0 * axis_size / slices_per_shard))
        if max_shards:
            axis_shards = min(max_shards, axis_shards)
        partitions[axis] = axis_shards
        return partitions

    return _partitioner


def min_max_variable_partitioner(max_partitions: int = 1, axis: int = 0,
                                 min_slice_size: int = 256 << 10,
                                 bytes_per_string_element: int = 16) -> Partitioner:
    """As many shards along ``axis`` as keep each at least ``min_slice_size`` bytes, at
    most ``max_partitions`` and at most the axis' size."""

    def _partitioner(shape: Any, dtype: Any) -> list:
        if axis >= len(shape):
            raise ValueError(f"Cannot partition variable along axis {axis} when shape is "
                             f"only {shape}")
        total_size_bytes = shape.num_elements() * _element_size(dtype,
                                                                bytes_per_string_element)
        partitions = total_size_bytes / min_slice_size
        partitions_list = [1] * len(shape)
        partitions_list[axis] = max(1, min(shape_lib.dimension_value(shape.dims[axis]),
                                           max_partitions, int(math.ceil(partitions))))
        return partitions_list

    return _partitioner


def fixed_size_partitioner(num_shards: int, axis: int = 0) -> Partitioner:
    """``num_shards`` shards along ``axis`` (fewer when the axis is shorter)."""

    def _partitioner(shape: Any, **unused_args: Any) -> list:
        partitions_list = [1] * len(shape)
        partitions_list[axis] = min(num_shards, shape_lib.dimension_value(shape.dims[axis]))
        return partitions_list

    return _partitioner


def create_partitioned_variables(shape: Any, slicing: Any, initializer: Any,
                                 dtype: Any = dtypes_lib.float32, trainable: bool = True,
                                 collections: list | None = None, name: str | None = None,
                                 reuse: Any = None) -> list:
    """The shards (a list of Variables) of a variable of ``shape`` cut as ``slicing``
    says, under the variable scope ``name`` (default ``PartitionedVariable``)."""
    if len(shape) != len(slicing):
        raise ValueError("The 'shape' and 'slicing' of a partitioned Variable must have the "
                         f"length: shape: {shape}, slicing: {slicing}")
    if len(shape) < 1:
        raise ValueError(f"A partitioned Variable must have rank at least 1: shape: {shape}")

    def partitioner(**unused_kwargs: Any) -> Any:
        return slicing

    with variable_scope.variable_scope(name, "PartitionedVariable", reuse=reuse):
        partitioned_var = variable_scope._get_partitioned_variable(
            name=None, shape=shape, dtype=dtype, initializer=initializer,
            trainable=trainable, partitioner=partitioner, collections=collections)
        return list(partitioned_var)
