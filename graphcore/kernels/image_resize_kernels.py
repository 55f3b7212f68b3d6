"""CPU kernels of the resize ops and their gradients (TF's resize_*_op.cc).

Each resize is separable: per axis, a weight matrix ``W[out, in]`` built with TF's index
and weight rules (legacy or half-pixel scalers, align_corners scale), applied as
``Wy @ image @ Wx^T`` in float32. A gradient is the same product with the transposes.
Nearest neighbour gathers instead, so integer images keep their exact values.
"""

from __future__ import annotations

import math

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def resize_scale(in_size: int, out_size: int, align_corners: bool) -> np.float32:
    """TF's CalculateResizeScale, in float32."""
    if align_corners and out_size > 1:
        return np.float32(in_size - 1) / np.float32(out_size - 1)
    return np.float32(in_size) / np.float32(out_size)


def _check_images(images: np.ndarray, size: np.ndarray, align_corners: bool,
                  half_pixel_centers: bool) -> tuple[int, int]:
    if images.ndim != 4:
        raise _invalid(f"input must be 4-dimensional{list(images.shape)}")
    size = np.asarray(size)
    if size.ndim != 1:
        raise _invalid(f"shape_t must be 1-dimensional{list(size.shape)}")
    if size.shape[0] != 2:
        raise _invalid(f"shape_t must have two elements{list(size.shape)}")
    if half_pixel_centers and align_corners:
        raise _invalid("If half_pixel_centers is True, align_corners must be False.")
    out_h, out_w = int(size[0]), int(size[1])
    if out_h <= 0 or out_w <= 0:
        raise _invalid("output dimensions must be positive")
    if images.shape[1] <= 0 or images.shape[2] <= 0:
        raise _invalid("input image must be of non-zero size")
    return out_h, out_w


def _scaled(out_size: int, scale: np.float32, half_pixel_centers: bool) -> np.ndarray:
    x = np.arange(out_size, dtype=np.float32)
    if half_pixel_centers:
        return (x + np.float32(0.5)) * scale - np.float32(0.5)
    return x * scale


def bilinear_weights(in_size: int, out_size: int, align_corners: bool,
                     half_pixel_centers: bool) -> np.ndarray:
    scale = resize_scale(in_size, out_size, align_corners)
    pos = _scaled(out_size, scale, half_pixel_centers)
    floor = np.floor(pos)
    lower = np.maximum(floor, 0).astype(np.int64)
    upper = np.minimum(np.ceil(pos), in_size - 1).astype(np.int64)
    lerp = (pos - floor).astype(np.float32)
    w = np.zeros((out_size, in_size), np.float32)
    rows = np.arange(out_size)
    np.add.at(w, (rows, lower), np.float32(1) - lerp)
    np.add.at(w, (rows, upper), lerp)
    return w


def nearest_indices(in_size: int, out_size: int, align_corners: bool,
                    half_pixel_centers: bool) -> np.ndarray:
    scale = resize_scale(in_size, out_size, align_corners)
    x = np.arange(out_size, dtype=np.float32)
    pos = (x + np.float32(0.5)) * scale if half_pixel_centers else x * scale
    # roundf rounds halves away from zero; the positions are never negative here.
    idx = np.floor(pos + np.float32(0.5)) if align_corners else np.floor(pos)
    idx = np.minimum(idx.astype(np.int64), in_size - 1)
    return np.maximum(idx, 0) if half_pixel_centers else idx


_TABLE_SIZE = 1024


def _coeffs_table(a: float) -> np.ndarray:
    x = (np.arange(_TABLE_SIZE + 1, dtype=np.float64) / _TABLE_SIZE).astype(np.float32)
    table = np.empty((_TABLE_SIZE + 1, 2), np.float32)
    a = np.float32(a)
    table[:, 0] = ((a + 2) * x - (a + 3)) * x * x + 1
    x = x + np.float32(1.0)
    table[:, 1] = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return table


_KEYS_TABLE = _coeffs_table(-0.5)
_LEGACY_TABLE = _coeffs_table(-0.75)


def bicubic_weights(in_size: int, out_size: int, align_corners: bool,
                    half_pixel_centers: bool) -> np.ndarray:
    scale = resize_scale(in_size, out_size, align_corners)
    pos = _scaled(out_size, scale, half_pixel_centers)
    table = _KEYS_TABLE if half_pixel_centers else _LEGACY_TABLE
    w = np.zeros((out_size, in_size), np.float32)
    for i, p in enumerate(pos):
        loc = math.floor(p)
        offset = int(np.rint(np.float32(p - loc) * _TABLE_SIZE))
        weights = [table[offset, 1], table[offset, 0], table[_TABLE_SIZE - offset, 0],
                   table[_TABLE_SIZE - offset, 1]]
        indices = [min(in_size - 1, max(0, loc + k)) for k in (-1, 0, 1, 2)]
        if half_pixel_centers:
            # Keys' kernel drops samples outside the image and renormalises (TF's rule).
            weights = [wk if idx == loc + k else np.float32(0)
                       for wk, idx, k in zip(weights, indices, (-1, 0, 1, 2))]
            total = np.float32(sum(weights))
            if abs(total) >= 1000.0 * np.finfo(np.float32).tiny:
                weights = [wk * (np.float32(1) / total) for wk in weights]
        for wk, idx in zip(weights, indices):
            w[i, idx] += wk
    return w


def area_weights(in_size: int, out_size: int, align_corners: bool) -> np.ndarray:
    scale = resize_scale(in_size, out_size, align_corners)
    w = np.zeros((out_size, in_size), np.float32)
    for o in range(out_size):
        lo = np.float32(o * scale)
        hi = np.float32((o + 1) * scale)
        for i in range(math.floor(lo), math.ceil(hi)):
            if i < lo:
                part = scale if i + 1 > hi else np.float32(i + 1 - lo)
            else:
                part = np.float32(hi - i) if i + 1 > hi else np.float32(1.0)
            w[o, min(in_size - 1, max(0, i))] += part
    return w


def _apply(wy: np.ndarray, wx: np.ndarray, images: np.ndarray) -> np.ndarray:
    x = images.astype(np.float32, copy=False)
    return np.einsum("yi,bijc,xj->byxc", wy, x, wx, optimize=True).astype(np.float32)


def _separable_kernel(weights, has_half_pixel: bool = True, extra_scale: bool = False):
    def factory(ctx: KernelContext):
        align = bool(ctx.attr("align_corners"))
        half = bool(ctx.attr("half_pixel_centers")) if has_half_pixel else False

        def compute(images, size):
            images = np.asarray(images)
            out_h, out_w = _check_images(images, size, align, half)
            in_h, in_w = images.shape[1], images.shape[2]
            if has_half_pixel:
                wy = weights(in_h, out_h, align, half)
                wx = weights(in_w, out_w, align, half)
            else:
                wy, wx = weights(in_h, out_h, align), weights(in_w, out_w, align)
            out = _apply(wy, wx, images)
            if extra_scale:
                out = out * (np.float32(1.0) / (resize_scale(in_h, out_h, align) *
                                                resize_scale(in_w, out_w, align)))
            return (out.astype(np.float32),)

        return compute

    return factory


register_kernel("ResizeBilinear")(_separable_kernel(bilinear_weights))
register_kernel("ResizeBicubic")(_separable_kernel(bicubic_weights))
register_kernel("ResizeArea")(_separable_kernel(area_weights, has_half_pixel=False,
                                                extra_scale=True))


@register_kernel("ResizeNearestNeighbor")
def _resize_nearest(ctx: KernelContext):
    align = bool(ctx.attr("align_corners"))
    half = bool(ctx.attr("half_pixel_centers"))

    def compute(images, size):
        images = np.asarray(images)
        out_h, out_w = _check_images(images, size, align, half)
        iy = nearest_indices(images.shape[1], out_h, align, half)
        ix = nearest_indices(images.shape[2], out_w, align, half)
        return (np.ascontiguousarray(images[:, iy][:, :, ix]),)

    return compute


def _grad_kernel(weights):
    def factory(ctx: KernelContext):
        align = bool(ctx.attr("align_corners"))
        half = bool(ctx.attr("half_pixel_centers"))
        out_dtype = np.dtype(ctx.output_types[0].as_numpy_dtype)

        def compute(grads, original_image):
            grads = np.asarray(grads, np.float32)
            original = np.asarray(original_image)
            if grads.ndim != 4:
                raise _invalid(f"input_grad must be 4-dimensional{list(grads.shape)}")
            if original.ndim != 4:
                raise _invalid(f"original_image must be 4-dimensional"
                               f"{list(original.shape)}")
            if half and align:
                raise _invalid("If half_pixel_centers is True, align_corners must be False.")
            in_h, in_w = original.shape[1], original.shape[2]
            wy = weights(in_h, grads.shape[1], align, half)
            wx = weights(in_w, grads.shape[2], align, half)
            out = np.einsum("yi,byxc,xj->bijc", wy, grads, wx, optimize=True)
            return (out.astype(out_dtype),)

        return compute

    return factory


register_kernel("ResizeBilinearGrad")(_grad_kernel(bilinear_weights))
register_kernel("ResizeBicubicGrad")(_grad_kernel(bicubic_weights))


@register_kernel("ResizeNearestNeighborGrad")
def _resize_nearest_grad(ctx: KernelContext):
    align = bool(ctx.attr("align_corners"))
    half = bool(ctx.attr("half_pixel_centers"))

    def compute(grads, size):
        grads = np.asarray(grads)
        if grads.ndim != 4:
            raise _invalid(f"input must be 4-dimensional{list(grads.shape)}")
        size = np.asarray(size)
        if size.shape != (2,):
            raise _invalid(f"shape_t must be 1-dimensional and have two elements"
                           f"{list(size.shape)}")
        out_h, out_w = int(size[0]), int(size[1])
        iy = nearest_indices(out_h, grads.shape[1], align, half)
        ix = nearest_indices(out_w, grads.shape[2], align, half)
        out = np.zeros((grads.shape[0], out_h, out_w, grads.shape[3]), grads.dtype)
        rows = np.zeros((grads.shape[0], out_h, grads.shape[2], grads.shape[3]), grads.dtype)
        np.add.at(rows, (slice(None), iy), grads)
        np.add.at(out, (slice(None), slice(None), ix), rows)
        return (out,)

    return compute
