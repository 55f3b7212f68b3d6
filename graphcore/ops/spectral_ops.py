"""Fast Fourier transforms (TF's spectral ops): FFT/IFFT over the innermost 1, 2 or 3
dimensions of a complex tensor, and RFFT/IRFFT for real signals, with gradients as
TF's fft_ops. Kernels: :mod:`graphcore.kernels.spectral_kernels`."""

from __future__ import annotations

from typing import Any

from graphcore.framework import common_shapes, op_registry, tensor_util
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.gradient_registry import RegisterGradient
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, elementwise_ops, math_ops

__all__ = ["fft", "fft2d", "fft3d", "fftnd", "ifft", "ifft2d", "ifft3d", "ifftnd", "irfftnd",
           "rfftnd"]

COMPLEX_FFTS = {"FFT": 1, "IFFT": 1, "FFT2D": 2, "IFFT2D": 2, "FFT3D": 3, "IFFT3D": 3}

for _op_type in COMPLEX_FFTS:
    op_registry.register_op(_op_type).input("input: Tcomplex").output("output: Tcomplex") \
        .attr("Tcomplex: {complex64, complex128} = DT_COMPLEX64") \
        .shape_fn(common_shapes.unchanged_shape)


def _rfft_shape(op: ops_lib.Operation) -> list:
    shape = op._inputs[0].shape
    n = tensor_util.constant_value(op._inputs[1])
    if shape.ndims is None:
        return [shape_lib.unknown_shape()]
    last = None if n is None else int(n.reshape(-1)[0])
    if op.type == "RFFT" and last is not None:
        last = last // 2 + 1
    return [shape[:-1].concatenate([last])]


op_registry.register_op("RFFT").input("input: Treal").input("fft_length: int32") \
    .output("output: Tcomplex").attr("Treal: {float, double} = DT_FLOAT") \
    .attr("Tcomplex: {complex64, complex128} = DT_COMPLEX64").shape_fn(_rfft_shape)
op_registry.register_op("IRFFT").input("input: Tcomplex").input("fft_length: int32") \
    .output("output: Treal").attr("Treal: {float, double} = DT_FLOAT") \
    .attr("Tcomplex: {complex64, complex128} = DT_COMPLEX64").shape_fn(_rfft_shape)


# The N-dimensional FFTs over the given axes, each cropped or zero-padded to its
# fft_length first. TF's shape function passes the input's shape through unchanged.
for _op_type in ("FFTND", "IFFTND"):
    op_registry.register_op(_op_type).input("input: Tcomplex").input("fft_length: int32") \
        .input("axes: int32").output("output: Tcomplex") \
        .attr("Tcomplex: {complex64, complex128} = DT_COMPLEX64") \
        .shape_fn(common_shapes.unchanged_shape)
op_registry.register_op("RFFTND").input("input: Treal").input("fft_length: int32") \
    .input("axes: int32").output("output: Tcomplex").attr("Treal: {float, double} = DT_FLOAT") \
    .attr("Tcomplex: {complex64, complex128} = DT_COMPLEX64") \
    .shape_fn(common_shapes.unchanged_shape)
op_registry.register_op("IRFFTND").input("input: Tcomplex").input("fft_length: int32") \
    .input("axes: int32").output("output: Treal").attr("Treal: {float, double} = DT_FLOAT") \
    .attr("Tcomplex: {complex64, complex128} = DT_COMPLEX64") \
    .shape_fn(common_shapes.unchanged_shape)


def fftnd(input: Any, fft_length: Any, axes: Any,  # noqa: A002
          name: str | None = None) -> ops_lib.Tensor:
    """The FFT over ``axes`` (op FFTND), each axis cropped or padded to its fft_length."""
    return apply_op("FFTND", name=name, input=input, fft_length=fft_length,
                    axes=axes).outputs[0]


def ifftnd(input: Any, fft_length: Any, axes: Any,  # noqa: A002
           name: str | None = None) -> ops_lib.Tensor:
    """The inverse FFT over ``axes`` (op IFFTND)."""
    return apply_op("IFFTND", name=name, input=input, fft_length=fft_length,
                    axes=axes).outputs[0]


def rfftnd(input: Any, fft_length: Any, axes: Any,  # noqa: A002
           Tcomplex: Any = dtypes_lib.complex64, name: str | None = None) -> ops_lib.Tensor:
    """The FFT of a real signal over ``axes`` (op RFFTND): the last axis keeps its
    fft_length // 2 + 1 non-negative frequencies."""
    return apply_op("RFFTND", name=name, input=input, fft_length=fft_length, axes=axes,
                    Tcomplex=Tcomplex).outputs[0]


def irfftnd(input: Any, fft_length: Any, axes: Any,  # noqa: A002
            Treal: Any = dtypes_lib.float32, name: str | None = None) -> ops_lib.Tensor:
    """The real signal of ``fft_length`` whose ``rfftnd`` over ``axes`` is ``input``
    (op IRFFTND)."""
    return apply_op("IRFFTND", name=name, input=input, fft_length=fft_length, axes=axes,
                    Treal=Treal).outputs[0]


def _wrapper(op_type: str):
    def fn(input: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A002
        return apply_op(op_type, name=name, input=input).outputs[0]

    fn.__name__ = op_type.lower()
    fn.__doc__ = f"The {op_type} over the innermost {COMPLEX_FFTS[op_type]} dimension(s)."
    return fn


fft, ifft = _wrapper("FFT"), _wrapper("IFFT")
fft2d, ifft2d = _wrapper("FFT2D"), _wrapper("IFFT2D")
fft3d, ifft3d = _wrapper("FFT3D"), _wrapper("IFFT3D")
_INVERSE = {"FFT": ifft, "IFFT": fft, "FFT2D": ifft2d, "IFFT2D": fft2d, "FFT3D": ifft3d,
            "IFFT3D": fft3d}


def _fft_length(input_tensor: ops_lib.Tensor, fft_length: Any) -> Any:
    if fft_length is not None:
        return fft_length
    static = input_tensor.shape[-1:]
    if static.is_fully_defined():
        return array_ops.constant(static.as_list(), dtype=dtypes_lib.int32)
    return array_ops.shape(input_tensor)[-1:]


def rfft(input_tensor: Any, fft_length: Any = None, name: str | None = None) -> ops_lib.Tensor:
    """The FFT of a real signal over its innermost dimension (the fft_length // 2 + 1
    non-negative frequencies)."""
    with ops_lib.name_scope(name, "rfft", [input_tensor]) as scope:
        x = convert_to_tensor(input_tensor, name="input_tensor")
        complex_dtype = dtypes_lib.complex128 if x.dtype == dtypes_lib.float64 \
            else dtypes_lib.complex64
        return apply_op("RFFT", name=scope, input=x, fft_length=_fft_length(x, fft_length),
                        Tcomplex=complex_dtype).outputs[0]


def irfft(input_tensor: Any, fft_length: Any = None, name: str | None = None) -> ops_lib.Tensor:
    """The real signal whose ``rfft`` is ``input_tensor``."""
    with ops_lib.name_scope(name, "irfft", [input_tensor]) as scope:
        x = convert_to_tensor(input_tensor, name="input_tensor")
        real_dtype = dtypes_lib.float64 if x.dtype == dtypes_lib.complex128 \
            else dtypes_lib.float32
        if fft_length is None:
            n = x.shape[-1]
            fft_length = [2 * (n.value - 1)] if n.value is not None else \
                2 * (array_ops.shape(x)[-1:] - 1)
        return apply_op("IRFFT", name=scope, input=x, fft_length=fft_length,
                        Treal=real_dtype).outputs[0]


def _fft_size_for_grad(grad: ops_lib.Tensor, rank: int) -> ops_lib.Tensor:
    return math_ops.reduce_prod(array_ops.shape(grad)[-rank:])


def _register_grad(op_type: str, rank: int, forward: bool) -> None:
    @RegisterGradient(op_type)
    def grad_fn(op: ops_lib.Operation, grad: Any) -> Any:
        size = math_ops.cast(_fft_size_for_grad(grad, rank), grad.dtype)
        if forward:
            return _INVERSE[op_type](grad) * size
        real = elementwise_ops.real(size) if grad.dtype.is_complex else size
        return _INVERSE[op_type](grad) * math_ops.cast(math_ops.reciprocal(real), grad.dtype)


for _op_type, _rank in COMPLEX_FFTS.items():
    _register_grad(_op_type, _rank, not _op_type.startswith("I"))
