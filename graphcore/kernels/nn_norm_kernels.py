"""CPU (numpy) kernels of :mod:`graphcore.ops.nn_norm_ops`: FusedBatchNormV3 (training and
inference, exponential averaging) with its grad op, FusedBatchNorm (V3 less an output),
BatchNormWithGlobalNormalization, and LRN / LRNGrad (TF's
``fused_batch_norm_op.cc`` and ``lrn_op.cc``); half inputs are computed in float32.
Channels-last float32 batch norm runs on oneDNN's batch normalization primitive where it
is loaded (:mod:`graphcore.kernels.dnnl_primitives`), as TF's CPU kernels on x86."""

from __future__ import annotations

import numpy as np

from graphcore.framework import errors
from graphcore.kernels import dnnl_primitives, intra_op
from graphcore.kernels.registry import KernelContext, register_kernel

_CHANNEL_AXIS = {"NHWC": -1, "NDHWC": -1, "NCHW": 1, "NCDHW": 1}


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _text(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _attr_str(ctx: KernelContext, name: str) -> str:
    value = ctx.attr(name)
    return value.decode() if isinstance(value, bytes) else value


def _layout(x: np.ndarray, data_format: str) -> tuple:
    """(reduction axes, broadcast shape of a per-channel vector, channel count)."""
    rank = 5 if data_format in ("NDHWC", "NCDHW") else 4
    if x.ndim != rank:
        raise _invalid(f"input must be {rank}-dimensional{_text(x.shape)}")
    axis = _CHANNEL_AXIS[data_format] % x.ndim
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    return tuple(i for i in range(x.ndim) if i != axis), shape, x.shape[axis]


def _check_vector(name: str, v: np.ndarray, channels: int) -> None:
    if v.ndim != 1:
        raise _invalid(f"{name} must be 1-dimensional{_text(v.shape)}")
    if v.shape[0] != channels:
        raise _invalid(f"{name} must have the same number of elements as the channels of x, "
                       f"got {v.shape[0]} and {channels}")


def _rows_by_channel(x: np.ndarray, data_format: str) -> np.ndarray | None:
    """x as a [rows, channels] view when channels are its last, contiguous axis (NHWC,
    NDHWC), else None."""
    if _CHANNEL_AXIS[data_format] == -1 and x.flags.c_contiguous:
        return x.reshape(-1, x.shape[-1])
    return None


def _channel_sums(x: np.ndarray, axes: tuple) -> np.ndarray:
    """Per-channel sums (float32, as Eigen's reductions) over ``axes``."""
    return np.add.reduce(x, axis=axes if x.ndim != 2 else 0)


def _by_rows(fn, rows: int, channels: int) -> list:
    """``fn(lo, hi)`` over row ranges of a [rows, channels] array, split over the intra-op
    threads; the results in row order (partial sums then add up in a fixed order)."""
    parts: dict[int, object] = {}

    def run(lo: int, hi: int) -> None:
        parts[lo] = fn(lo, hi)

    intra_op.map_rows(run, rows, channels)
    return [parts[lo] for lo in sorted(parts)]


def _train_forward_rows(xr: np.ndarray, scale: np.ndarray, offset: np.ndarray,
                        eps: float) -> tuple:
    """Training batch norm of a [rows, C] float32 ``xr``: (y, batch mean, batch variance),
    as TF computes them (the mean, the centered values, the mean of their squares), in
    row ranges over the intra-op threads, each range's centered values written once into
    ``y`` and scaled there."""
    rows, channels = xr.shape
    count = np.float32(max(rows, 1))
    mean = sum(_by_rows(lambda lo, hi: np.einsum("ij->j", xr[lo:hi]), rows, channels)) / count
    y = np.empty_like(xr)

    def center(lo: int, hi: int) -> np.ndarray:
        c = np.subtract(xr[lo:hi], mean, out=y[lo:hi])
        return np.einsum("ij,ij->j", c, c)

    var = sum(_by_rows(center, rows, channels)) / count
    inv = scale / np.sqrt(var + np.float32(eps))

    def normalize(lo: int, hi: int) -> None:
        block = y[lo:hi]
        block *= inv
        block += offset

    _by_rows(normalize, rows, channels)
    return y, np.asarray(mean, np.float32), np.asarray(var, np.float32)


def _train_backward_rows(dyr: np.ndarray, xr: np.ndarray, scale: np.ndarray,
                         mean: np.ndarray, rsqrt: np.ndarray) -> tuple:
    """Training batch norm's gradient over [rows, C] float32 arrays: (dx, dscale, doffset),
    dx = scale * rsqrt * (dy - mean(dy) - centered * mean(dy * centered) * rsqrt^2), in row
    ranges over the intra-op threads (the centered values kept in dx's buffer)."""
    rows, channels = xr.shape
    dx = np.empty_like(xr)

    def sums(lo: int, hi: int) -> tuple:
        c = np.subtract(xr[lo:hi], mean, out=dx[lo:hi])
        return np.einsum("ij->j", dyr[lo:hi]), np.einsum("ij,ij->j", dyr[lo:hi], c)

    parts = _by_rows(sums, rows, channels)
    doffset = sum(p[0] for p in parts)
    sum_dy_c = sum(p[1] for p in parts)
    count = np.float32(max(rows, 1))
    k_centered = (sum_dy_c / count) * rsqrt ** 2
    mean_dy = doffset / count
    k_out = scale * rsqrt

    def finish(lo: int, hi: int) -> None:
        block = dx[lo:hi]
        block *= k_centered
        np.subtract(dyr[lo:hi], block, out=block)
        block -= mean_dy
        block *= k_out

    _by_rows(finish, rows, channels)
    return dx, np.asarray(sum_dy_c * rsqrt, np.float32), np.asarray(doffset, np.float32)


@register_kernel("FusedBatchNormV3")
def _fused_batch_norm(ctx: KernelContext):
    eps = ctx.attr("epsilon")
    factor = ctx.attr("exponential_avg_factor")
    training = ctx.attr("is_training")
    data_format = _attr_str(ctx, "data_format")
    out = np.dtype(ctx.output_types[0].as_numpy_dtype)
    u = np.dtype(ctx.output_types[1].as_numpy_dtype)

    def compute(x, scale, offset, mean, variance):
        x = np.asarray(x)
        axes, shape, channels = _layout(x, data_format)
        x = x.astype(np.float32, copy=False)
        scale, offset = np.asarray(scale, np.float32), np.asarray(offset, np.float32)
        mean, variance = np.asarray(mean, np.float32), np.asarray(variance, np.float32)
        _check_vector("scale", scale, channels)
        _check_vector("offset", offset, channels)
        if not training or factor != 1.0:
            _check_vector("mean", mean, channels)
            _check_vector("variance", variance, channels)
        rows = _rows_by_channel(x, data_format)
        if training and rows is not None and rows.shape[0] > 1:
            got = dnnl_primitives.batch_norm_forward(x, scale, offset, eps)
            y, batch_mean, batch_var = got if got is not None else \
                _train_forward_rows(rows, scale, offset, eps)
            count = rows.shape[0]
            unbiased = batch_var * np.float32(count / (count - 1))
            if factor == 1.0:
                running_mean, running_var = batch_mean, unbiased
            else:
                running_mean = (1 - factor) * mean + factor * batch_mean
                running_var = (1 - factor) * variance + factor * unbiased
            return (y.reshape(x.shape).astype(out, copy=False), running_mean.astype(u),
                    running_var.astype(u), batch_mean.astype(u), batch_var.astype(u),
                    np.zeros((), u))
        if not training and rows is not None:
            got = dnnl_primitives.batch_norm_forward(x, scale, offset, eps, mean, variance)
            if got is not None:
                zeros = np.zeros(channels, u)
                return (got[0].astype(out, copy=False), mean.astype(u), variance.astype(u),
                        zeros, zeros, np.zeros((), u))
        if rows is not None:  # reductions and broadcasts over a [rows, C] view
            xr, vshape = rows, (channels,)
        else:
            xr, vshape = x, shape
        if training:
            count = x.size // max(channels, 1)
            # TF's order: the mean, the centered values, the mean of their squares.
            batch_mean = _channel_sums(xr, axes) / np.float32(max(count, 1))
            centered = np.subtract(xr, batch_mean.reshape(vshape))
            squares = np.multiply(centered, centered)
            batch_var = _channel_sums(squares, axes) / np.float32(max(count, 1))
            unbiased = batch_var * (count / (count - 1) if count > 1 else 1.0)
            used_var = batch_var
            if factor == 1.0:
                running_mean, running_var = batch_mean, unbiased
            else:
                running_mean = (1 - factor) * mean + factor * batch_mean
                running_var = (1 - factor) * variance + factor * unbiased
            saved_mean, saved_var = batch_mean, batch_var
            y = squares  # (reused)
        else:
            used_var = variance
            running_mean, running_var = mean, variance
            saved_mean = saved_var = np.zeros(channels, np.float32)
            centered = np.subtract(xr, mean.reshape(vshape))
            y = centered
        inv = (scale / np.sqrt(used_var + np.float32(eps))).reshape(vshape)
        np.multiply(centered, inv, out=y)
        y += offset.reshape(vshape)
        return (y.reshape(x.shape).astype(out, copy=False), running_mean.astype(u),
                running_var.astype(u), saved_mean.astype(u), saved_var.astype(u),
                np.zeros((), u))

    return compute


@register_kernel("FusedBatchNorm")
def _fused_batch_norm_v1(ctx: KernelContext):
    compute_v3 = _fused_batch_norm(ctx)

    def compute(x, scale, offset, mean, variance):
        return compute_v3(x, scale, offset, mean, variance)[:5]

    return compute


@register_kernel("BatchNormWithGlobalNormalization")
def _batch_norm_with_global_normalization(ctx: KernelContext):
    eps = ctx.attr("variance_epsilon")
    scale_after = ctx.attr("scale_after_normalization")

    def compute(t, m, v, beta, gamma):
        t = np.asarray(t)
        if t.ndim != 4:
            raise _invalid(f"input must be 4-dimensional{_text(t.shape)}")
        for name, vec in (("mean", m), ("variance", v), ("beta", beta), ("gamma", gamma)):
            if np.ndim(vec) != 1:
                raise _invalid(f"{name} must be 1-dimensional{_text(np.shape(vec))}")
        # TF's functor: t * factor + (beta - m * factor), factor = rsqrt(v + eps) [* gamma]
        factor = 1 / np.sqrt(np.asarray(v) + np.asarray(eps, t.dtype))
        if scale_after:
            factor = factor * gamma
        factor = factor.astype(t.dtype, copy=False)
        return ((t * factor + (np.asarray(beta) - np.asarray(m) * factor)).astype(t.dtype),)

    return compute


@register_kernel("FusedBatchNormGrad")
def _fused_batch_norm_grad_v1(ctx: KernelContext):
    compute_v3 = _fused_batch_norm_grad(ctx)

    def compute(dy, x, scale, reserve_space_1, reserve_space_2):
        return compute_v3(dy, x, scale, reserve_space_1, reserve_space_2, None)

    return compute


@register_kernel("BatchNormWithGlobalNormalizationGrad")
def _batch_norm_with_global_normalization_grad(ctx: KernelContext):
    eps = ctx.attr("variance_epsilon")
    scale_after = ctx.attr("scale_after_normalization")

    def compute(t, m, v, gamma, backprop):
        t, backprop = np.asarray(t), np.asarray(backprop)
        dtype = t.dtype
        if t.ndim != 4:
            raise _invalid(f"input must be 4-dimensional{_text(t.shape)}")
        m, v, gamma = (np.asarray(a, dtype) for a in (m, v, gamma))
        axes = (0, 1, 2)
        # TF's functor (batch_norm_op.h): per depth sums over the other dimensions.
        db = backprop.sum(axes, dtype=dtype)
        rsqrt = (1 / np.sqrt(v + np.asarray(eps, dtype))).astype(dtype, copy=False)
        sum_dy_c = (backprop * (t - m)).sum(axes, dtype=dtype)
        factor = rsqrt * gamma if scale_after else rsqrt
        dx = backprop * factor
        dm = -db * factor
        dg = sum_dy_c * rsqrt if scale_after else np.zeros_like(db)
        half_cube = rsqrt * np.asarray(-0.5, dtype) / (v + np.asarray(eps, dtype))
        dv = sum_dy_c * (half_cube * gamma if scale_after else half_cube)
        return tuple(a.astype(dtype, copy=False) for a in (dx, dm, dv, db, dg))

    return compute


@register_kernel("FusedBatchNormGradV3")
def _fused_batch_norm_grad(ctx: KernelContext):
    eps = ctx.attr("epsilon")
    training = ctx.attr("is_training")
    data_format = _attr_str(ctx, "data_format")
    out = np.dtype(ctx.output_types[0].as_numpy_dtype)
    u = np.dtype(ctx.output_types[1].as_numpy_dtype)

    def compute(dy, x, scale, mean, variance, _reserve3):
        dy, x = np.asarray(dy), np.asarray(x)
        if dy.shape != x.shape:
            raise _invalid(f"x and y_backprop must have same shape, but x has shape "
                           f"{_text(x.shape)} and y_backprop has shape {_text(dy.shape)}")
        axes, shape, channels = _layout(x, data_format)
        dy, x = dy.astype(np.float32, copy=False), x.astype(np.float32, copy=False)
        scale = np.asarray(scale, np.float32)
        mean, variance = np.asarray(mean, np.float32), np.asarray(variance, np.float32)
        for name, v in (("scale", scale), ("reserve_space_1", mean),
                        ("reserve_space_2", variance)):
            _check_vector(name, v, channels)
        xr, dyr = _rows_by_channel(x, data_format), _rows_by_channel(dy, data_format)
        vshape: tuple | list = (channels,)
        if xr is None or dyr is None:
            xr, dyr, vshape = x, dy, shape
        rsqrt = 1 / np.sqrt(variance + np.float32(eps))
        if training and xr.ndim == 2:
            got = dnnl_primitives.batch_norm_backward(dy, x, scale, mean, variance, eps)
            dx, dscale, doffset = got if got is not None else \
                _train_backward_rows(dyr, xr, scale, mean, rsqrt)
            empty = np.zeros((0,), u)
            return (dx.reshape(x.shape).astype(out, copy=False), dscale.astype(u),
                    doffset.astype(u), empty, empty)
        centered = np.subtract(xr, mean.reshape(vshape))
        doffset = _channel_sums(dyr, axes)
        work = np.multiply(dyr, centered)
        sum_dy_c = _channel_sums(work, axes)
        dscale = sum_dy_c * rsqrt
        if training:
            count = np.float32(max(x.size // max(channels, 1), 1))
            mean_dy, mean_dy_c = doffset / count, sum_dy_c / count
            # dx = scale * rsqrt * (dy - mean(dy) - centered * mean(dy * centered) * rsqrt^2)
            dx = np.multiply(centered, (mean_dy_c * rsqrt ** 2).reshape(vshape), out=work)
            np.subtract(dyr, dx, out=dx)
            dx -= mean_dy.reshape(vshape)
            dx *= (scale * rsqrt).reshape(vshape)
        else:
            dx = np.multiply(dyr, (scale * rsqrt).reshape(vshape), out=work)
        empty = np.zeros((0,), u)
        return (dx.reshape(x.shape).astype(out, copy=False), dscale.astype(u),
                doffset.astype(u), empty, empty)

    return compute


def _window_sum(v: np.ndarray, radius: int) -> np.ndarray:
    """sum(v[..., d - radius : d + radius + 1]) for each depth d."""
    depth = v.shape[-1]
    c = np.concatenate([np.zeros(v.shape[:-1] + (1,), v.dtype), np.cumsum(v, axis=-1)], -1)
    hi = np.minimum(np.arange(depth) + radius + 1, depth)
    lo = np.maximum(np.arange(depth) - radius, 0)
    return c[..., hi] - c[..., lo]


def _lrn_attrs(ctx: KernelContext) -> tuple:
    return (ctx.attr("depth_radius"), ctx.attr("bias"), ctx.attr("alpha"), ctx.attr("beta"),
            np.dtype(ctx.output_types[0].as_numpy_dtype))


@register_kernel("LRN")
def _lrn(ctx: KernelContext):
    radius, bias, alpha, beta, out = _lrn_attrs(ctx)

    def compute(x):
        x = np.asarray(x)
        if x.ndim != 4:
            raise _invalid(f"in must be 4-dimensional, got {_text(x.shape)}")
        x = x.astype(np.float32)
        norm = bias + alpha * _window_sum(x * x, radius)
        return ((x * norm ** -beta).astype(out),)

    return compute


@register_kernel("LRNGrad")
def _lrn_grad(ctx: KernelContext):
    radius, bias, alpha, beta, out = _lrn_attrs(ctx)

    def compute(grads, image, output):
        grads, image, output = (np.asarray(a).astype(np.float32)
                                for a in (grads, image, output))
        if grads.ndim != 4 or image.ndim != 4 or output.ndim != 4:
            raise _invalid("inputs must be 4-dimensional")
        if not grads.shape == image.shape == output.shape:
            raise _invalid("input_grads, input_image, and out_image should have the same "
                           "shape")
        norm = bias + alpha * _window_sum(image * image, radius)
        dx = grads * norm ** -beta - 2 * alpha * beta * image * _window_sum(
            grads * output / norm, radius)
        return (dx.astype(out),)

    return compute
