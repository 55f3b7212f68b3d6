"""CountUpTo (TF's state op behind ``Variable.count_up_to``): increments an integer ref
variable until ``limit``, then raises OutOfRangeError; ``limit_epochs`` counts epochs
with it."""

from __future__ import annotations

from typing import Any

from graphcore.framework import op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op

__all__ = ["count_up_to"]

op_registry.register_op("CountUpTo").input("ref: Ref(T)").output("output: T") \
    .attr("limit: int").attr("T: {int32, int64}") \
    .shape_fn(lambda op: [op._inputs[0].shape.merge_with(shape_lib.TensorShape([]))])


def count_up_to(ref: Any, limit: int, name: str | None = None) -> ops_lib.Tensor:
    """Increments ``ref`` until it reaches ``limit``; returns the value before."""
    return apply_op("CountUpTo", name=name, ref=ref, limit=limit).outputs[0]
