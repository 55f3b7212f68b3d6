"""Gradients of :mod:`graphcore.ops.manip_ops` (TF's array_grad formulas)."""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_util
from graphcore.framework.gradient_registry import NotDifferentiable, RegisterGradient
from graphcore.framework.op_def_library import apply_op
from graphcore.ops import array_ops, manip_ops, math_ops

for _op_type in ("Bitcast", "BroadcastArgs", "LinSpace", "UnravelIndex", "Unique", "UniqueWithCounts", "ListDiff",
                 "UpperBound", "LowerBound", "Bucketize", "Bincount", "HistogramFixedWidth"):
    NotDifferentiable(_op_type)


@RegisterGradient("BroadcastTo")
def _broadcast_to_grad(op: ops_lib.Operation, grad: Any) -> list:
    input_value, broadcast_shape = op.inputs
    input_value_shape = array_ops.shape(input_value)
    static = tensor_util.constant_value(broadcast_shape)
    if static is not None:
        broadcast_shape = array_ops.constant(static.tolist(), dtype=input_value_shape.dtype)
    _, reduction_axes = apply_op("BroadcastGradientArgs", s0=broadcast_shape,
                                 s1=input_value_shape).outputs
    summed = math_ops.reduce_sum(grad, axis=reduction_axes, keepdims=True)
    return [array_ops.reshape(summed, input_value_shape), None]


@RegisterGradient("Roll")
def _roll_grad(op: ops_lib.Operation, grad: Any) -> list:
    shift, axis = op.inputs[1], op.inputs[2]
    return [manip_ops.roll(grad, -shift, axis), None, None]


@RegisterGradient("ReverseSequence")
def _reverse_sequence_grad(op: ops_lib.Operation, grad: Any) -> list:
    return [manip_ops.reverse_sequence(grad, op.inputs[1], seq_axis=op.get_attr("seq_dim"),
                                       batch_axis=op.get_attr("batch_dim")), None]


@RegisterGradient("EnsureShape")
def _ensure_shape_grad(op: ops_lib.Operation, grad: Any) -> Any:
    del op
    return grad
