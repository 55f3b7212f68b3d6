"""CPU kernels of :mod:`graphcore.ops.quantization_ops`, in float32 step for step as TF's
(fake_quant_ops_functor.h, quantize_op.cc, dequantize_op.cc,
quantize_and_dequantize_op.h, quantization_utils.h) so the values match bit for bit.
Quantized tensors are numpy's one-field structured dtypes (TF's np_qint8...)."""

from __future__ import annotations

import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel

f32 = np.float32


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _raw(x: np.ndarray) -> np.ndarray:
    """A quantized array's integer values (structured qint8 -> int8...)."""
    x = np.asarray(x)
    if x.dtype.fields:
        return np.ascontiguousarray(x).view(next(iter(x.dtype.fields.values()))[0])
    return x


def _as_quantized(values: np.ndarray, dtype: dtypes_lib.DType) -> np.ndarray:
    storage = dtypes_lib.as_dtype(dtype).as_numpy_dtype
    base = next(iter(np.dtype(storage).fields.values()))[0]
    return np.ascontiguousarray(values.astype(base)).view(storage)


def _limits(dtype: dtypes_lib.DType) -> tuple[int, int]:
    info = np.iinfo(_raw(np.zeros((), dtype.as_numpy_dtype)).dtype)
    return int(info.min), int(info.max)


def _str_attr(ctx: KernelContext, name: str) -> str:
    value = ctx.attr(name)
    return value.decode() if isinstance(value, bytes) else value


def _round_half_away(x: np.ndarray) -> np.ndarray:
    """std::round (ties away from zero), exact in the input's precision."""
    x = np.asarray(x)
    whole = np.trunc(x)
    return whole + np.where(np.abs(x - whole) >= 0.5, np.sign(x), 0).astype(x.dtype)


# -- fake quantization --------------------------------------------------------------------

def _nudge(min_: float, max_: float, quant_min: int, quant_max: int) -> tuple:
    """(nudged_min, nudged_max, scale, zero_level): the range moved so that 0.0 is a
    quantized level, ``zero_level`` steps above nudged_min."""
    qmin, qmax = f32(quant_min), f32(quant_max)
    scale = (f32(max_) - f32(min_)) / (qmax - qmin)
    with np.errstate(divide="ignore", invalid="ignore"):
        zero_point_from_min = qmin - f32(min_) / scale
    if zero_point_from_min < qmin:
        zero_point = quant_min
    elif zero_point_from_min > qmax:
        zero_point = quant_max
    else:
        zero_point = int(_round_half_away(np.asarray(zero_point_from_min, f32)))
    return ((qmin - f32(zero_point)) * scale, (qmax - f32(zero_point)) * scale, scale,
            f32(zero_point - quant_min))


def _quant_bounds(ctx: KernelContext) -> tuple[int, int]:
    num_bits = ctx.attr("num_bits")
    if not 2 <= num_bits <= 16:
        raise _invalid(f"num_bits must be between 2 and 16, inclusive, got {num_bits}")
    return (1 if ctx.attr("narrow_range") else 0), (1 << num_bits) - 1


def _fake_quant(x: np.ndarray, nudged_min: f32, nudged_max: f32, scale: f32,
                zero_level: f32) -> np.ndarray:
    inv_scale = f32(1.0) / scale
    clamped_shifted = np.minimum(np.maximum(x, nudged_min), nudged_max) - nudged_min
    levels = np.floor(clamped_shifted * inv_scale + f32(0.5))
    # (level - zero_level) * scale, not level * scale + nudged_min: the float32 values TF
    # gives (0.0 stays exactly 0.0).
    return (levels - zero_level) * scale


def _check_args_range(ctx: KernelContext) -> tuple[float, float]:
    min_, max_ = ctx.attr("min"), ctx.attr("max")
    if not min_ < max_:
        raise _invalid(f"min has to be smaller than max, was: {min_} >= {max_}")
    return min_, max_


@register_kernel("FakeQuantWithMinMaxArgs")
def _fake_quant_args(ctx: KernelContext):
    min_, max_ = _check_args_range(ctx)
    nudged = _nudge(min_, max_, *_quant_bounds(ctx))

    def compute(inputs):
        return (_fake_quant(np.asarray(inputs, f32), *nudged),)

    return compute


def _in_range(x: np.ndarray, nudged_min: f32, nudged_max: f32) -> np.ndarray:
    return (x >= nudged_min) & (x <= nudged_max)


@register_kernel("FakeQuantWithMinMaxArgsGradient")
def _fake_quant_args_grad(ctx: KernelContext):
    min_, max_ = _check_args_range(ctx)
    nudged_min, nudged_max = _nudge(min_, max_, *_quant_bounds(ctx))[:2]

    def compute(gradients, inputs):
        inside = _in_range(np.asarray(inputs, f32), nudged_min, nudged_max)
        return (np.asarray(gradients, f32) * inside.astype(f32),)

    return compute


def _per_channel_ranges(min_: np.ndarray, max_: np.ndarray, bounds: tuple) -> tuple:
    nudged = [_nudge(lo, hi, *bounds) for lo, hi in zip(min_.reshape(-1), max_.reshape(-1))]
    return tuple(np.array([n[i] for n in nudged], f32) for i in range(4))


def _vars_ranges(ctx: KernelContext, min_, max_, per_channel: bool, depth: int) -> tuple:
    bounds = _quant_bounds(ctx)
    min_, max_ = np.asarray(min_, f32), np.asarray(max_, f32)
    if per_channel:
        if min_.shape != (depth,) or max_.shape != (depth,):
            raise _invalid(f"min and max must be of shape [{depth}], got {min_.shape} and "
                           f"{max_.shape}")
        return _per_channel_ranges(min_, max_, bounds)
    return _nudge(float(min_), float(max_), *bounds)


def _fake_quant_vars_kernel(per_channel: bool):
    def factory(ctx: KernelContext):
        def compute(inputs, min_, max_):
            x = np.asarray(inputs, f32)
            depth = x.shape[-1] if x.ndim else 1
            nudged = _vars_ranges(ctx, min_, max_, per_channel, depth)
            return (_fake_quant(x, *nudged).astype(f32),)

        return compute

    return factory


def _fake_quant_vars_grad_kernel(per_channel: bool):
    def factory(ctx: KernelContext):
        def compute(gradients, inputs, min_, max_):
            x, g = np.asarray(inputs, f32), np.asarray(gradients, f32)
            depth = x.shape[-1] if x.ndim else 1
            nudged_min, nudged_max = _vars_ranges(ctx, min_, max_, per_channel, depth)[:2]
            inside = _in_range(x, nudged_min, nudged_max)
            below = (g * (x < nudged_min)).astype(f32)
            above = (g * (x > nudged_max)).astype(f32)
            return ((g * inside).astype(f32), _channel_sum(below, per_channel),
                    _channel_sum(above, per_channel))

        return compute

    return factory


def _channel_sum(values: np.ndarray, per_channel: bool) -> np.ndarray:
    """The float32 sum per channel (or of everything). numpy's sum over a contiguous axis
    keeps 8 partial sums, as Eigen's vectorized reduction does, so the values agree."""
    if not per_channel:
        return np.asarray(np.ravel(values).sum(), f32)
    return np.ascontiguousarray(values.reshape(-1, values.shape[-1]).T).sum(axis=1)


register_kernel("FakeQuantWithMinMaxVars")(_fake_quant_vars_kernel(False))
register_kernel("FakeQuantWithMinMaxVarsPerChannel")(_fake_quant_vars_kernel(True))
register_kernel("FakeQuantWithMinMaxVarsGradient")(_fake_quant_vars_grad_kernel(False))
register_kernel("FakeQuantWithMinMaxVarsPerChannelGradient")(
    _fake_quant_vars_grad_kernel(True))


# -- QuantizeV2 / Dequantize --------------------------------------------------------------

def _min_first_quantize(x: np.ndarray, min_range: f32, max_range: f32, lowest: int,
                        highest: int, bits: int) -> np.ndarray:
    """TF's QUANTIZE_WITH_EIGEN: round(x * scale) - round(min * scale) + lowest, clamped."""
    steps = float(1 << bits)
    range_scale = f32(0.0 if max_range == min_range
                      else (steps - 1.0) / float(f32(max_range) - f32(min_range)))
    range_min_scaled = f32(_round_half_away(np.asarray(f32(min_range) * range_scale, f32)))
    q = _round_half_away(np.asarray(x, f32) * range_scale) - (range_min_scaled - f32(lowest))
    lower = max(f32(lowest), f32(-2.147483648e9))
    upper = min(f32(highest), f32(2.147483520e9))
    return np.minimum(np.maximum(q, lower), upper).astype(np.int64)


def _min_first_dequantize(q: np.ndarray, min_range: f32, max_range: f32, lowest: int,
                          bits: int) -> np.ndarray:
    """TF's DEQUANTIZE_WITH_EIGEN, with range_min rounded to a whole step."""
    min_range, max_range = f32(min_range), f32(max_range)
    steps = float(1 << bits)
    range_scale = f32(float(max_range - min_range) / (steps - 1.0))
    if max_range == min_range:
        range_min_rounded = min_range
    else:
        range_min_rounded = f32(_round_half_away(np.asarray(min_range / range_scale, f32))
                                * range_scale)
    return (range_min_rounded - f32(lowest) * range_scale) + q.astype(f32) * range_scale


def _slices(x: np.ndarray, axis: int, lo: np.ndarray, hi: np.ndarray):
    """(index, min, max) per slice along ``axis`` (the whole tensor when axis is -1)."""
    if axis < 0:
        yield (Ellipsis,), float(lo.reshape(-1)[0]), float(hi.reshape(-1)[0])
        return
    if axis >= x.ndim:
        raise _invalid(f"Axis must be less than input dimension({x.ndim}), got {axis}")
    n = x.shape[axis]
    if lo.size != n or hi.size != n:
        raise _invalid(f"input_min_tensor must have as many elements as input on the "
                       f"dequantization axis ({axis}), got {lo.size}, expected {n}")
    for i in range(n):
        yield (slice(None),) * axis + (i,), float(lo.reshape(-1)[i]), float(hi.reshape(-1)[i])


def _quantize_slice(x: np.ndarray, in_min: float, in_max: float, mode: str, round_mode: str,
                    narrow_range: bool, ensure_minimum_range: float, lowest: int,
                    highest: int, bits: int) -> tuple:
    if in_max < in_min:
        raise _invalid("input_max_range must be larger than input_min_range.")
    min_range = min(f32(0), f32(in_min))
    epsilon = max(f32(1), max(abs(f32(in_min)), abs(f32(in_max)))) * f32(ensure_minimum_range)
    max_range = max(f32(0), max(f32(in_max), f32(min_range + epsilon)))
    if mode == "MIN_COMBINED":
        scale = f32((float(highest) - float(lowest)) / float(max_range - min_range))
        shifted = (np.maximum(np.minimum(x, max_range), min_range) - min_range) * scale
        if lowest < 0:
            half_range = f32((float(highest) - float(lowest) + 1) / 2.0)
            return _round_half_away(shifted - half_range), min_range, max_range
        return np.trunc(shifted + f32(0.5)), min_range, max_range
    if mode == "MIN_FIRST":
        return _min_first_quantize(x, min_range, max_range, lowest, highest, bits), \
            min_range, max_range
    # SCALED: symmetric around 0, the scale set by the side that reaches its limit first.
    min_output = lowest + (1 if narrow_range else 0)
    big = np.finfo(f32).max
    from_min = f32(min_output / min_range) if min_output * min_range > 0 else big
    from_max = f32(highest / max_range) if highest * max_range > 0 else big
    scale = min(from_min, from_max)
    min_range, max_range = f32(min_output / scale), f32(highest / scale)
    scaled = np.maximum(np.minimum(x, max_range), min_range) * scale
    rounded = np.rint(scaled) if round_mode == "HALF_TO_EVEN" else _round_half_away(scaled)
    return rounded, min_range, max_range


@register_kernel("QuantizeV2")
def _quantize_v2(ctx: KernelContext):
    out_type = ctx.attr("T")
    lowest, highest = _limits(out_type)
    mode, round_mode = _str_attr(ctx, "mode"), _str_attr(ctx, "round_mode")
    if round_mode == "HALF_TO_EVEN" and mode != "SCALED":
        raise _invalid(f"Round mode 'HALF_TO_EVEN' only supported for mode 'SCALED', but "
                       f"mode is '{mode}'.")
    narrow_range, axis = ctx.attr("narrow_range"), ctx.attr("axis")
    ensure_minimum_range = ctx.attr("ensure_minimum_range")

    def compute(x, min_range, max_range):
        x = np.asarray(x, f32)
        lo, hi = np.asarray(min_range, f32), np.asarray(max_range, f32)
        if axis >= 0 and mode == "MIN_FIRST":
            raise errors.UnimplementedError(
                None, None, "MIN_FIRST mode is not implemented for Quantize with axis != -1.")
        out = np.zeros(x.shape, np.float64)
        mins, maxs = [], []
        for index, in_min, in_max in _slices(x, axis, lo, hi):
            values, out_min, out_max = _quantize_slice(
                x[index], in_min, in_max, mode, round_mode, narrow_range,
                ensure_minimum_range, lowest, highest, 8 * out_type.size)
            out[index] = values
            mins.append(out_min)
            maxs.append(out_max)
        shape = () if axis < 0 else lo.shape
        return (_as_quantized(out, out_type), np.array(mins, f32).reshape(shape),
                np.array(maxs, f32).reshape(shape))

    return compute


def _dequantize_slice(q: np.ndarray, min_range: float, max_range: float, mode: str,
                      narrow_range: bool, lowest: int, highest: int,
                      bits: int) -> np.ndarray:
    min_range, max_range = f32(min_range), f32(max_range)
    qf = q.astype(f32)
    if mode == "MIN_COMBINED":
        half_range = f32(0) if lowest == 0 else f32((f32(highest) - lowest + 1) / f32(2))
        scale = f32((max_range - min_range) / (f32(highest) - lowest))
        return (qf + half_range) * scale + min_range
    if mode == "MIN_FIRST":
        return _min_first_dequantize(q, min_range, max_range, lowest, bits)
    min_output = lowest + (1 if narrow_range else 0)
    if lowest == 0:
        scale = f32(max_range / f32(highest))
    else:
        scale = max(f32(min_range / f32(min_output)), f32(max_range / f32(highest)))
    return qf * scale


@register_kernel("Dequantize")
def _dequantize(ctx: KernelContext):
    in_type = ctx.attr("T")
    lowest, highest = _limits(in_type)
    mode, narrow_range, axis = _str_attr(ctx, "mode"), ctx.attr("narrow_range"), ctx.attr("axis")
    out_type = ctx.attr("dtype")
    if out_type != dtypes_lib.float32 and mode != "MIN_COMBINED":
        raise _invalid(f"When output type is bfloat16, Mode string must be 'MIN_COMBINED', "
                       f"is '{mode}'")

    def compute(x, min_range, max_range):
        q = _raw(x)
        lo, hi = np.asarray(min_range, f32), np.asarray(max_range, f32)
        if axis >= 0 and mode == "MIN_FIRST":
            raise errors.UnimplementedError(
                None, None, "MIN_FIRST mode is not implemented for Dequantize with axis != -1.")
        out = np.zeros(q.shape, f32)
        for index, in_min, in_max in _slices(q, axis, lo, hi):
            out[index] = _dequantize_slice(q[index], in_min, in_max, mode, narrow_range,
                                           lowest, highest, 8 * in_type.size)
        return (out.astype(out_type.as_numpy_dtype),)

    return compute


# -- QuantizeAndDequantize ----------------------------------------------------------------

def _qdq_range(signed_input: bool, num_bits: int, narrow_range: bool, lo, hi) -> tuple:
    """(min_range, max_range, scale, inverse_scale): the range moved so that 0 stays 0
    and the side that sets the scale keeps its value."""
    dt = lo.dtype.type
    if signed_input:
        min_q = -(1 << (num_bits - 1)) + (1 if narrow_range else 0)
        max_q = (1 << (num_bits - 1)) - 1
    else:
        min_q, max_q = 0, (1 << num_bits) - 1
    big = np.finfo(dt).max
    from_min = dt(min_q / lo) if min_q * lo > 0 else dt(big)
    from_max = dt(max_q / hi) if max_q * hi > 0 else dt(big)
    if from_min < from_max:
        inverse = dt(lo / dt(min_q))
        return lo, dt(dt(max_q) * inverse), from_min, inverse
    inverse = dt(hi / dt(max_q))
    return dt(dt(min_q) * inverse), hi, from_max, inverse


def _quantize_and_dequantize(x: np.ndarray, lo, hi, signed_input: bool, num_bits: int,
                             range_given: bool, round_mode: str, narrow_range: bool):
    lo_r, hi_r, scale, inverse = _qdq_range(signed_input, num_bits, narrow_range, lo, hi)
    if range_given:
        x = np.maximum(np.minimum(x, hi_r), lo_r)
    scaled = x * scale
    rounded = np.rint(scaled) if round_mode == "HALF_TO_EVEN" else np.floor(
        scaled + scaled.dtype.type(0.5))
    return rounded * inverse


def _qdq_compute(x, input_min, input_max, *, signed_input: bool, num_bits: int,
                 range_given: bool, round_mode: str, narrow_range: bool, axis: int,
                 legacy_v3: bool = False):
    x = np.asarray(x)
    if not 0 < num_bits < (62 if signed_input else 63):
        raise _invalid(f"num_bits is out of range: {num_bits} with signed_input "
                       f"{signed_input}")
    dt = x.dtype.type
    lo, hi = np.asarray(input_min, dt), np.asarray(input_max, dt)
    out = np.empty_like(x)
    if axis < 0:
        indices = [(Ellipsis,)]
    elif range_given and not legacy_v3:
        # TF 2.21's V2/V4 kernels refuse a given range per axis (the shape function wants
        # it rank 1, the kernel a scalar).
        raise _invalid("input_min must be a scalar.")
    else:
        if range_given and (lo.size != x.shape[axis] or hi.size != x.shape[axis]):
            raise _invalid(f"input_min/max must have {x.shape[axis]} elements on axis "
                           f"{axis}")
        indices = [(slice(None),) * axis + (i,) for i in range(x.shape[axis])]
    for i, index in enumerate(indices):
        part = x[index]
        if range_given:
            a, b = dt(lo.reshape(-1)[i]), dt(hi.reshape(-1)[i])
            if a > b:
                raise _invalid(f"Invalid range: input_min {a} > input_max {b}")
        else:
            a, b = (dt(part.min()), dt(part.max())) if part.size else (dt(0), dt(0))
        out[index] = _quantize_and_dequantize(part, a, b, signed_input, num_bits,
                                              range_given, round_mode, narrow_range)
    return out


def _qdq_attrs(ctx: KernelContext) -> dict:
    return {"signed_input": ctx.attr("signed_input"), "range_given": ctx.attr("range_given"),
            "narrow_range": ctx.attr("narrow_range"), "axis": ctx.attr("axis")}


@register_kernel("QuantizeAndDequantizeV2")
@register_kernel("QuantizeAndDequantizeV4")
def _quantize_and_dequantize_v2(ctx: KernelContext):
    attrs = dict(_qdq_attrs(ctx), num_bits=ctx.attr("num_bits"),
                 round_mode=_str_attr(ctx, "round_mode"))

    def compute(x, input_min, input_max):
        return (_qdq_compute(x, input_min, input_max, **attrs),)

    return compute


@register_kernel("QuantizeAndDequantizeV3")
def _quantize_and_dequantize_v3(ctx: KernelContext):
    attrs = _qdq_attrs(ctx)

    def compute(x, input_min, input_max, num_bits):
        return (_qdq_compute(x, input_min, input_max, num_bits=int(num_bits),
                             round_mode="HALF_TO_EVEN", legacy_v3=True, **attrs),)

    return compute


@register_kernel("QuantizeAndDequantizeV4Grad")
def _quantize_and_dequantize_v4_grad(ctx: KernelContext):
    axis = ctx.attr("axis")

    def compute(gradients, x, input_min, input_max):
        x, g = np.asarray(x), np.asarray(gradients)
        lo, hi = np.asarray(input_min, x.dtype), np.asarray(input_max, x.dtype)
        if axis >= 0:
            shape = [1] * x.ndim
            shape[axis] = -1
            lo, hi = lo.reshape(shape), hi.reshape(shape)
        inside = (x >= lo) & (x <= hi)
        return ((g * inside).astype(x.dtype), np.zeros_like(np.asarray(input_min)),
                np.zeros_like(np.asarray(input_max)))

    return compute


# -- QuantizedConcat ----------------------------------------------------------------------

@register_kernel("QuantizedConcat", constraints={"T": [dtypes_lib.quint8, dtypes_lib.qint32]})
def _quantized_concat(ctx: KernelContext):
    n = ctx.attr("N")
    out_type = ctx.attr("T")
    lowest, highest = _limits(out_type)
    bits = 8 * out_type.size

    def compute(concat_dim, *args):
        values = [_raw(v) for v in args[:n]]
        mins = [float(np.asarray(m, f32).reshape(-1)[0]) for m in args[n:2 * n]]
        maxes = [float(np.asarray(m, f32).reshape(-1)[0]) for m in args[2 * n:]]
        out_min = min(0.0, min(f32(m) for m in mins))
        out_max = max(f32(m) for m in maxes)
        if lowest < 0:
            largest = max(abs(out_min), abs(out_max))
            out_min, out_max = -largest, largest
        out_min, out_max = f32(out_min), f32(out_max)
        parts = []
        for v, lo, hi in zip(values, mins, maxes):
            if f32(lo) == out_min and f32(hi) == out_max:
                parts.append(v.astype(np.int64))
            else:
                # TF's RequantizeManyInNewRangeUsingEigen: through float32.
                as_float = _min_first_dequantize(v, lo, hi, lowest, bits)
                parts.append(_min_first_quantize(as_float, out_min, out_max, lowest, highest,
                                                 bits))
        axis = int(concat_dim)
        ndims = values[0].ndim
        if not -ndims <= axis < ndims:
            raise _invalid(f"Concat dim is out of range: {axis} vs. {ndims}")
        out = np.concatenate(parts, axis=axis)
        return _as_quantized(out, out_type), np.asarray(out_min, f32), np.asarray(out_max, f32)

    return compute
