"""IndexedSlices as ops see them: converting one to a dense Tensor (an UnsortedSegmentSum
over its first axis, as TF's ``_indexed_slices_to_tensor``, warning when the result would
be huge) and ``_as_indexed_slices_list``, which gradient aggregation uses to concatenate
a mix of dense and sparse gradients."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_util
from graphcore.framework.indexed_slices import IndexedSlices
from graphcore.framework.tensor_conversion import register_tensor_conversion_function
from graphcore.ops import array_ops, math_ops

__all__: list[str] = []

_LARGE_SPARSE_NUM_ELEMENTS = 100000000


def _indexed_slices_to_tensor(value: IndexedSlices, dtype: Any = None, name: str | None = None,
                              as_ref: bool = False) -> ops_lib.Tensor:
    del as_ref
    if dtype and not dtype.is_compatible_with(value.dtype):
        raise ValueError(f"Incompatible tensor conversion requested to `dtype` {dtype.name} "
                         f"for IndexedSlices ({value}) with dtype {value.dtype.name}")
    if value.dense_shape is None:
        raise ValueError("Tensor conversion requested for IndexedSlices for argument `value` "
                         f"without dense_shape: {value!s}")
    dense_shape_value = tensor_util.constant_value(value.dense_shape)
    if dense_shape_value is not None:
        num_elements = np.prod(dense_shape_value)
        if num_elements >= _LARGE_SPARSE_NUM_ELEMENTS:
            warnings.warn(f"Converting sparse IndexedSlices to a dense Tensor with "
                          f"{num_elements} elements. This may consume a large amount of "
                          "memory.", stacklevel=2)
    return array_ops.unsorted_segment_sum(value.values, value.indices,
                                          value.dense_shape[0], name=name)


register_tensor_conversion_function(IndexedSlices, _indexed_slices_to_tensor)


def indexed_slices_to_tensor_no_warning(value: Any) -> Any:
    """``value`` densified without the large-conversion warning (TF's
    ``_IndexedSlicesToTensorNoWarning``); a Tensor comes back unchanged."""
    if not isinstance(value, IndexedSlices):
        return value
    if value.dense_shape is None:
        raise ValueError("Tensor conversion requested for IndexedSlices without "
                         f"dense_shape: {value!s}")
    return array_ops.unsorted_segment_sum(value.values, value.indices, value.dense_shape[0])


def as_indexed_slices(x: Any) -> IndexedSlices:
    """A Tensor as the IndexedSlices of all its rows (TF's ``math_ops._as_indexed_slices``)."""
    if not isinstance(x, (ops_lib.Tensor, IndexedSlices)):
        raise TypeError(f"Not a Tensor or IndexedSlices: {type(x)}.")
    if isinstance(x, IndexedSlices):
        return x
    x_shape = array_ops.shape(x)
    return IndexedSlices(x, math_ops.range(0, x_shape[0]), x_shape)


def as_indexed_slices_list(inputs: Any) -> list[IndexedSlices]:
    """Each input as IndexedSlices; int32 indices become int64 when the list mixes both."""
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"Expected a list or tuple, not {type(inputs)}.")
    outputs = [as_indexed_slices(i) for i in inputs]
    with_int32_index = [o.indices for o in outputs if o.indices.dtype == dtypes_lib.int32]
    if not with_int32_index or len(with_int32_index) == len(outputs):
        return outputs
    return [IndexedSlices(o.values, math_ops.cast(o.indices, dtypes_lib.int64), o.dense_shape)
            if o.indices.dtype == dtypes_lib.int32 else o for o in outputs]
