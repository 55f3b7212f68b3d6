"""A minimal ``tf.RaggedTensor``: rows of different lengths as a flat ``values`` tensor
(itself possibly ragged) and int64 ``row_splits`` (row i is
``values[row_splits[i]:row_splits[i+1]]``), what the string ops that TF gives ragged
results (unicode_decode, unicode_split, bytes_split, strings.split) return. Converts to a
SparseTensor (RaggedTensorToSparse, as TF's ``to_sparse``) and to a padded dense tensor;
a Session fetches it as a RaggedTensorValue. Not built: ragged arithmetic, indexing and
the ``tf.ragged`` namespace. Kernel: :mod:`graphcore.kernels.ragged_kernels`."""

from __future__ import annotations

from typing import Any

import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import op_registry, tensor_util
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.gradient_registry import NotDifferentiable
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.sparse_tensor import SparseTensor
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, check_ops, control_flow_ops, math_ops, sparse_ops

__all__ = ["RaggedTensor", "RaggedTensorValue"]


def _to_sparse_shape(op: ops_lib.Operation) -> list:
    n = op._attrs["RAGGED_RANK"].i
    values = op._inputs[n].shape
    rank = None if values.ndims is None else values.ndims + n
    return [shape_lib.TensorShape([None, rank]), shape_lib.TensorShape([None]),
            shape_lib.TensorShape([rank])]


op_registry.register_op("RaggedTensorToSparse") \
    .input("rt_nested_splits: RAGGED_RANK * Tsplits").input("rt_dense_values: T") \
    .output("sparse_indices: int64").output("sparse_values: T") \
    .output("sparse_dense_shape: int64").attr("RAGGED_RANK: int >= 1").attr("T: type") \
    .attr("Tsplits: {int32, int64} = DT_INT64").shape_fn(_to_sparse_shape)
NotDifferentiable("RaggedTensorToSparse")


class _NestedRows:
    """The nested-rows structure RaggedTensor (tensors) and RaggedTensorValue (numpy)
    share: ``values`` (a tensor, or one of the same kind for more ragged dimensions) split
    into rows at ``row_splits``."""

    _values: Any
    _row_splits: Any

    @property
    def values(self) -> Any:
        return self._values

    @property
    def row_splits(self) -> Any:
        return self._row_splits

    @property
    def flat_values(self) -> Any:
        values = self._values
        while isinstance(values, _NestedRows):
            values = values.values
        return values

    @property
    def nested_row_splits(self) -> tuple:
        splits, values = [self._row_splits], self._values
        while isinstance(values, _NestedRows):
            splits.append(values.row_splits)
            values = values.values
        return tuple(splits)

    @property
    def ragged_rank(self) -> int:
        return len(self.nested_row_splits)

    @property
    def dtype(self) -> Any:
        return self.flat_values.dtype


class RaggedTensor(_NestedRows):
    """Rows of ``values`` split at ``row_splits`` (build with the ``from_*`` methods)."""

    def __init__(self, values: Any, row_splits: ops_lib.Tensor,
                 uniform_row_length: int | None = None):
        self._values = values
        self._row_splits = row_splits
        # The length of every row when known to be the same (rows of a dense tensor).
        self._uniform_row_length = uniform_row_length

    # -- construction -------------------------------------------------------------------
    @classmethod
    def from_row_splits(cls, values: Any, row_splits: Any, name: str | None = None,
                        validate: bool = True) -> RaggedTensor:
        """Row i is ``values[row_splits[i]:row_splits[i + 1]]``."""
        with ops_lib.name_scope(name, "RaggedFromRowSplits", [values, row_splits]):
            if not isinstance(values, RaggedTensor):
                values = convert_to_tensor(values, name="values")
            row_splits = convert_to_tensor(row_splits, name="row_splits")
            if row_splits.dtype != dtypes_lib.int64:
                row_splits = math_ops.cast(row_splits, dtypes_lib.int64)
            row_splits.shape.assert_has_rank(1)
            if validate:
                nvals = _nrows(values)
                checks = [
                    check_ops.assert_equal(row_splits[:1], array_ops.zeros([1], dtypes_lib.int64),
                                           message="First value of row_splits must be 0"),
                    check_ops.assert_non_negative(row_splits[1:] - row_splits[:-1],
                                                  message="row_splits must be sorted"),
                    check_ops.assert_equal(row_splits[-1:], array_ops.reshape(nvals, [1]),
                                           message="Last value of row_splits must be "
                                                   "nvals"),
                ]
                row_splits = control_flow_ops.with_dependencies(checks, row_splits)
            return cls(values, row_splits)

    @classmethod
    def from_value_rowids(cls, values: Any, value_rowids: Any, nrows: Any = None,
                          name: str | None = None, validate: bool = True) -> RaggedTensor:
        """Value j belongs to row ``value_rowids[j]`` (sorted); ``nrows`` rows."""
        with ops_lib.name_scope(name, "RaggedFromValueRowIds", [values, value_rowids]):
            rowids = math_ops.cast(convert_to_tensor(value_rowids, name="value_rowids"),
                                   dtypes_lib.int64)
            if nrows is None:
                nrows = math_ops.reduce_max(array_ops.concat(
                    [array_ops.constant([-1], dtypes_lib.int64), rowids], 0)) + 1
            nrows = math_ops.cast(convert_to_tensor(nrows, name="nrows"), dtypes_lib.int64)
            lengths = array_ops.unsorted_segment_sum(array_ops.ones_like(rowids), rowids,
                                                     nrows)
            splits = array_ops.concat([array_ops.zeros([1], dtypes_lib.int64),
                                       math_ops.cumsum(lengths)], 0)
            static_nrows = tensor_util.constant_value(nrows)
            if static_nrows is not None:
                splits.set_shape([int(static_nrows) + 1])
            return cls.from_row_splits(values, splits, validate=validate)

    @classmethod
    def from_tensor(cls, tensor: Any, ragged_rank: int = 1,
                    name: str | None = None) -> RaggedTensor:
        """``tensor`` with its first ``ragged_rank`` + 1 dimensions as (uniform) rows."""
        with ops_lib.name_scope(name, "RaggedFromTensor", [tensor]):
            tensor = convert_to_tensor(tensor, name="tensor")
            if tensor.shape.ndims is None or tensor.shape.ndims <= ragged_rank:
                raise ValueError(f"ragged_rank must be less than the rank of tensor "
                                 f"({tensor.shape.ndims}), got {ragged_rank}")
            shape = array_ops.shape(tensor, out_type=dtypes_lib.int64)
            flat = array_ops.reshape(tensor, array_ops.concat(
                [array_ops.reshape(math_ops.reduce_prod(shape[:ragged_rank + 1]), [1]),
                 shape[ragged_rank + 1:]], 0))
            result: Any = flat
            static = tensor.shape.as_list()
            for dim in range(ragged_rank, 0, -1):
                rows = math_ops.reduce_prod(shape[:dim])
                splits = math_ops.range(rows + 1) * shape[dim]
                known = static[:dim]
                splits.set_shape([None if None in known else int(np.prod(known)) + 1])
                result = cls(result, splits, uniform_row_length=static[dim])
            return result

    # -- structure ----------------------------------------------------------------------
    @property
    def shape(self) -> shape_lib.TensorShape:
        nrows = self._row_splits.shape.dims[0].value if self._row_splits.shape.ndims else None
        inner = self._values.shape
        return shape_lib.TensorShape([None if nrows is None else nrows - 1,
                                      self._uniform_row_length]).concatenate(inner[1:])

    def get_shape(self) -> shape_lib.TensorShape:
        return self.shape

    def nrows(self, out_type: Any = dtypes_lib.int64, name: str | None = None) -> Any:
        with ops_lib.name_scope(name, "RaggedNRows", [self]):
            return math_ops.cast(array_ops.size(self._row_splits, out_type=dtypes_lib.int64) - 1,
                                 out_type)

    def row_lengths(self, name: str | None = None) -> ops_lib.Tensor:
        with ops_lib.name_scope(name, "RaggedRowLengths", [self]):
            return self._row_splits[1:] - self._row_splits[:-1]

    def with_values(self, new_values: Any) -> RaggedTensor:
        return RaggedTensor(new_values, self._row_splits, self._uniform_row_length)

    def with_flat_values(self, new_values: Any) -> RaggedTensor:
        if isinstance(self._values, RaggedTensor):
            new_values = self._values.with_flat_values(new_values)
        return RaggedTensor(new_values, self._row_splits, self._uniform_row_length)

    # -- conversion ---------------------------------------------------------------------
    def to_sparse(self, name: str | None = None) -> SparseTensor:
        """The same elements as a SparseTensor (RaggedTensorToSparse)."""
        with ops_lib.name_scope(name, "RaggedToSparse", [self]):
            indices, values, shape = apply_op(
                "RaggedTensorToSparse", rt_nested_splits=list(self.nested_row_splits),
                rt_dense_values=self.flat_values).outputs
            return SparseTensor(indices, values, shape)

    def to_tensor(self, default_value: Any = None, name: str | None = None) -> ops_lib.Tensor:
        """A dense tensor, each row padded with ``default_value`` (0) to the longest."""
        with ops_lib.name_scope(name, "RaggedToTensor", [self]):
            if default_value is None:
                default_value = array_ops.zeros([], dtype=self.dtype)
            dense = sparse_ops.sparse_tensor_to_dense(self.to_sparse(),
                                                      default_value=default_value)
            dense.set_shape(self.shape)
            return dense

    def __repr__(self) -> str:
        return f"tf.RaggedTensor(values={self._values}, row_splits={self._row_splits})"


def _nrows(values: Any) -> ops_lib.Tensor:
    if isinstance(values, RaggedTensor):
        return values.nrows()
    return array_ops.shape(values, out_type=dtypes_lib.int64)[0]


class RaggedTensorValue(_NestedRows):
    """A fetched RaggedTensor: numpy ``values`` (or a RaggedTensorValue) and
    ``row_splits``."""

    def __init__(self, values: Any, row_splits: np.ndarray):
        self._values = values
        self._row_splits = row_splits


    @property
    def shape(self) -> tuple:
        return (self._row_splits.shape[0] - 1, None) + tuple(np.shape(self.flat_values)[1:])

    def to_list(self) -> list:
        values = self._values.to_list() if isinstance(self._values, RaggedTensorValue) \
            else np.asarray(self._values).tolist()
        s = self._row_splits.tolist()
        return [values[a:b] for a, b in zip(s[:-1], s[1:])]

    def __repr__(self) -> str:
        return f"tf.RaggedTensorValue(values={self._values!r}, row_splits={self._row_splits!r})"
