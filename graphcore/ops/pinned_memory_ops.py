"""``tf.check_pinned`` (op CheckPinned): passes a tensor through, failing unless its
buffer is host memory pinned for the GPU. Kernel: :mod:`graphcore.kernels.pinned_memory_kernels`."""

from __future__ import annotations

from typing import Any

from graphcore.framework import common_shapes, op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework.op_def_library import apply_op

__all__ = ["check_pinned"]

op_registry.register_op("CheckPinned").input("tensor: T").output("output: T").attr("T: type") \
    .shape_fn(common_shapes.unchanged_shape)


def check_pinned(tensor: Any, name: str | None = None) -> ops_lib.Tensor:
    """``tensor``, once checked to be in pinned host memory (InvalidArgumentError if not;
    FailedPreconditionError without CUDA)."""
    return apply_op("CheckPinned", name=name, tensor=tensor).outputs[0]
