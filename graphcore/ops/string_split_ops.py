"""Splitting and segment-joining strings (TF's string_ops): StringSplit (any of the
delimiter's characters), StringSplitV2 (a separator string, or whitespace runs) and
UnsortedSegmentJoin, with TF1's ``tf.string_split``, ``tf.strings.split`` (a SparseTensor
result) and ``tf.strings.unsorted_segment_join``. Kernels:
:mod:`graphcore.kernels.string_split_kernels`."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import op_registry, tensor_util
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.gradient_registry import NotDifferentiable
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.sparse_tensor import SparseTensor
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, math_ops
from graphcore.ops.ragged_tensor import RaggedTensor

__all__ = ["string_bytes_split", "string_split", "strings_split_v1", "unsorted_segment_join"]

_SPLIT_OUT = ("indices: int64", "values: string", "shape: int64")


def _split_shape(op: ops_lib.Operation) -> list:
    op._inputs[0].shape.assert_has_rank(1)
    op._inputs[1].shape.assert_has_rank(0)
    return [shape_lib.TensorShape([None, 2]), shape_lib.TensorShape([None]),
            shape_lib.TensorShape([2])]


def _segment_join_shape(op: ops_lib.Operation) -> list:
    num_segments = tensor_util.constant_value(op._inputs[2])
    ids = op._inputs[1].shape
    data = op._inputs[0].shape
    if num_segments is None or ids.ndims is None or data.ndims is None:
        return [shape_lib.unknown_shape()]
    return [shape_lib.TensorShape([int(num_segments)]).concatenate(data[ids.ndims:])]


_b = op_registry.register_op("StringSplit").input("input: string").input("delimiter: string")
for _spec in _SPLIT_OUT:
    _b.output(_spec)
_b.attr("skip_empty: bool = true").shape_fn(_split_shape)
_b = op_registry.register_op("StringSplitV2").input("input: string").input("sep: string")
for _spec in _SPLIT_OUT:
    _b.output(_spec)
_b.attr("maxsplit: int = -1").shape_fn(_split_shape)
op_registry.register_op("UnsortedSegmentJoin").input("inputs: string") \
    .input("segment_ids: Tindices").input("num_segments: Tnumsegments") \
    .output("output: string").attr("separator: string = ''") \
    .attr("Tindices: {int32, int64}").attr("Tnumsegments: {int32, int64} = DT_INT32") \
    .shape_fn(_segment_join_shape)
for _op_type in ("StringSplit", "StringSplitV2", "UnsortedSegmentJoin"):
    NotDifferentiable(_op_type)


def _sparse_result(indices: Any, values: Any, shape: Any) -> SparseTensor:
    indices.set_shape([None, 2])
    values.set_shape([None])
    shape.set_shape([2])
    return SparseTensor(indices, values, shape)


def _string_split_op(source: Any, sep: Any, skip_empty: bool, delimiter: Any) -> SparseTensor:
    if sep is not None and delimiter is not None:
        raise ValueError("Cannot specify both 'sep' and 'delimiter'.")
    delimiter = sep if delimiter is None else delimiter
    if delimiter is None:
        delimiter = " "
    delimiter = convert_to_tensor(delimiter, dtype=dtypes_lib.string)
    source = convert_to_tensor(source, dtype=dtypes_lib.string)
    return _sparse_result(*apply_op("StringSplit", input=source, delimiter=delimiter,
                                    skip_empty=skip_empty).outputs)


def _string_split_v2_op(source: Any, sep: Any, maxsplit: int) -> SparseTensor:
    if sep is None:
        sep = ""
    sep = convert_to_tensor(sep, dtype=dtypes_lib.string)
    source = convert_to_tensor(source, dtype=dtypes_lib.string)
    return _sparse_result(*apply_op("StringSplitV2", input=source, sep=sep,
                                    maxsplit=maxsplit).outputs)


def string_split(source: Any, sep: Any = None, skip_empty: bool = True, delimiter: Any = None,
                 result_type: str = "SparseTensor", name: str | None = None) -> SparseTensor:
    """The strings of the vector ``source`` split at any character of ``sep`` (" ";
    every byte when empty), as a [batch, max tokens] SparseTensor (StringSplit)."""
    with ops_lib.name_scope(name, "StringSplit", [source]):
        sparse_result = _string_split_op(source, sep, skip_empty, delimiter)
        if result_type == "SparseTensor":
            return sparse_result
        if result_type == "RaggedTensor":
            return _rows_of(sparse_result.indices.op.inputs[0],  # the split strings
                            RaggedTensor.from_value_rowids(
                                values=sparse_result.values,
                                value_rowids=sparse_result.indices[:, 0],
                                nrows=sparse_result.dense_shape[0], validate=False))
        raise ValueError("result_type must be 'RaggedTensor' or 'SparseTensor'.")


def strings_split_v1(input: Any = None, sep: Any = None, maxsplit: int = -1,  # noqa: A002
                     result_type: str = "SparseTensor", source: Any = None,
                     name: str | None = None) -> SparseTensor:
    """Each string split at ``sep`` (whitespace runs when None), at most ``maxsplit``
    times, as a SparseTensor one dimension deeper than ``input`` (StringSplitV2)."""
    if input is not None and source is not None:
        raise ValueError("Cannot specify both 'input' and 'source'.")
    input = source if input is None else input  # noqa: A001
    with ops_lib.name_scope(name, "StringSplit", [input]):
        input = convert_to_tensor(input, dtype=dtypes_lib.string, name="input")  # noqa: A001
        if input.shape.rank == 0:
            input = array_ops.expand_dims(input, 0)  # noqa: A001
        if result_type not in ("SparseTensor", "RaggedTensor"):
            raise ValueError("result_type must be 'RaggedTensor' or 'SparseTensor'.")
        if result_type == "RaggedTensor":
            return _split_v2_ragged(input, sep, maxsplit)
        if input.shape.rank == 1:
            return _string_split_v2_op(input, sep, maxsplit)
        # Higher ranks: split the flattened strings, then give each token the position of
        # its string (row-major, as the flattening) ahead of its token index.
        flat = _string_split_v2_op(array_ops.reshape(input, [-1]), sep, maxsplit)
        positions = math_ops.where_v2(array_ops.ones_like(input, dtype=dtypes_lib.bool))
        indices = array_ops.concat([array_ops.gather(positions, flat.indices[:, 0]),
                                    flat.indices[:, 1:]], axis=1)
        dense_shape = array_ops.concat([array_ops.shape(input, out_type=dtypes_lib.int64),
                                        flat.dense_shape[1:]], axis=0)
        return SparseTensor(indices, flat.values, dense_shape)


def _rows_of(input: ops_lib.Tensor, rt: RaggedTensor) -> RaggedTensor:  # noqa: A002
    """``rt`` with as many rows as ``input`` has strings, statically when known (TF's)."""
    n = input.shape.dims[0].value if input.shape.ndims else None
    if n is not None:
        rt.row_splits.set_shape([n + 1])
    return rt


def _split_v2_ragged(input: ops_lib.Tensor, sep: Any, maxsplit: int) -> RaggedTensor:  # noqa: A002
    """TF's ragged string_split_v2 of a vector or higher-rank ``input``."""
    rank = input.shape.ndims
    if rank is not None and rank > 1:
        rt = RaggedTensor.from_tensor(input, ragged_rank=rank - 1)
        return rt.with_flat_values(_split_v2_ragged(rt.flat_values, sep, maxsplit))
    sparse_result = _string_split_v2_op(input, sep, maxsplit)
    return _rows_of(input, RaggedTensor.from_value_rowids(
        values=sparse_result.values, value_rowids=sparse_result.indices[:, 0],
        nrows=sparse_result.dense_shape[0], validate=False))


def string_bytes_split(input: Any, name: str | None = None) -> Any:  # noqa: A002
    """The bytes of each string as 1-byte strings: a vector for a scalar, else a
    RaggedTensor one dimension deeper (StringSplit with an empty delimiter)."""
    with ops_lib.name_scope(name, "StringsByteSplit", [input]):
        input = convert_to_tensor(input, name="input")  # noqa: A001
        rank = input.shape.ndims
        if rank is None:
            raise ValueError("input must have a statically-known rank.")
        if rank == 0:
            return string_bytes_split(array_ops.stack([input])).values
        if rank == 1:
            indices, values, shape = apply_op("StringSplit", input=input, delimiter="",
                                              skip_empty=False).outputs
            return _rows_of(input, RaggedTensor.from_value_rowids(
                values=values, value_rowids=indices[:, 0], nrows=shape[0], validate=False))
        rt = RaggedTensor.from_tensor(input, ragged_rank=rank - 1)
        return rt.with_flat_values(string_bytes_split(rt.flat_values))


def unsorted_segment_join(inputs: Any, segment_ids: Any, num_segments: Any,
                          separator: str = "", name: str | None = None) -> ops_lib.Tensor:
    """The strings of each segment joined in order by ``separator``; segments without
    any are empty (UnsortedSegmentJoin)."""
    return apply_op("UnsortedSegmentJoin", name=name, inputs=inputs, segment_ids=segment_ids,
                    num_segments=num_segments, separator=separator).outputs[0]
