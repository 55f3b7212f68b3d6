"""CPU (numpy) kernels of the convolutions: Conv2D/Conv3D and the generic Conv (im2col +
one GEMM) and their input/filter backprops, ExtractVolumePatches (the im2col),
DepthwiseConv2dNative and its backprops, Dilation2D (grayscale morphological dilation) and
its backprops."""

from __future__ import annotations

import numpy as np

from graphcore.framework import errors
from graphcore.kernels import blas, dnnl_primitives, intra_op
from graphcore.kernels.registry import KernelContext, register_kernel
from graphcore.kernels.window import (
    Window,
    WindowAttrs,
    channels_last_shape,
    from_channels_last,
    int_tuple,
    invalid,
    lowest,
    out_dtype,
    shape_text,
    to_channels_last,
    work_dtype,
)

# -- dense convolution (N spatial dims) --------------------------------------------------


# im2col buffers are cut over the batch to hold at most this many elements at once.
COLS_BUDGET = 1 << 24


def _copy_patches(view: np.ndarray, cols: np.ndarray) -> None:
    """cols[...] = view, the images split over the intra-op threads."""
    def run(lo: int, hi: int) -> None:
        np.copyto(cols[lo:hi], view[lo:hi])

    intra_op.map_rows(run, view.shape[0], int(np.prod(view.shape[1:])))


def _patch_rows(xp: np.ndarray, win: Window) -> tuple[np.ndarray, bool]:
    """The im2col matrix of the padded input as [N, *out, *k, C] (flattening to
    [N * prod(out), taps * C] rows) and whether it is a fresh buffer: the input itself
    for a 1x1 window at stride 1, else one copy of :meth:`Window.patches`."""
    if win.taps == 1 and all(s == 1 for s in win.strides) and xp.flags.c_contiguous:
        return xp.reshape((xp.shape[0],) + win.out + win.k + (xp.shape[-1],)), False
    view = win.patches(xp)
    cols = np.empty(view.shape, dtype=xp.dtype)
    _copy_patches(view, cols)
    return cols, True


def _batch_chunks(n: int, per_image: int) -> list[tuple[int, int]]:
    step = max(1, COLS_BUDGET // max(per_image, 1))
    return [(lo, min(n, lo + step)) for lo in range(0, n, step)]


def im2col(x: np.ndarray, win: Window) -> np.ndarray:
    """[N, *out, taps, C]: the input each window tap reads at every output position."""
    view = win.patches(win.padded(x))
    cols = np.empty(view.shape, dtype=x.dtype)
    _copy_patches(view, cols)
    return cols.reshape((x.shape[0],) + win.out + (win.taps, x.shape[-1]))


def conv_forward(x: np.ndarray, w: np.ndarray, win: Window) -> np.ndarray:
    """Channels-last conv of x [N, *S, C] with w [*K, C, CO]: im2col (one strided copy,
    cut over the batch when large) and one GEMM per cut; oneDNN's convolution where it
    applies (float32)."""
    y = dnnl_primitives.conv_forward(x, w, win)
    if y is not None:
        return y
    n, c, co = x.shape[0], w.shape[-2], w.shape[-1]
    dtype = np.result_type(x, w)
    if 0 in win.out or n == 0:
        return np.zeros((n,) + win.out + (co,), dtype=dtype)
    xp = win.padded(x.astype(dtype, copy=False))
    k = win.taps * c
    w2 = w.reshape(k, co)
    rows = int(np.prod(win.out))
    chunks = _batch_chunks(n, rows * k)
    out = None if len(chunks) == 1 else np.empty((n * rows, co), dtype=dtype)
    for lo, hi in chunks:
        cols, _ = _patch_rows(xp[lo:hi], win)
        y = blas.matmul(cols.reshape(-1, k), w2)
        if out is None:
            out = y
        else:
            out[lo * rows:hi * rows] = y
    return out.reshape((n,) + win.out + (co,))


def conv_input_grad(in_shape: tuple, w: np.ndarray, grad: np.ndarray,
                    win: Window) -> np.ndarray:
    """The gradient of the conv's input: one GEMM (grad x w^T, the im2col matrix's
    gradient) per cut of the batch, then col2im: each tap's columns added into the
    padded input, the images split over the intra-op threads; oneDNN's backward-data
    convolution where it applies (float32)."""
    dx = dnnl_primitives.conv_backward_data(in_shape, w, grad, win)
    if dx is not None:
        return dx
    dtype = np.result_type(w, grad)
    n, c, co = in_shape[0], w.shape[-2], w.shape[-1]
    widths = win.pad_widths()
    dxp = np.zeros((n,) + tuple(size + b + a for size, (b, a) in
                                zip(in_shape[1:-1], widths)) + (c,), dtype=dtype)
    if 0 in win.out or n == 0 or c == 0:
        return win.crop(dxp)
    nd, k = len(win.k), win.taps * c
    w2 = w.reshape(k, co)
    rows = int(np.prod(win.out))
    taps = list(win.tap_slices())
    for lo, hi in _batch_chunks(n, rows * k):
        g2 = grad[lo:hi].reshape(-1, co)
        dcols = blas.matmul(g2, w2, transpose_b=True).reshape(
            (hi - lo,) + win.out + win.k + (c,))

        def scatter(a: int, b: int, dcols: np.ndarray = dcols, base: int = lo) -> None:
            part = dxp[base + a:base + b]
            for tap, index in taps:
                part[index] += dcols[(slice(a, b),) + (slice(None),) * nd + tap]

        intra_op.map_rows(scatter, hi - lo, rows * k)
    return win.crop(dxp)


def conv_filter_grad(x: np.ndarray, w_shape: tuple, grad: np.ndarray,
                     win: Window) -> np.ndarray:
    """The gradient of the conv's filter: im2col(x)^T x grad, one GEMM per cut of the
    batch (summed); oneDNN's backward-weights convolution where it applies (float32)."""
    dw = dnnl_primitives.conv_backward_filter(x, w_shape, grad, win)
    if dw is not None:
        return dw
    c, co = w_shape[-2], w_shape[-1]
    dtype = np.result_type(x, grad)
    n = x.shape[0]
    if 0 in win.out or n == 0:
        return np.zeros(w_shape, dtype=dtype)
    xp = win.padded(x)
    k = win.taps * c
    rows = int(np.prod(win.out))
    dw = None
    for lo, hi in _batch_chunks(n, rows * k):
        cols, _ = _patch_rows(xp[lo:hi], win)
        part = blas.matmul(cols.reshape(-1, k), grad[lo:hi].reshape(-1, co),
                           transpose_a=True)
        dw = part if dw is None else dw + part
    return dw.reshape(w_shape).astype(dtype, copy=False)


def _check_rank(x: np.ndarray, rank: int, what: str) -> None:
    if x.ndim != rank:
        raise invalid(f"{what} must be {rank}-dimensional{shape_text(x.shape)}")


def _conv_kernel(nd: int):
    def factory(ctx: KernelContext):
        attrs = WindowAttrs(ctx, nd)
        attrs.check_conv()
        out, work = out_dtype(ctx), work_dtype(out_dtype(ctx))

        def compute(x, w):
            x, w = np.asarray(x), np.asarray(w)
            _check_rank(x, nd + 2, "input")
            _check_rank(w, nd + 2, "filter")
            x = to_channels_last(x, attrs.channels_first).astype(work, copy=False)
            if x.shape[-1] != w.shape[-2]:
                if w.shape[-2] == 0 or x.shape[-1] % w.shape[-2]:
                    raise invalid(f"input depth must be evenly divisible by filter depth: "
                                  f"{x.shape[-1]} vs {w.shape[-2]}")
                raise errors.UnimplementedError(
                    None, None, "Grouped convolutions are not supported on CPU")
            win = attrs.window(x.shape, w.shape[:nd])
            y = conv_forward(x, w.astype(work, copy=False), win)
            return (from_channels_last(y, attrs.channels_first).astype(out, copy=False),)

        return compute

    return factory


def _input_sizes(value: object, grad_shape: tuple, w_shape: tuple, nd: int,
                 channels_first: bool) -> tuple:
    """The channels-last input shape from an ``input_sizes`` tensor (Conv2DBackpropInput
    also takes just the spatial sizes)."""
    sizes = int_tuple(value)
    if len(sizes) == nd:
        return (grad_shape[0],) + sizes + (w_shape[-2],)
    if len(sizes) != nd + 2:
        raise invalid(f"input_sizes must be {nd + 2}-dimensional, got {len(sizes)}")
    return channels_last_shape(sizes, channels_first)


def _check_out_backprop(op: str, grad: np.ndarray, win: Window, depth: int) -> None:
    if win.out != grad.shape[1:-1] or grad.shape[-1] != depth:
        raise invalid(f"{op}: Size of out_backprop doesn't match computed: actual = "
                      f"{shape_text(grad.shape[1:-1])}, computed = {shape_text(win.out)}")


def _conv_backprop_input_kernel(nd: int, op: str, sizes_of_input: bool = False):
    """Conv*BackpropInput; with ``sizes_of_input`` (Conv2DBackpropInputV2) the input's
    shape is that of the first input rather than its value."""
    def factory(ctx: KernelContext):
        attrs = WindowAttrs(ctx, nd)
        attrs.check_conv()
        out, work = out_dtype(ctx), work_dtype(out_dtype(ctx))

        def compute(input_sizes, w, grad):
            if sizes_of_input:
                input_sizes = np.shape(input_sizes)
            w = np.asarray(w).astype(work, copy=False)
            grad = to_channels_last(np.asarray(grad), attrs.channels_first).astype(
                work, copy=False)
            _check_rank(grad, nd + 2, "out_backprop")
            _check_rank(w, nd + 2, "filter")
            in_shape = _input_sizes(input_sizes, grad.shape, w.shape, nd, attrs.channels_first)
            win = attrs.window(in_shape, w.shape[:nd])
            _check_out_backprop(op, grad, win, w.shape[-1])
            dx = conv_input_grad(in_shape, w, grad, win)
            return (from_channels_last(dx, attrs.channels_first).astype(out, copy=False),)

        return compute

    return factory


def _conv_backprop_filter_kernel(nd: int, op: str, sizes_of_input: bool = False):
    """Conv*BackpropFilter; with ``sizes_of_input`` (Conv2DBackpropFilterV2) the filter's
    shape is that of the second input rather than its value."""
    def factory(ctx: KernelContext):
        attrs = WindowAttrs(ctx, nd)
        attrs.check_conv()
        out, work = out_dtype(ctx), work_dtype(out_dtype(ctx))

        def compute(x, filter_sizes, grad):
            if sizes_of_input:
                filter_sizes = np.shape(filter_sizes)
            x = to_channels_last(np.asarray(x), attrs.channels_first).astype(work, copy=False)
            grad = to_channels_last(np.asarray(grad), attrs.channels_first).astype(
                work, copy=False)
            w_shape = int_tuple(filter_sizes)
            if len(w_shape) != nd + 2:
                raise invalid(f"filter_sizes must be {nd + 2}-dimensional, got "
                              f"{len(w_shape)}")
            win = attrs.window(x.shape, w_shape[:nd])
            _check_out_backprop(op, grad, win, w_shape[-1])
            return (conv_filter_grad(x, w_shape, grad, win).astype(out, copy=False),)

        return compute

    return factory


register_kernel("Conv2D")(_conv_kernel(2))
register_kernel("Conv3D")(_conv_kernel(3))
register_kernel("Conv2DBackpropInput")(
    _conv_backprop_input_kernel(2, "Conv2DCustomBackpropInput"))
register_kernel("Conv3DBackpropInputV2")(
    _conv_backprop_input_kernel(3, "Conv3DBackpropInputOp"))
register_kernel("Conv2DBackpropFilter")(
    _conv_backprop_filter_kernel(2, "Conv2DCustomBackpropFilter"))
register_kernel("Conv3DBackpropFilterV2")(
    _conv_backprop_filter_kernel(3, "Conv3DBackpropFilterOp"))
register_kernel("Conv2DBackpropInputV2")(
    _conv_backprop_input_kernel(2, "Conv2DCustomBackpropInput", sizes_of_input=True))
register_kernel("Conv2DBackpropFilterV2")(
    _conv_backprop_filter_kernel(2, "Conv2DCustomBackpropFilter", sizes_of_input=True))


@register_kernel("Conv")
def _generic_conv(ctx: KernelContext):
    """The generic Conv op: 2 or 3 spatial dims after ``batch_dims`` batch dims."""
    attr = ctx.node_def.attr
    batch_dims, groups = int(attr["batch_dims"].i), int(attr["groups"].i)
    nd = len(attr["strides"].list.i) - 2
    first = attr["data_format"].s == b"CHANNELS_FIRST"
    attrs = WindowAttrs(ctx, nd, channels_first=first)
    attrs.check_conv()
    out, work = out_dtype(ctx), work_dtype(out_dtype(ctx))

    def compute(x, w):
        x, w = np.asarray(x), np.asarray(w)
        _check_rank(x, nd + 1 + batch_dims, "input")
        _check_rank(w, nd + 2, "filter")
        if groups != 1 or x.shape[batch_dims if first else -1] != w.shape[-2]:
            raise errors.UnimplementedError(
                None, None, "Grouped/Depthwise Convolutions are not supported yet.")
        batch = x.shape[:batch_dims]
        x = to_channels_last(x.reshape((-1,) + x.shape[batch_dims:]), first).astype(
            work, copy=False)
        win = attrs.window(x.shape, w.shape[:nd])
        y = from_channels_last(conv_forward(x, w.astype(work, copy=False), win), first)
        return (y.reshape(batch + y.shape[1:]).astype(out, copy=False),)

    return compute


@register_kernel("ExtractVolumePatches")
def _extract_volume_patches(ctx: KernelContext):
    attr = ctx.node_def.attr
    ksizes = tuple(attr["ksizes"].list.i)
    attrs = WindowAttrs(ctx, 3, ksize=ksizes)
    if attrs.batch_channel_ksize != (1, 1) or attrs.batch_channel_strides != (1, 1):
        raise invalid("Only support ksizes across planes, rows and columns.")

    def compute(x):
        x = np.asarray(x)
        _check_rank(x, 5, "input")
        win = attrs.window(x.shape)
        cols = im2col(x, win)
        return (cols.reshape(cols.shape[:4] + (-1,)),)

    return compute


# -- depthwise convolution ----------------------------------------------------------------

def depthwise_forward(x: np.ndarray, w: np.ndarray, win: Window) -> np.ndarray:
    """x [N, H, W, C] with w [KH, KW, C, M] -> [N, OH, OW, C * M]: per tap one product
    into a scratch block and one sum into the output (no temporaries), the images split
    over the intra-op threads; oneDNN's grouped convolution (a group per channel) where
    it applies (float32)."""
    y = dnnl_primitives.conv_forward(x, w, win, groups=x.shape[-1])
    if y is not None:
        return y
    n, c, m = x.shape[0], w.shape[2], w.shape[3]
    y = np.empty((n,) + win.out + (c, m), dtype=np.result_type(x, w))
    xp = win.padded(x)
    taps = list(win.tap_slices())

    def run(lo: int, hi: int) -> None:
        out = y[lo:hi]
        scratch = np.empty_like(out)
        for t, (tap, index) in enumerate(taps):
            block = xp[(slice(lo, hi),) + index[1:]][..., None]
            if t == 0:
                np.multiply(block, w[tap], out=out)
            else:
                np.multiply(block, w[tap], out=scratch)
                out += scratch

    intra_op.map_rows(run, n, int(np.prod(y.shape[1:])))
    return y.reshape((n,) + win.out + (c * m,))


def _depthwise_attrs(ctx: KernelContext) -> WindowAttrs:
    attrs = WindowAttrs(ctx, 2)
    attrs.check_conv()
    return attrs


@register_kernel("DepthwiseConv2dNative")
def _depthwise(ctx: KernelContext):
    attrs = _depthwise_attrs(ctx)
    out, work = out_dtype(ctx), work_dtype(out_dtype(ctx))

    def compute(x, w):
        x, w = np.asarray(x), np.asarray(w)
        _check_rank(x, 4, "input")
        _check_rank(w, 4, "filter")
        x = to_channels_last(x, attrs.channels_first).astype(work, copy=False)
        if x.shape[-1] != w.shape[2]:
            raise invalid(f"input and filter must have the same depth: {x.shape[-1]} vs "
                          f"{w.shape[2]}")
        win = attrs.window(x.shape, w.shape[:2])
        y = depthwise_forward(x, w.astype(work, copy=False), win)
        return (from_channels_last(y, attrs.channels_first).astype(out, copy=False),)

    return compute


@register_kernel("DepthwiseConv2dNativeBackpropInput")
def _depthwise_backprop_input(ctx: KernelContext):
    attrs = _depthwise_attrs(ctx)
    out, work = out_dtype(ctx), work_dtype(out_dtype(ctx))

    def compute(input_sizes, w, grad):
        w = np.asarray(w).astype(work, copy=False)
        grad = to_channels_last(np.asarray(grad), attrs.channels_first).astype(work,
                                                                              copy=False)
        in_shape = _input_sizes(input_sizes, grad.shape, w.shape, 2, attrs.channels_first)
        win = attrs.window(in_shape, w.shape[:2])
        c, m = w.shape[2], w.shape[3]
        _check_out_backprop("DepthwiseConv2DBackpropInput", grad, win, c * m)
        dx = dnnl_primitives.conv_backward_data(in_shape, w, grad, win, groups=c)
        if dx is not None:
            return (from_channels_last(dx, attrs.channels_first).astype(out, copy=False),)
        g = grad.reshape(grad.shape[:-1] + (c, m))
        xp = win.padded(np.zeros(in_shape, dtype=work))
        taps = list(win.tap_slices())

        def run(lo: int, hi: int) -> None:  # images lo:hi (their padded rows are theirs)
            gb = g[lo:hi]
            scratch = np.empty(gb.shape[:-1], dtype=work)
            for tap, index in taps:
                if m == 1:
                    np.multiply(gb[..., 0], w[tap][:, 0], out=scratch)
                else:
                    np.einsum("...cm,cm->...c", gb, w[tap], out=scratch)
                xp[(slice(lo, hi),) + index[1:]] += scratch

        intra_op.map_rows(run, g.shape[0], int(np.prod(g.shape[1:])))
        dx = win.crop(xp)
        return (from_channels_last(dx, attrs.channels_first).astype(out, copy=False),)

    return compute


@register_kernel("DepthwiseConv2dNativeBackpropFilter")
def _depthwise_backprop_filter(ctx: KernelContext):
    attrs = _depthwise_attrs(ctx)
    out, work = out_dtype(ctx), work_dtype(out_dtype(ctx))

    def compute(x, filter_sizes, grad):
        x = to_channels_last(np.asarray(x), attrs.channels_first).astype(work, copy=False)
        grad = to_channels_last(np.asarray(grad), attrs.channels_first).astype(work,
                                                                              copy=False)
        w_shape = int_tuple(filter_sizes)
        if len(w_shape) != 4:
            raise invalid(f"filter_sizes must be 4-dimensional, got {len(w_shape)}")
        win = attrs.window(x.shape, w_shape[:2])
        c, m = w_shape[2], w_shape[3]
        _check_out_backprop("DepthwiseConv2DBackpropFilter", grad, win, c * m)
        dw = dnnl_primitives.conv_backward_filter(x, w_shape, grad, win, groups=c)
        if dw is not None:
            return (dw.astype(out, copy=False),)
        g = grad.reshape(grad.shape[:-1] + (c, m))
        xp = win.padded(x)
        taps = list(win.tap_slices())
        parts: dict[int, np.ndarray] = {}

        def run(lo: int, hi: int) -> None:  # this range's share of every tap's sum
            gb = g[lo:hi]
            dw = np.zeros(w_shape, dtype=work)
            for tap, index in taps:
                block = xp[(slice(lo, hi),) + index[1:]]
                if m == 1:  # (einsum's own loop: ~1.7x a product and a row sum here)
                    dw[tap][:, 0] = np.einsum("nhwc,nhwc->c", block, gb[..., 0])
                else:
                    dw[tap] = np.einsum("nhwc,nhwcm->cm", block, gb)
            parts[lo] = dw

        intra_op.map_rows(run, g.shape[0], int(np.prod(g.shape[1:])))
        dw = sum(parts[lo] for lo in sorted(parts))  # (in a fixed order)
        return (dw.astype(out, copy=False),)

    return compute


# -- morphological dilation ----------------------------------------------------------------

def _dilation_attrs(ctx: KernelContext) -> WindowAttrs:
    attrs = WindowAttrs(ctx, 2, dilation_attr="rates")
    if attrs.batch_channel_strides != (1, 1):
        raise invalid("Current implementation does not yet support strides in the batch "
                      "and depth dimensions.")
    if attrs.batch_channel_dilations != (1, 1):
        raise invalid("Current implementation does not yet support rates in the batch and "
                      "depth dimensions.")
    return attrs


def _dilation_argmax(x: np.ndarray, f: np.ndarray, win: Window) -> tuple:
    """(max over taps of x + f, the tap index reaching it: the first one on ties)."""
    xp = win.padded(x, fill=lowest(x.dtype))
    best = np.full((x.shape[0],) + win.out + (x.shape[-1],), lowest(x.dtype),
                   dtype=np.result_type(x, f))
    arg = np.zeros(best.shape, dtype=np.int64)
    for t, (tap, index) in enumerate(win.tap_slices()):
        value = xp[index] + f[tap]
        take = value > best
        best = np.where(take, value, best)
        arg[take] = t
    return best, arg


def _dilation_check(x: np.ndarray, f: np.ndarray) -> None:
    _check_rank(x, 4, "input")
    _check_rank(f, 3, "filter")
    if x.shape[3] != f.shape[2]:
        raise invalid(f"input and filter must have the same depth: {x.shape[3]} vs "
                      f"{f.shape[2]}")


@register_kernel("Dilation2D")
def _dilation2d(ctx: KernelContext):
    attrs = _dilation_attrs(ctx)
    out, work = out_dtype(ctx), work_dtype(out_dtype(ctx))

    def compute(x, f):
        x, f = np.asarray(x).astype(work, copy=False), np.asarray(f).astype(work, copy=False)
        _dilation_check(x, f)
        win = attrs.window(x.shape, f.shape[:2])
        return (_dilation_argmax(x, f, win)[0].astype(out, copy=False),)

    return compute


def _dilation_backprop(ctx: KernelContext, to_input: bool):
    attrs = _dilation_attrs(ctx)
    out, work = out_dtype(ctx), work_dtype(out_dtype(ctx))

    def compute(x, f, grad):
        x, f = np.asarray(x).astype(work, copy=False), np.asarray(f).astype(work, copy=False)
        grad = np.asarray(grad).astype(work, copy=False)
        _dilation_check(x, f)
        win = attrs.window(x.shape, f.shape[:2])
        want = (x.shape[0],) + win.out + (x.shape[3],)
        if grad.shape != want:
            raise invalid(f"out_backprop has incompatible size: {shape_text(grad.shape)} vs "
                          f"{shape_text(want)}")
        _, arg = _dilation_argmax(x, f, win)
        ti, tj = np.unravel_index(arg, win.k)
        if not to_input:
            df = np.zeros(f.shape, dtype=work)
            c = np.broadcast_to(np.arange(x.shape[3]), arg.shape)
            np.add.at(df, (ti, tj, c), grad)
            return (df.astype(out, copy=False),)
        n, oh, ow, c = np.indices(grad.shape, sparse=True)
        rows = oh * win.strides[0] + ti * win.dilations[0] - win.pads[0][0]
        cols = ow * win.strides[1] + tj * win.dilations[1] - win.pads[1][0]
        dx = np.zeros(x.shape, dtype=work)
        np.add.at(dx, tuple(np.broadcast_arrays(n, rows, cols, c)), grad)
        return (dx.astype(out, copy=False),)

    return compute


register_kernel("Dilation2DBackpropInput")(lambda ctx: _dilation_backprop(ctx, True))
register_kernel("Dilation2DBackpropFilter")(lambda ctx: _dilation_backprop(ctx, False))
