"""CPU (numpy) kernels of the quantized convolution, pooling and ReLU-X ops: values are computed on
the integers under the quantized dtypes; QuantizedConv2D subtracts each operand's zero
point (TF's FloatToQuantizedUnclamped(0)) and accumulates in qint32 over the range of
TF's QuantizationRangeForMultiplication."""

from __future__ import annotations

import numpy as np

from graphcore.kernels.conv_kernels import conv_forward
from graphcore.kernels.pool_kernels import max_pool_argmax
from graphcore.kernels.registry import KernelContext, register_kernel
from graphcore.kernels.window import WindowAttrs, invalid, out_dtype, shape_text


def _ints(x: np.ndarray) -> np.ndarray:
    """The integers under a quantized (structured) array."""
    x = np.asarray(x)
    return x.view(x.dtype[0]) if x.dtype.names else x


def _as(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    base = dtype[0] if dtype.names else dtype
    return np.ascontiguousarray(values.astype(base)).view(dtype)


def _limits(dtype: np.dtype) -> tuple[int, int]:
    info = np.iinfo(dtype[0] if dtype.names else dtype)
    return int(info.min), int(info.max)


def _round(x: float) -> float:
    """C++ round: halves away from zero."""
    return float(np.sign(x) * np.floor(abs(x) + 0.5))


def float_to_quantized(value: float, dtype: np.dtype, range_min: float, range_max: float,
                       clamp: bool = False) -> int:
    """TF's FloatToQuantizedUnclamped (FloatToQuantized with ``clamp``): the quantized
    value that stands for ``value`` over [range_min, range_max]."""
    lowest, highest = _limits(dtype)
    if clamp and range_min == range_max:
        return lowest
    steps = 1 << (8 * np.dtype(dtype[0] if dtype.names else dtype).itemsize)
    scale = steps / ((range_max - range_min) * (steps / (steps - 1.0)))
    quantized = int(_round(value * scale) - _round(range_min * scale)) + lowest
    return min(max(quantized, lowest), highest) if clamp else quantized


def zero_point(dtype: np.dtype, range_min: float, range_max: float) -> int:
    """The quantized value that stands for 0 (unclamped)."""
    return float_to_quantized(0.0, dtype, range_min, range_max)


def _level(dtype: np.dtype, range_min: float, range_max: float) -> np.float32:
    """The float a quantum of ``dtype`` stands for over [range_min, range_max] (in float32,
    as TF's QuantizationRangeForMultiplication)."""
    lowest, highest = _limits(dtype)
    return (np.float32(range_max) - np.float32(range_min)) / \
        (np.float32(highest) - np.float32(lowest))


def _scalar(value: object, what: str) -> float:
    value = np.asarray(value)
    if value.ndim != 0:
        raise invalid(f"{what} must be a scalar, got shape {shape_text(value.shape)}")
    return float(value)


def _pool_attrs(ctx: KernelContext) -> WindowAttrs:
    attrs = WindowAttrs(ctx, 2)
    if attrs.batch_channel_ksize != (1, 1) or attrs.batch_channel_strides != (1, 1):
        raise invalid("Pooling is not yet supported on the batch or depth dimension.")
    return attrs


def _quantized_pool(average: bool):
    def factory(ctx: KernelContext):
        attrs = _pool_attrs(ctx)
        out = out_dtype(ctx)

        def compute(x, min_input, max_input):
            lo, hi = _scalar(min_input, "min_input"), _scalar(max_input, "max_input")
            x = _ints(x)
            if x.ndim != 4:
                raise invalid(f"input must be 4-dimensional{shape_text(x.shape)}")
            win = attrs.window(x.shape)
            if average:
                xp = win.padded(x.astype(np.float64))
                total = np.zeros((x.shape[0],) + win.out + (x.shape[3],))
                for _, index in win.tap_slices():
                    total += xp[index]
                y = np.trunc(total / win.counts())
            else:
                y = max_pool_argmax(x, win)[0]
            return _as(y, out), np.float32(lo), np.float32(hi)

        return compute

    return factory


register_kernel("QuantizedAvgPool")(_quantized_pool(average=True))
register_kernel("QuantizedMaxPool")(_quantized_pool(average=False))


@register_kernel("QuantizedConv2D")
def _quantized_conv2d(ctx: KernelContext):
    attrs = WindowAttrs(ctx, 2)
    attrs.check_conv()
    if attrs.dilations != (1, 1):
        raise invalid("Current implementation only supports dilated rate as 1 in the "
                      "row and column dimensions.")
    out = out_dtype(ctx)
    in_type = np.dtype(ctx.input_types[0].base_dtype.as_numpy_dtype)
    filter_type = np.dtype(ctx.input_types[1].base_dtype.as_numpy_dtype)

    def compute(x, w, min_input, max_input, min_filter, max_filter):
        lo_x, hi_x = _scalar(min_input, "min_input"), _scalar(max_input, "max_input")
        lo_w, hi_w = _scalar(min_filter, "min_filter"), _scalar(max_filter, "max_filter")
        x = _ints(x).astype(np.float64) - zero_point(in_type, lo_x, hi_x)
        w = _ints(w).astype(np.float64) - zero_point(filter_type, lo_w, hi_w)
        if x.ndim != 4 or w.ndim != 4:
            raise invalid("input and filter must be 4-dimensional")
        if x.shape[3] != w.shape[2]:
            raise invalid(f"input depth {x.shape[3]} does not match filter depth "
                          f"{w.shape[2]}")
        y = conv_forward(x, w, attrs.window(x.shape, w.shape[:2]))
        level = _level(in_type, lo_x, hi_x) * _level(filter_type, lo_w, hi_w)
        lowest, highest = _limits(out)
        return (_as(np.rint(y), out), level * np.float32(lowest),
                level * np.float32(highest))

    return compute


@register_kernel("QuantizedReluX")
def _quantized_relu_x(ctx: KernelContext):
    out = out_dtype(ctx)
    in_type = np.dtype(ctx.input_types[0].base_dtype.as_numpy_dtype)

    def compute(features, max_value, min_features, max_features):
        lo, hi = _scalar(min_features, "min_features"), _scalar(max_features, "max_features")
        top = _scalar(max_value, "max_value")
        floor = float_to_quantized(0.0, in_type, lo, hi, clamp=True)
        ceiling = float_to_quantized(top, in_type, lo, hi, clamp=True)
        y = np.minimum(np.maximum(_ints(features), floor), ceiling)
        return _as(y, out), np.float32(lo), np.float32(hi)

    return compute
