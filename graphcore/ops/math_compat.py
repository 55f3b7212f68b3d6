"""TF1's older top-level math spellings that have no home in the math-op modules:
``arg_max``/``arg_min`` (the raw ArgMax/ArgMin wrappers) and the ``to_*`` casts TF1 kept for
bfloat16 and the complex types."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.ops import math_ops

__all__ = ["arg_max", "arg_min", "to_bfloat16", "to_complex64", "to_complex128"]


def arg_max(input: Any, dimension: Any, output_type: Any = dtypes_lib.int64,  # noqa: A002
            name: str | None = None) -> ops_lib.Tensor:
    """The index of the largest value along ``dimension`` (ArgMax)."""
    return apply_op("ArgMax", name=name, input=input, dimension=dimension,
                    output_type=output_type).outputs[0]


def arg_min(input: Any, dimension: Any, output_type: Any = dtypes_lib.int64,  # noqa: A002
            name: str | None = None) -> ops_lib.Tensor:
    """The index of the smallest value along ``dimension`` (ArgMin)."""
    return apply_op("ArgMin", name=name, input=input, dimension=dimension,
                    output_type=output_type).outputs[0]


def to_bfloat16(x: Any, name: str = "ToBFloat16") -> ops_lib.Tensor:
    """``x`` cast to bfloat16."""
    return math_ops.cast(x, dtypes_lib.bfloat16, name=name)


def to_complex64(x: Any, name: str = "ToComplex64") -> ops_lib.Tensor:
    """``x`` cast to complex64."""
    return math_ops.cast(x, dtypes_lib.complex64, name=name)


def to_complex128(x: Any, name: str = "ToComplex128") -> ops_lib.Tensor:
    """``x`` cast to complex128."""
    return math_ops.cast(x, dtypes_lib.complex128, name=name)
