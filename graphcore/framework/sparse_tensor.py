"""``tf.SparseTensor`` (indices, values, dense_shape: three graph tensors) and
``tf.SparseTensorValue``, the value a session fetch of one returns and a feed accepts."""

from __future__ import annotations

import collections
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import session_stack
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.indexed_slices import constant_value_as_shape
from graphcore.framework.tensor_conversion import convert_to_tensor

__all__ = ["SparseTensor", "SparseTensorValue", "convert_to_tensor_or_sparse_tensor",
           "is_sparse"]

SparseTensorValue = collections.namedtuple("SparseTensorValue",
                                           ["indices", "values", "dense_shape"])


class SparseTensor:
    """A sparse tensor: ``values[i]`` sits at ``indices[i]`` (int64 [N, ndims]) of a
    dense tensor of shape ``dense_shape`` (int64 [ndims]); the rest is zero."""

    @classmethod
    def from_value(cls, sparse_tensor_value: Any) -> SparseTensor:
        if not is_sparse(sparse_tensor_value):
            raise TypeError(f"Argument sparse_tensor_value={sparse_tensor_value} is neither "
                            "a SparseTensor nor SparseTensorValue.")
        return SparseTensor(indices=sparse_tensor_value.indices,
                            values=sparse_tensor_value.values,
                            dense_shape=sparse_tensor_value.dense_shape)

    def __init__(self, indices: Any, values: Any, dense_shape: Any):
        with ops_lib.name_scope(None, "SparseTensor", [indices, values, dense_shape]):
            indices = convert_to_tensor(indices, name="indices", dtype=dtypes_lib.int64)
            values = convert_to_tensor(values, name="values")
            dense_shape = convert_to_tensor(dense_shape, name="dense_shape",
                                            dtype=dtypes_lib.int64)
            dense_shape_default = constant_value_as_shape(dense_shape)
        self._indices = indices
        self._values = values
        self._dense_shape = dense_shape
        self._dense_shape_default = dense_shape_default
        indices_shape = indices.shape.with_rank(2)
        values_shape = values.shape.with_rank(1)
        dense_shape_shape = dense_shape.shape.with_rank(1)
        indices_shape.dims[0].assert_is_compatible_with(values_shape.dims[0])
        indices_shape.dims[1].assert_is_compatible_with(dense_shape_shape.dims[0])

    @property
    def indices(self) -> ops_lib.Tensor:
        return self._indices

    @property
    def values(self) -> ops_lib.Tensor:
        return self._values

    @property
    def dense_shape(self) -> ops_lib.Tensor:
        return self._dense_shape

    @property
    def op(self) -> ops_lib.Operation:
        return self._values.op

    @property
    def dtype(self) -> dtypes_lib.DType:
        return self._values.dtype

    @property
    def graph(self) -> ops_lib.Graph:
        return self._indices.graph

    @property
    def shape(self) -> shape_lib.TensorShape:
        return self._dense_shape_default

    def get_shape(self) -> shape_lib.TensorShape:
        return self._dense_shape_default

    def set_shape(self, shape: Any) -> None:
        """Merges ``shape`` into the static dense shape (ValueError if incompatible)."""
        if not isinstance(shape, shape_lib.TensorShape):
            shape = shape_lib.TensorShape(shape)
        self._dense_shape_default = self._dense_shape_default.merge_with(shape)

    def with_values(self, new_values: Any) -> SparseTensor:
        return SparseTensor(self._indices, new_values, self._dense_shape)

    def consumers(self) -> list:
        parts = (self._indices, self._values, self._dense_shape)
        return sorted({op for t in parts for op in t.consumers()}, key=lambda op: op.name)

    def eval(self, feed_dict: dict | None = None, session: Any = None) -> SparseTensorValue:
        """Runs the three tensors in ``session`` (default: the default session)."""
        return session_stack.run_with_session(self, feed_dict, session)

    def __repr__(self) -> str:
        return (f"SparseTensor(indices={self._indices}, values={self._values}, "
                f"dense_shape={self._dense_shape})")


def is_sparse(x: Any) -> bool:
    """Whether ``x`` is a SparseTensor or a SparseTensorValue."""
    return isinstance(x, (SparseTensor, SparseTensorValue))


def convert_to_tensor_or_sparse_tensor(value: Any, dtype: Any = None,
                                       name: str | None = None) -> Any:
    """``value`` as a SparseTensor (from a SparseTensorValue) or a Tensor."""
    if dtype is not None:
        dtype = dtypes_lib.as_dtype(dtype)
    if isinstance(value, SparseTensorValue):
        value = SparseTensor.from_value(value)
    if isinstance(value, SparseTensor):
        if dtype and not dtype.is_compatible_with(value.dtype):
            raise RuntimeError(f"Sparse dtype mismatch. Requested: {dtype.name},  Actual: "
                               f"{value.dtype.name}")
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)
