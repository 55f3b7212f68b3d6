"""Segment reductions (TF's segment ops): ``segment_sum/mean/max/min/prod`` over sorted
segment ids, ``unsorted_segment_*`` over any ids (negative ids dropped), with TF's
OpDefs and shape functions; ``unsorted_segment_mean/sqrt_n`` as TF composes them."""

from __future__ import annotations

from typing import Any

from graphcore.framework import op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, gen_array_ops, math_ops

_ALL = ("{float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, "
        "bfloat16, qint16, quint16, uint16, complex128, half, uint32, uint64}")
_REAL = "{float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64}"
SORTED = {"SegmentSum": _ALL, "SegmentMean": _ALL, "SegmentProd": _ALL, "SegmentMax": _REAL,
          "SegmentMin": _REAL}
UNSORTED = {"UnsortedSegmentMax": _REAL, "UnsortedSegmentMin": _REAL,
            "UnsortedSegmentProd": _ALL}

__all__ = ["segment_max", "segment_mean", "segment_min", "segment_prod", "segment_sum",
           "unsorted_segment_max", "unsorted_segment_mean", "unsorted_segment_min",
           "unsorted_segment_prod", "unsorted_segment_sqrt_n"]


def _segment_shape(op: ops_lib.Operation) -> list:
    data = op._inputs[0].shape
    ids = op._inputs[1].shape.with_rank(1)
    if data.ndims is None:
        return [shape_lib.unknown_shape()]
    data = data.with_rank_at_least(1)
    ids.merge_with(data[:1])
    return [shape_lib.TensorShape([None]).concatenate(data[1:])]


for _op_type, _types in SORTED.items():
    op_registry.register_op(_op_type).input("data: T").input("segment_ids: Tindices") \
        .output("output: T").attr(f"T: {_types}").attr("Tindices: {int32, int64}") \
        .shape_fn(_segment_shape)
for _op_type, _types in UNSORTED.items():
    op_registry.register_op(_op_type).input("data: T").input("segment_ids: Tindices") \
        .input("num_segments: Tnumsegments").output("output: T").attr(f"T: {_types}") \
        .attr("Tindices: {int32, int64}").attr("Tnumsegments: {int32, int64} = DT_INT32") \
        .shape_fn(gen_array_ops.unsorted_segment_shape)


def _sorted(op_type: str, py_name: str):
    def fn(data: Any, segment_ids: Any, name: str | None = None) -> ops_lib.Tensor:
        return apply_op(op_type, name=name, data=data, segment_ids=segment_ids).outputs[0]

    fn.__name__ = py_name
    fn.__doc__ = f"TF's ``{op_type}``: a reduction of ``data`` per sorted segment id."
    return fn


def _unsorted(op_type: str, py_name: str):
    def fn(data: Any, segment_ids: Any, num_segments: Any,
           name: str | None = None) -> ops_lib.Tensor:
        return apply_op(op_type, name=name, data=data, segment_ids=segment_ids,
                        num_segments=num_segments).outputs[0]

    fn.__name__ = py_name
    fn.__doc__ = f"TF's ``{op_type}``: a reduction of ``data`` per segment id in " \
                 "[0, num_segments); negative ids are dropped."
    return fn


segment_sum = _sorted("SegmentSum", "segment_sum")
segment_mean = _sorted("SegmentMean", "segment_mean")
segment_prod = _sorted("SegmentProd", "segment_prod")
segment_max = _sorted("SegmentMax", "segment_max")
segment_min = _sorted("SegmentMin", "segment_min")
unsorted_segment_max = _unsorted("UnsortedSegmentMax", "unsorted_segment_max")
unsorted_segment_min = _unsorted("UnsortedSegmentMin", "unsorted_segment_min")
unsorted_segment_prod = _unsorted("UnsortedSegmentProd", "unsorted_segment_prod")


def unsorted_segment_count(data: ops_lib.Tensor, segment_ids: ops_lib.Tensor,
                           num_segments: Any) -> ops_lib.Tensor:
    """TF's ``_unsorted_segment_N``: how many ids fall in each segment (at least 1),
    shaped to broadcast against the sums."""
    num_segments = convert_to_tensor(num_segments)
    ones = array_ops.ones(array_ops.shape(segment_ids), dtype=data.dtype)
    n = array_ops.unsorted_segment_sum(ones, segment_ids, num_segments)
    broadcastable_shape = array_ops.concat(
        [array_ops.expand_dims(num_segments, 0),
         array_ops.ones([array_ops.rank(data) - array_ops.rank(segment_ids)],
                        dtype=num_segments.dtype)], axis=0)
    n = array_ops.reshape(n, broadcastable_shape)
    return math_ops.maximum(n, 1)


def unsorted_segment_mean(data: Any, segment_ids: Any, num_segments: Any,
                          name: str | None = None) -> ops_lib.Tensor:
    """The mean of ``data`` per segment (0 for an empty one)."""
    with ops_lib.name_scope(name, "UnsortedSegmentMean"):
        data = convert_to_tensor(data)
        segment_ids = convert_to_tensor(segment_ids)
        n = unsorted_segment_count(data, segment_ids, num_segments)
        summed = array_ops.unsorted_segment_sum(data, segment_ids, num_segments)
        return summed / n


def unsorted_segment_sqrt_n(data: Any, segment_ids: Any, num_segments: Any,
                            name: str | None = None) -> ops_lib.Tensor:
    """The sum of ``data`` per segment divided by sqrt(its size)."""
    with ops_lib.name_scope(name, "UnsortedSegmentSqrtN"):
        data = convert_to_tensor(data)
        segment_ids = convert_to_tensor(segment_ids)
        n = unsorted_segment_count(data, segment_ids, num_segments)
        summed = array_ops.unsorted_segment_sum(data, segment_ids, num_segments)
        return summed / math_ops.sqrt(n)
