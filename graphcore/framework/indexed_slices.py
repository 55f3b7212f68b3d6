"""``tf.IndexedSlices``: a sparse slice of a dense tensor along its first axis (the
gradient of a gather), and ``IndexedSlicesValue``, what a session fetch of one returns.

Converting one to a Tensor (an UnsortedSegmentSum, as TF) is registered by
:mod:`graphcore.ops.indexed_slices_ops`, which may build ops.
"""

from __future__ import annotations

import collections
from typing import Any

from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework import tensor_util

__all__ = ["IndexedSlices", "IndexedSlicesValue", "constant_value_as_shape"]


def constant_value_as_shape(tensor: Any) -> shape_lib.TensorShape:
    """The shape a 1-D shape tensor describes as far as graph building knows it (TF's
    ``tensor_util.constant_value_as_shape``): -1 and unknown elements are None."""
    value = tensor_util.constant_value(tensor)
    if value is not None:
        return shape_lib.TensorShape([None if d < 0 else int(d) for d in value.tolist()])
    op = tensor.op
    if op.type == "Shape":
        return op.inputs[0].shape
    if op.type == "ConcatV2":
        shape = shape_lib.TensorShape([])
        for t in op.inputs[:-1]:
            shape = shape.concatenate(constant_value_as_shape(t))
        return shape
    if op.type == "Pack":
        dims = []
        for t in op.inputs:
            v = tensor_util.constant_value(t)
            dims.append(None if v is None or int(v) < 0 else int(v))
        return shape_lib.TensorShape(dims)
    rank = tensor.shape.with_rank(1).dims[0]
    return shape_lib.unknown_shape(rank=rank.value) if rank.value is not None \
        else shape_lib.unknown_shape()


class IndexedSlices:
    """``values[i]`` is the slice ``indices[i]`` of a dense tensor of shape
    ``dense_shape`` (optional); duplicate indices add up."""

    def __init__(self, values: Any, indices: Any, dense_shape: Any = None):
        self._values = values
        self._indices = indices
        self._dense_shape = dense_shape

    @property
    def values(self) -> Any:
        return self._values

    @property
    def indices(self) -> Any:
        return self._indices

    @property
    def dense_shape(self) -> Any:
        return self._dense_shape

    @property
    def shape(self) -> shape_lib.TensorShape:
        if self._dense_shape is None:
            return shape_lib.unknown_shape()
        return constant_value_as_shape(self._dense_shape)

    def get_shape(self) -> shape_lib.TensorShape:
        return self.shape

    @property
    def name(self) -> str:
        return self._values.name

    @property
    def device(self) -> str:
        return self._values.device

    @property
    def op(self) -> Any:
        return self._values.op

    @property
    def dtype(self) -> Any:
        return self._values.dtype

    @property
    def graph(self) -> Any:
        return self._values.graph

    def consumers(self) -> list:
        parts = [self._values, self._indices] + \
            ([self._dense_shape] if self._dense_shape is not None else [])
        return sorted({op for t in parts for op in t.consumers()}, key=lambda op: op.name)

    def __str__(self) -> str:
        shape = f", dense_shape={self._dense_shape}" if self._dense_shape is not None else ""
        return f"IndexedSlices(indices={self._indices}, values={self._values}{shape})"

    def __neg__(self) -> IndexedSlices:
        return IndexedSlices(-self._values, self._indices, self._dense_shape)


IndexedSlicesValue = collections.namedtuple("IndexedSlicesValue",
                                            ["values", "indices", "dense_shape"])
