"""SparseTensor functions TF builds from other ops (no op of their own):
``tf.sparse.expand_dims``, ``tf.sparse.eye``, ``tf.sparse.reset_shape`` and
``tf.sparse.to_indicator``, built node for node as TF's sparse_ops builds them."""

from __future__ import annotations

from typing import Any

import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_util
from graphcore.framework.sparse_tensor import SparseTensor
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, check_ops, control_flow_ops, math_ops
from graphcore.ops.sparse_ops import (
    _convert_to_sparse_tensor,
    sparse_merge,
    sparse_tensor_to_dense,
)

__all__ = ["sparse_expand_dims", "sparse_eye", "sparse_reset_shape", "sparse_to_indicator"]

_INTEGRAL = (int, np.integer)


def _make_int64_tensor(value: Any, name: str) -> ops_lib.Tensor:
    if isinstance(value, _INTEGRAL):
        return convert_to_tensor(value, name=name, dtype=dtypes_lib.int64)
    if not isinstance(value, ops_lib.Tensor):
        raise TypeError(f"{name} must be an integer value")
    if value.dtype == dtypes_lib.int64:
        return value
    return math_ops.cast(value, dtypes_lib.int64)


def sparse_expand_dims(sp_input: Any, axis: Any = None, name: str | None = None) -> SparseTensor:
    """``sp_input`` with a dimension of size 1 inserted at ``axis`` (-1: innermost)."""
    rank = sp_input.dense_shape.get_shape()[0]
    rank = rank.value if hasattr(rank, "value") else rank
    if rank is None:
        rank = array_ops.shape(sp_input.dense_shape)[0]
    axis = -1 if axis is None else axis
    with ops_lib.name_scope(name, default_name="expand_dims", values=[sp_input]):
        if isinstance(axis, _INTEGRAL):
            axis = convert_to_tensor(axis, name="axis", dtype=dtypes_lib.int32)
        elif not isinstance(axis, ops_lib.Tensor):
            raise TypeError("axis must be an integer value in range [-rank(sp_input) - 1, "
                            "rank(sp_input)]")
        axis = math_ops.where_v2(axis >= 0, axis, axis + rank + 1)
        column_size = array_ops.shape(sp_input.indices)[0]
        new_index = array_ops.zeros([column_size, 1], dtype=dtypes_lib.int64)
        indices_before = array_ops.slice(sp_input.indices, [0, 0], [-1, axis])
        indices_after = array_ops.slice(sp_input.indices, [0, axis], [-1, -1])
        indices = array_ops.concat([indices_before, new_index, indices_after], axis=1)
        shape_before = array_ops.slice(sp_input.dense_shape, [0], [axis])
        shape_after = array_ops.slice(sp_input.dense_shape, [axis], [-1])
        new_shape = convert_to_tensor([1], name="new_shape", dtype=dtypes_lib.int64)
        shape = array_ops.concat([shape_before, new_shape, shape_after], axis=0)
        return SparseTensor(indices=indices, values=sp_input.values, dense_shape=shape)


def sparse_eye(num_rows: Any, num_columns: Any = None, dtype: Any = dtypes_lib.float32,
               name: str | None = None) -> SparseTensor:
    """A [num_rows, num_columns] SparseTensor of ones on the diagonal."""
    with ops_lib.name_scope(name, default_name="eye", values=[num_rows, num_columns]):
        num_rows = _make_int64_tensor(num_rows, "num_rows")
        num_columns = num_rows if num_columns is None else _make_int64_tensor(
            num_columns, "num_columns")
        diag_size = math_ops.minimum(num_rows, num_columns)
        diag_range = math_ops.range(diag_size, dtype=dtypes_lib.int64)
        return SparseTensor(indices=array_ops.stack([diag_range, diag_range], axis=1),
                            values=array_ops.ones(diag_size, dtype=dtype),
                            dense_shape=[num_rows, num_columns])


def sparse_to_indicator(sp_input: Any, vocab_size: Any, name: str | None = None) -> Any:
    """A dense bool tensor [..., vocab_size]: true at the ids of each row of ``sp_input``."""
    sp_input = _convert_to_sparse_tensor(sp_input)
    with ops_lib.name_scope(name, "SparseToIndicator", [sp_input]) as name:
        num_entries = array_ops.shape(sp_input.indices)[0]
        new_values = array_ops.fill(array_ops.expand_dims(num_entries, 0), True)
        sp_values = SparseTensor(sp_input.indices, new_values, sp_input.dense_shape)
        sp_new = sparse_merge(sp_input, sp_values, vocab_size, name)
        return sparse_tensor_to_dense(sp_new, default_value=False, validate_indices=False,
                                      name=name)


def sparse_reset_shape(sp_input: Any, new_shape: Any = None) -> SparseTensor:
    """``sp_input`` with dense shape ``new_shape`` (no smaller than the old one), or
    the tight bounding box of its indices when None."""
    sp_input = _convert_to_sparse_tensor(sp_input)
    in_indices = array_ops.identity(sp_input.indices)
    in_values = array_ops.identity(sp_input.values)
    in_shape = array_ops.identity(sp_input.dense_shape)
    if new_shape is None:
        dim_low_bound = math_ops.reduce_max(in_indices, axis=0)
        output_shape_tensor = math_ops.maximum(
            array_ops.constant(0, dtype=dtypes_lib.int64),
            math_ops.add(dim_low_bound, array_ops.ones_like(in_shape)))
    else:
        output_shape_tensor = convert_to_tensor(new_shape)
        output_shape_tensor.get_shape().assert_has_rank(1)
        output_shape_tensor = math_ops.cast(output_shape_tensor, dtypes_lib.int64)
        if output_shape_tensor.get_shape().rank is not None:
            output_shape_tensor.get_shape().dims[0].assert_is_compatible_with(
                in_shape.get_shape().dims[0])
        output_shape_tensor_const = tensor_util.constant_value(output_shape_tensor)
        if (output_shape_tensor_const is not None
                and sp_input.get_shape().is_fully_defined()):
            in_shape_const = np.array(sp_input.get_shape().as_list())
            if not np.all(in_shape_const <= output_shape_tensor_const):
                raise ValueError(
                    "Requested new_shape should have dimension sizes >= sp_input.shape."
                    f"  Found new_shape ({in_shape_const}), sp_input.shape "
                    f"({output_shape_tensor_const}).")
            output_shape_tensor = output_shape_tensor_const
        else:
            output_shape_tensor = control_flow_ops.with_dependencies([
                check_ops.assert_equal(array_ops.shape(in_shape),
                                       array_ops.shape(output_shape_tensor))],
                output_shape_tensor)
            output_shape_tensor = control_flow_ops.with_dependencies(
                [check_ops.assert_less_equal(in_shape, output_shape_tensor)],
                output_shape_tensor)
    return SparseTensor(in_indices, in_values, output_shape_tensor)
