"""Bitwise ops (tf.bitwise): LeftShift and RightShift defined here; BitwiseAnd, BitwiseOr,
BitwiseXor and Invert are defined with the math ops and wrapped here under TF's names."""

from __future__ import annotations

from typing import Any

from graphcore.framework import common_shapes, op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import NotDifferentiable
from graphcore.framework.op_def_library import apply_op
from graphcore.ops.elementwise_ops import _binary_wrapper

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]

_BITWISE = "{int8, int16, int32, int64, uint8, uint16, uint32, uint64}"
for _op_type in ("LeftShift", "RightShift"):
    op_registry.register_op(_op_type).input("x: T").input("y: T").output("z: T") \
        .attr(f"T: {_BITWISE}").shape_fn(common_shapes.broadcast_binary)
    NotDifferentiable(_op_type)


bitwise_and = _binary_wrapper("BitwiseAnd", "bitwise_and", ("x", "y"))
bitwise_or = _binary_wrapper("BitwiseOr", "bitwise_or", ("x", "y"))
bitwise_xor = _binary_wrapper("BitwiseXor", "bitwise_xor", ("x", "y"))
left_shift = _binary_wrapper("LeftShift", "left_shift", ("x", "y"))
right_shift = _binary_wrapper("RightShift", "right_shift", ("x", "y"))


def invert(x: Any, name: str | None = None) -> ops_lib.Tensor:
    """The bitwise complement of an integer tensor (Invert)."""
    return apply_op("Invert", name=name, x=x).outputs[0]
