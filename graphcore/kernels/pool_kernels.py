"""CPU (numpy) kernels of the pooling ops over 2 or 3 spatial dims: MaxPool/MaxPoolV2/
MaxPool3D, AvgPool/AvgPool3D, their gradients (and max pooling's second-order gradients),
and MaxPoolWithArgmax with MaxPoolGradWithArgmax."""

from __future__ import annotations

import numpy as np

from graphcore.framework import errors
from graphcore.kernels import dnnl_primitives
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


def _pool_attrs(ctx: KernelContext, nd: int, ksize: tuple | None = None,
                strides: tuple | None = None) -> WindowAttrs:
    attrs = WindowAttrs(ctx, nd, ksize=ksize, strides=strides)
    if attrs.batch_channel_ksize[0] != 1 or attrs.batch_channel_strides[0] != 1:
        message = "Pooling is not yet supported on the batch dimension."
        if nd == 3:  # TF's Pooling3DOp calls it unimplemented, the 2-D ops invalid
            raise errors.UnimplementedError(None, None, message)
        raise invalid(message)
    if attrs.batch_channel_ksize[1] != 1 or attrs.batch_channel_strides[1] != 1:
        raise errors.UnimplementedError(
            None, None, "Depthwise pooling is not supported by this implementation.")
    return attrs


def _check_rank(x: np.ndarray, nd: int, what: str) -> None:
    if x.ndim != nd + 2:
        raise invalid(f"{what} must be {nd + 2}-dimensional{shape_text(x.shape)}")


def _check_grad(grad: np.ndarray, in_shape: tuple, win: Window) -> None:
    want = (in_shape[0],) + win.out + (in_shape[-1],)
    if grad.shape != want:
        raise invalid(f"Expected grad shape to be {shape_text(want)}, but got "
                      f"{shape_text(grad.shape)}")


def max_pool_argmax(x: np.ndarray, win: Window) -> tuple[np.ndarray, np.ndarray]:
    """(max of each window, flat index into the window of the first maximum)."""
    xp = win.padded(x, fill=lowest(x.dtype))
    best = np.full((x.shape[0],) + win.out + (x.shape[-1],), lowest(x.dtype), dtype=x.dtype)
    arg = np.zeros(best.shape, dtype=np.int64)
    if best.size == 0:
        return best, arg
    for t, (_, index) in enumerate(win.tap_slices()):
        patch = xp[index]
        if t == 0:
            best[...] = patch
            continue
        take = patch > best
        best = np.where(take, patch, best)
        arg[take] = t
    return best, arg


def max_pool(x: np.ndarray, win: Window) -> np.ndarray:
    """The max of each window, as :func:`max_pool_argmax` picks it (a NaN in a window's
    first tap stays; later NaNs are passed over): ``fmax`` tap by tap, branch-free."""
    xp = win.padded(x, fill=lowest(x.dtype))
    taps = [index for _, index in win.tap_slices()]
    if not taps:
        return np.full((x.shape[0],) + win.out + (x.shape[-1],), lowest(x.dtype),
                       dtype=x.dtype)
    best = xp[taps[0]].copy()
    is_float = best.dtype.kind in "fc"
    for index in taps[1:]:
        (np.fmax if is_float else np.maximum)(best, xp[index], out=best)
    if is_float and len(taps) > 1:
        first_nan = np.isnan(xp[taps[0]])
        if first_nan.any():
            best[first_nan] = xp[taps[0]][first_nan]
    return best


def _overlapping(win: Window) -> bool:
    return any(s < (k - 1) * r + 1 for k, s, r in zip(win.k, win.strides, win.dilations))


def max_pool_grad(x: np.ndarray, grad: np.ndarray, win: Window,
                  dtype: np.dtype) -> np.ndarray:
    """Each window's gradient added to the input its maximum came from (the first such
    tap, as :func:`max_pool_argmax` picks it): tap by tap, with masks, no index arrays."""
    widths = win.pad_widths()
    dxp = np.zeros((x.shape[0],) + tuple(size + b + a for size, (b, a) in
                                         zip(x.shape[1:-1], widths)) + (x.shape[-1],),
                   dtype=dtype)
    if not grad.size:
        return win.crop(dxp)
    xp = win.padded(x, fill=lowest(x.dtype))
    best = max_pool(x, win)
    grad = grad.astype(dtype, copy=False)
    # grad * mask is exact for finite values (and branch-free, unlike np.where).
    finite = dtype.kind not in "fc" or bool(np.isfinite(grad).all())
    overlapping = _overlapping(win)
    done = np.isnan(best) if best.dtype.kind in "fc" else np.zeros(best.shape, bool)
    taps = [index for _, index in win.tap_slices()]
    for t, index in enumerate(taps):
        hit = np.equal(xp[index], best)
        if t == 0:
            hit |= done
        else:
            np.greater(hit, done, out=hit)  # hit and not done
        if t < len(taps) - 1:
            done |= hit
        target = dxp[index]
        if not finite:
            target += np.where(hit, grad, dtype.type(0))
        elif overlapping:
            target += np.multiply(grad, hit, dtype=dtype)
        else:  # each input is in one window: this tap's cells are still zero
            np.multiply(grad, hit, out=target, dtype=dtype)
    return win.crop(dxp)


def _input_positions(arg: np.ndarray, win: Window) -> tuple:
    """Index arrays into the (unpadded) input of each window's argmax tap."""
    taps = np.unravel_index(arg, win.k)
    grids = np.indices(arg.shape, sparse=True)
    spatial = tuple(grids[1 + d] * win.strides[d] + taps[d] - win.pads[d][0]
                    for d in range(len(win.k)))
    return tuple(np.broadcast_arrays(grids[0], *spatial, grids[-1]))


# -- forward ---------------------------------------------------------------------------

def _max_pool_kernel(nd: int, ksize_input: bool = False):
    def factory(ctx: KernelContext):
        attrs = None if ksize_input else _pool_attrs(ctx, nd)
        out = out_dtype(ctx)

        def compute(x, *window):
            a = _pool_attrs(ctx, nd, int_tuple(window[0]), int_tuple(window[1])) \
                if ksize_input else attrs
            x = np.asarray(x)
            _check_rank(x, nd, "input")
            x = to_channels_last(x, a.channels_first)
            win = a.window(x.shape)
            # oneDNN skips NaNs in every tap, as TF's MaxPool (the numpy path keeps one
            # in a window's first tap).
            y = dnnl_primitives.pool_forward(x, win, average=False)
            if y is None:
                y = max_pool(x, win)
            return (from_channels_last(y, a.channels_first).astype(out, copy=False),)

        return compute

    return factory


def _avg_pool_kernel(nd: int):
    def factory(ctx: KernelContext):
        attrs = _pool_attrs(ctx, nd)
        out, work = out_dtype(ctx), work_dtype(out_dtype(ctx))

        def compute(x):
            x = np.asarray(x)
            _check_rank(x, nd, "input")
            x = to_channels_last(x, attrs.channels_first).astype(work, copy=False)
            win = attrs.window(x.shape)
            y = dnnl_primitives.pool_forward(x, win, average=True)
            if y is not None:
                return (from_channels_last(y, attrs.channels_first).astype(out, copy=False),)
            xp = win.padded(x)
            total = np.zeros((x.shape[0],) + win.out + (x.shape[-1],), dtype=work)
            for _, index in win.tap_slices():
                total += xp[index]
            y = total / win.counts().astype(work)
            return (from_channels_last(y, attrs.channels_first).astype(out, copy=False),)

        return compute

    return factory


register_kernel("MaxPool")(_max_pool_kernel(2))
register_kernel("MaxPoolV2")(_max_pool_kernel(2, ksize_input=True))
register_kernel("MaxPool3D")(_max_pool_kernel(3))
register_kernel("AvgPool")(_avg_pool_kernel(2))
register_kernel("AvgPool3D")(_avg_pool_kernel(3))


# -- gradients -------------------------------------------------------------------------

def _max_pool_grad_kernel(nd: int, ksize_input: bool = False):
    def factory(ctx: KernelContext):
        attrs = None if ksize_input else _pool_attrs(ctx, nd)
        out, work = out_dtype(ctx), work_dtype(out_dtype(ctx))

        def compute(orig_input, orig_output, grad, *window):
            a = _pool_attrs(ctx, nd, int_tuple(window[0]), int_tuple(window[1])) \
                if ksize_input else attrs
            x = np.asarray(orig_input)
            _check_rank(x, nd, "orig_input")
            x = to_channels_last(x, a.channels_first)
            grad = to_channels_last(np.asarray(grad), a.channels_first).astype(work,
                                                                               copy=False)
            win = a.window(x.shape)
            _check_grad(grad, x.shape, win)
            dx = None
            # A window with a NaN sends its gradient where max_pool_grad does, as TF's
            # MaxPoolGrad (oneDNN passes NaNs over): those inputs take the numpy path.
            if x.dtype == np.float32 and x.size and not np.isnan(x.max()):
                dx = dnnl_primitives.pool_backward(x.shape, grad, win, average=False, x=x)
            if dx is None:
                dx = max_pool_grad(x, grad, win, work)
            return (from_channels_last(dx, a.channels_first).astype(out, copy=False),)

        return compute

    return factory


def _max_pool_grad_grad_kernel(nd: int, ksize_input: bool = False):
    def factory(ctx: KernelContext):
        attrs = None if ksize_input else _pool_attrs(ctx, nd)
        out = out_dtype(ctx)

        def compute(orig_input, orig_output, grad, *window):
            a = _pool_attrs(ctx, nd, int_tuple(window[0]), int_tuple(window[1])) \
                if ksize_input else attrs
            x = to_channels_last(np.asarray(orig_input), a.channels_first)
            grad = to_channels_last(np.asarray(grad), a.channels_first)
            if grad.shape != x.shape:
                raise invalid(f"input and grad must have the same shape: "
                              f"{shape_text(x.shape)} vs {shape_text(grad.shape)}")
            win = a.window(x.shape)
            _, arg = max_pool_argmax(x, win)
            y = grad[_input_positions(arg, win)] if arg.size else np.zeros(arg.shape)
            return (from_channels_last(y, a.channels_first).astype(out, copy=False),)

        return compute

    return factory


def _avg_pool_grad_kernel(nd: int):
    def factory(ctx: KernelContext):
        attrs = _pool_attrs(ctx, nd)
        out, work = out_dtype(ctx), work_dtype(out_dtype(ctx))

        def compute(orig_input_shape, grad):
            shape = int_tuple(orig_input_shape)
            if len(shape) != nd + 2:
                raise invalid(f"orig_input_shape must have {nd + 2} elements, got "
                              f"{len(shape)}")
            shape = channels_last_shape(shape, attrs.channels_first)
            grad = to_channels_last(np.asarray(grad), attrs.channels_first).astype(
                work, copy=False)
            win = attrs.window(shape)
            _check_grad(grad, shape, win)
            dx = dnnl_primitives.pool_backward(shape, grad, win, average=True)
            if dx is not None:
                return (from_channels_last(dx, attrs.channels_first).astype(out, copy=False),)
            xp = win.padded(np.zeros(shape, dtype=work))
            g = grad / win.counts().astype(work)
            for _, index in win.tap_slices():
                xp[index] += g
            dx = win.crop(xp)
            return (from_channels_last(dx, attrs.channels_first).astype(out, copy=False),)

        return compute

    return factory


register_kernel("MaxPoolGrad")(_max_pool_grad_kernel(2))
register_kernel("MaxPoolGradV2")(_max_pool_grad_kernel(2, ksize_input=True))
register_kernel("MaxPool3DGrad")(_max_pool_grad_kernel(3))
register_kernel("MaxPoolGradGrad")(_max_pool_grad_grad_kernel(2))
register_kernel("MaxPool3DGradGrad")(_max_pool_grad_grad_kernel(3))
register_kernel("MaxPoolGradGradV2")(_max_pool_grad_grad_kernel(2, ksize_input=True))
register_kernel("AvgPoolGrad")(_avg_pool_grad_kernel(2))
register_kernel("AvgPool3DGrad")(_avg_pool_grad_kernel(3))


# -- with argmax -------------------------------------------------------------------------

def _flat_argmax(arg: np.ndarray, win: Window, in_shape: tuple,
                 include_batch: bool) -> np.ndarray:
    """TF's argmax: ((b * height + y) * width + x) * channels + c (b only with
    include_batch_in_index)."""
    pos = _input_positions(arg, win)
    flat = np.ravel_multi_index(pos, in_shape)
    if not include_batch:
        flat = flat - pos[0] * int(np.prod(in_shape[1:]))
    return flat


@register_kernel("MaxPoolWithArgmax")
def _max_pool_with_argmax(ctx: KernelContext):
    attrs = _pool_attrs(ctx, 2)
    include_batch = ctx.node_def.attr["include_batch_in_index"].b
    out, arg_type = out_dtype(ctx, 0), out_dtype(ctx, 1)

    def compute(x):
        x = np.asarray(x)
        _check_rank(x, 2, "input")
        win = attrs.window(x.shape)
        y, arg = max_pool_argmax(x, win)
        flat = _flat_argmax(arg, win, x.shape, include_batch)
        return y.astype(out, copy=False), flat.astype(arg_type)

    return compute


@register_kernel("MaxPoolGradWithArgmax")
def _max_pool_grad_with_argmax(ctx: KernelContext):
    attrs = _pool_attrs(ctx, 2)
    include_batch = ctx.node_def.attr["include_batch_in_index"].b
    out, work = out_dtype(ctx), work_dtype(out_dtype(ctx))

    def compute(x, grad, argmax):
        x = np.asarray(x)
        grad, argmax = np.asarray(grad).astype(work, copy=False), np.asarray(argmax)
        _check_rank(x, 2, "input")
        win = attrs.window(x.shape)
        _check_grad(grad, x.shape, win)
        if argmax.shape != grad.shape:
            raise invalid(f"Expected argmax shape to be {shape_text(grad.shape)}, but got "
                          f"{shape_text(argmax.shape)}")
        flat = argmax.astype(np.int64)
        if not include_batch:
            per_image = int(np.prod(x.shape[1:]))
            flat = flat + np.arange(x.shape[0]).reshape((-1, 1, 1, 1)) * per_image
        if flat.size and (flat.min() < 0 or flat.max() >= x.size):
            raise invalid("Invalid argmax index for MaxPoolGradWithArgmax")
        dx = np.zeros(x.size, dtype=work)
        np.add.at(dx, flat.reshape(-1), grad.reshape(-1))
        return (dx.reshape(x.shape).astype(out, copy=False),)

    return compute
