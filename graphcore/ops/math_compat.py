"""Math functions TF1 exposes that the math-op modules lack: the older top-level spellings
(``arg_max``/``arg_min``, the ``to_*`` casts for bfloat16 and the complex types) and
``tf.math`` functions TF composes in Python from existing ops (accumulate_n,
reduce_variance, reduce_std, reciprocal_no_nan, polyval, erfcinv)."""

from __future__ import annotations

from typing import Any

import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, elementwise_ops, math_ops

__all__ = ["accumulate_n", "arg_max", "arg_min", "to_bfloat16", "to_complex64", "to_complex128"]


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


def accumulate_n(inputs: Any, shape: Any = None, tensor_dtype: Any = None,
                 name: str | None = None) -> ops_lib.Tensor:
    """The sum of same-shaped, same-dtype ``inputs`` (AddN, as TF 2.x builds it)."""
    def input_error() -> ValueError:
        return ValueError("inputs must be a list of at least one Tensor with the same dtype "
                          "and shape")

    if not inputs or not isinstance(inputs, (list, tuple)):
        raise input_error()
    inputs = [convert_to_tensor(x) for x in inputs]
    if not all(x.dtype == inputs[0].dtype for x in inputs):
        raise input_error()
    merged = shape_lib.unknown_shape() if shape is None else shape_lib.as_shape(shape)
    for x in inputs:
        merged = merged.merge_with(x.shape)
    if tensor_dtype is not None and tensor_dtype != inputs[0].dtype:
        raise TypeError(f"The `tensor_dtype` argument is {tensor_dtype}, but `input` is of "
                        f"type {inputs[0].dtype}. These must be equal. Try casting the input "
                        f"to the desired type.")
    if len(inputs) == 1:
        return inputs[0] if name is None else array_ops.identity(inputs[0], name=name)
    return math_ops.add_n(inputs, name=name)


def reduce_variance(input_tensor: Any, axis: Any = None, keepdims: bool = False,
                    name: str | None = None) -> ops_lib.Tensor:
    """The variance of elements across ``axis`` (mean of squared deviations)."""
    with ops_lib.name_scope(name or "reduce_variance"):
        input_tensor = convert_to_tensor(input_tensor)
        means = math_ops.reduce_mean(input_tensor, axis=axis, keepdims=True)
        if means.dtype.is_integer:
            raise TypeError(f"Input must be either real or complex. Received integer type "
                            f"{means.dtype}.")
        diff = input_tensor - means
        if diff.dtype.is_complex:
            squared = elementwise_ops.real(math_ops.conj(diff) * diff)
        else:
            squared = math_ops.square(diff)
        return math_ops.reduce_mean(squared, axis=axis, keepdims=keepdims)


def reduce_std(input_tensor: Any, axis: Any = None, keepdims: bool = False,
               name: str | None = None) -> ops_lib.Tensor:
    """The standard deviation of elements across ``axis``."""
    with ops_lib.name_scope(name or "reduce_std"):
        input_tensor = convert_to_tensor(input_tensor)
        return math_ops.sqrt(reduce_variance(input_tensor, axis=axis, keepdims=keepdims))


def reciprocal_no_nan(x: Any, name: str | None = None) -> ops_lib.Tensor:
    """1 / x, with 0 where x is 0 (DivNoNan)."""
    with ops_lib.name_scope(name, "reciprocal_no_nan", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        one = array_ops.constant(1, dtype=x.dtype.base_dtype, name="one")
        return math_ops.div_no_nan(one, x, name=scope)


def polyval(coeffs: Any, x: Any, name: str | None = None) -> ops_lib.Tensor:
    """The polynomial with ``coeffs`` (highest power first) at ``x``, by Horner's rule."""
    if not isinstance(coeffs, list):
        raise ValueError(f"Argument coeffs must be list type. Received type {type(coeffs)}.")
    with ops_lib.name_scope(name, "polyval", coeffs + [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if not coeffs:
            return array_ops.zeros_like(x, name=scope)
        coeffs = [convert_to_tensor(c, name=f"coeff_{i}") for i, c in enumerate(coeffs)]
        p = coeffs[0]
        for c in coeffs[1:]:
            p = c + p * x
        return p


def erfcinv(x: Any, name: str | None = None) -> ops_lib.Tensor:
    """The inverse complementary error function, -ndtri(x / 2) / sqrt(2)."""
    with ops_lib.name_scope(name, "erfcinv", [x]):
        x = convert_to_tensor(x, name="start")
        half = 0.5 * x
        # TF's math_ops.ndtri wraps the op in an "ndtri" name scope.
        with ops_lib.name_scope(None, "ndtri", [half]):
            quantile = apply_op("Ndtri", x=half).outputs[0]
        return -quantile * np.sqrt(0.5)
