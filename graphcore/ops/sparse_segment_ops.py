"""Sparse segment reductions (TF's SparseSegmentSum/Mean/SqrtN, their *WithNumSegments
forms and *Grad ops): ``output[segment_ids[i]] (+)= data[indices[i]]`` over sorted segment
ids, a gather and a segment reduction in one op, which ``embedding_lookup_sparse`` uses.
Gradients in :mod:`graphcore.ops.sparse_segment_grad`, kernels in
:mod:`graphcore.kernels.sparse_segment_kernels`."""

from __future__ import annotations

from typing import Any

from graphcore.framework import op_registry, tensor_util
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op

__all__ = ["sparse_segment_mean", "sparse_segment_sqrt_n", "sparse_segment_sum"]

_REAL = "realnumbertype"
_FLOAT = "{bfloat16, half, float, double}"
REDUCTIONS = {"SparseSegmentSum": _REAL, "SparseSegmentMean": _FLOAT,
              "SparseSegmentSqrtN": _FLOAT}


def _check_vector(op: ops_lib.Operation, i: int) -> shape_lib.TensorShape:
    s = op._inputs[i].shape
    if s.ndims is not None and s.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {s.ndims} for '{op.name}'")
    return s.with_rank(1)


def _sparse_segment_shape(op: ops_lib.Operation) -> list:
    data = op._inputs[0].shape
    _check_vector(op, 1).merge_with(_check_vector(op, 2))
    if data.ndims is None:
        return [shape_lib.unknown_shape()]
    dim0 = None
    if len(op._inputs) == 4:
        num = tensor_util.constant_value(op._inputs[3])
        dim0 = None if num is None else int(num)
    return [shape_lib.TensorShape([dim0]).concatenate(data.with_rank_at_least(1)[1:])]


def _grad_shape(op: ops_lib.Operation) -> list:
    grad = op._inputs[0].shape
    _check_vector(op, 1).merge_with(_check_vector(op, 2))
    dim0 = tensor_util.constant_value(op._inputs[3])
    if grad.ndims is None:
        return [shape_lib.unknown_shape()]
    return [shape_lib.TensorShape([None if dim0 is None else int(dim0)])
            .concatenate(grad.with_rank_at_least(1)[1:])]


_INDEX = "{int32, int64} = DT_INT32"
for _op_type, _types in REDUCTIONS.items():
    for _with_num in (False, True):
        _b = op_registry.register_op(_op_type + ("WithNumSegments" if _with_num else "")) \
            .input("data: T").input("indices: Tidx").input("segment_ids: Tsegmentids")
        if _with_num:
            _b.input("num_segments: Tnumsegments")
        _b.output("output: T").attr(f"T: {_types}").attr(f"Tidx: {_INDEX}")
        if _with_num:
            _b.attr(f"Tnumsegments: {_INDEX}")
        _b.attr(f"Tsegmentids: {_INDEX}").attr("sparse_gradient: bool = false") \
            .shape_fn(_sparse_segment_shape)
    op_registry.register_op(_op_type + "Grad").input("grad: T").input("indices: Tidx") \
        .input("segment_ids: Tsegmentids").input("output_dim0: int32").output("output: T") \
        .attr("T: {bfloat16, half, float, double}").attr(f"Tidx: {_INDEX}") \
        .attr(f"Tsegmentids: {_INDEX}").shape_fn(_grad_shape)


def _reduction(op_type: str, py_name: str):
    def fn(data: Any, indices: Any, segment_ids: Any, name: str | None = None,
           num_segments: Any = None) -> ops_lib.Tensor:
        if num_segments is not None:
            return apply_op(op_type + "WithNumSegments", name=name, data=data, indices=indices,
                            segment_ids=segment_ids, num_segments=num_segments).outputs[0]
        return apply_op(op_type, name=name, data=data, indices=indices,
                        segment_ids=segment_ids).outputs[0]

    fn.__name__ = py_name
    fn.__doc__ = (f"TF's ``tf.{py_name}(data, indices, segment_ids, name, num_segments)``: "
                  f"``{op_type}`` of the rows ``data[indices]`` per sorted segment id.")
    return fn


sparse_segment_sum = _reduction("SparseSegmentSum", "sparse_segment_sum")
sparse_segment_mean = _reduction("SparseSegmentMean", "sparse_segment_mean")
sparse_segment_sqrt_n = _reduction("SparseSegmentSqrtN", "sparse_segment_sqrt_n")


def sparse_segment_grad(op_type: str, grad: Any, indices: Any, segment_ids: Any,
                        output_dim0: Any, name: str | None = None) -> ops_lib.Tensor:
    """``<op_type>Grad``: ``grad``'s segment rows scattered back to ``indices``."""
    return apply_op(op_type + "Grad", name=name, grad=grad, indices=indices,
                    segment_ids=segment_ids, output_dim0=output_dim0).outputs[0]
