"""CPU kernels of the colour ops (TF's colorspace_op and adjust_*_op): RGBToHSV,
HSVToRGB, AdjustContrastv2, AdjustHue, AdjustSaturation; float32 arithmetic as TF's."""

from __future__ import annotations

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel

_F = np.float32


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _rgb_input(images: np.ndarray, min_rank: int = 1) -> np.ndarray:
    if images.ndim < min_rank:
        raise _invalid(f"input must be at least {min_rank}-D, got shape{list(images.shape)}")
    if images.shape[-1] != 3:
        raise _invalid(f"input must have 3 channels but input only has {images.shape[-1]} "
                       "channels.")
    return images


def rgb_to_hsv(rgb: np.ndarray) -> np.ndarray:
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    v = np.maximum(np.maximum(r, g), b)
    rng = v - np.minimum(np.minimum(r, g), b)
    s = np.where(v > 0, rng / np.where(v > 0, v, 1), 0).astype(rgb.dtype)
    norm = (1 / (6 * rng)).astype(rgb.dtype)
    h = np.where(r == v, norm * (g - b),
                 np.where(g == v, norm * (b - r) + rgb.dtype.type(2.0 / 6.0),
                          norm * (r - g) + rgb.dtype.type(4.0 / 6.0)))
    h = np.where(rng > 0, h, 0)
    h = np.where(h < 0, h + 1, h)
    return np.stack([h, s, v], axis=-1).astype(rgb.dtype)


def hsv_to_rgb(hsv: np.ndarray) -> np.ndarray:
    h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    dh = h * 6
    dr = np.clip(np.abs(dh - 3) - 1, 0, 1)
    dg = np.clip(-np.abs(dh - 2) + 2, 0, 1)
    db = np.clip(-np.abs(dh - 4) + 2, 0, 1)
    one_minus_s = 1 - s
    return np.stack([(one_minus_s + s * dr) * v, (one_minus_s + s * dg) * v,
                     (one_minus_s + s * db) * v], axis=-1).astype(hsv.dtype)


def _colorspace(fn):
    def factory(ctx: KernelContext):
        def compute(images):
            images = _rgb_input(np.asarray(images))
            work = images.astype(np.float32) if images.dtype.itemsize < 4 else images
            return (fn(work).astype(images.dtype),)
        return compute
    return factory


register_kernel("RGBToHSV")(_colorspace(rgb_to_hsv))
register_kernel("HSVToRGB")(_colorspace(hsv_to_rgb))


def _scalar(value, what: str) -> np.float32:
    value = np.asarray(value)
    if value.ndim != 0:
        raise _invalid(f"{what} must be scalar: {list(value.shape)}")
    return _F(value)


@register_kernel("AdjustContrastv2")
def _adjust_contrast(ctx: KernelContext):
    def compute(images, contrast_factor):
        images = np.asarray(images)
        if images.ndim < 3:
            raise _invalid(f"input must be at least 3-D, got shape{list(images.shape)}")
        factor = _scalar(contrast_factor, "contrast_factor")
        x = images.astype(_F)
        mean = (np.sum(x, axis=(-3, -2), keepdims=True, dtype=_F) /
                _F(images.shape[-3] * images.shape[-2]))
        return (((x - mean) * factor + mean).astype(images.dtype),)
    return compute


def _hv_range(r, g, b):
    """TF's rgb_to_hv_range: hue in [0, 6) from the sorted channels, with v_min, v_max."""
    r_lt_g = r < g
    cat = np.where(r_lt_g, np.where(b < r, 1, np.where(b > g, 3, 2)),
                   np.where(b < g, 0, np.where(b > r, 4, 5)))
    v_max = np.choose(cat, [r, g, g, b, b, r])
    v_mid = np.choose(cat, [g, r, b, g, r, b])
    v_min = np.choose(cat, [b, b, r, r, g, g])
    span = v_max - v_min
    ratio = (v_mid - v_min) / np.where(span == 0, 1, span)
    h = cat + np.where(cat % 2 == 0, ratio, 1 - ratio)
    return np.where(span == 0, 0, h).astype(_F), v_min, v_max


def _hv_range_to_rgb(h, v_min, v_max):
    cat = h.astype(np.int64)
    ratio = h - cat
    ratio = np.where(cat % 2 == 0, ratio, 1 - ratio)
    v_mid = v_min + ratio * (v_max - v_min)
    cat = np.minimum(cat, 5)
    r = np.choose(cat, [v_max, v_mid, v_min, v_min, v_mid, v_max])
    g = np.choose(cat, [v_mid, v_max, v_max, v_mid, v_min, v_min])
    b = np.choose(cat, [v_min, v_min, v_mid, v_max, v_max, v_mid])
    return np.stack([r, g, b], axis=-1)


@register_kernel("AdjustHue")
def _adjust_hue(ctx: KernelContext):
    def compute(images, delta):
        images = _rgb_input(np.asarray(images), 3)
        delta = _scalar(delta, "delta")
        x = images.astype(_F)
        h, v_min, v_max = _hv_range(x[..., 0], x[..., 1], x[..., 2])
        h = (h + delta * _F(6)).astype(_F)
        h = np.mod(h, _F(6)).astype(_F)
        h = np.where(h >= 6, h - 6, h)
        return (_hv_range_to_rgb(h, v_min, v_max).astype(images.dtype),)
    return compute


def _hsv_to_rgb_saturation(h, s, v):
    """TF's adjust_saturation helper hsv_to_rgb (chroma and hue categories)."""
    c = s * v
    m = v - c
    dh = h * 6
    cat = dh.astype(np.int64)
    fmodu = np.mod(dh, _F(2))
    x = c * (1 - np.abs(fmodu - 1))
    zero = np.zeros_like(c)
    valid = (cat >= 0) & (cat <= 5)
    idx = np.where(valid, cat, 6)
    rr = np.choose(idx, [c, x, zero, zero, x, c, zero])
    gg = np.choose(idx, [x, c, c, x, zero, zero, zero])
    bb = np.choose(idx, [zero, zero, x, c, c, x, zero])
    return np.stack([rr + m, gg + m, bb + m], axis=-1)


@register_kernel("AdjustSaturation")
def _adjust_saturation(ctx: KernelContext):
    def compute(images, scale):
        images = _rgb_input(np.asarray(images), 3)
        scale = _scalar(scale, "scale")
        hsv = rgb_to_hsv(images.astype(_F))
        s = np.minimum(_F(1), np.maximum(_F(0), hsv[..., 1] * scale))
        return (_hsv_to_rgb_saturation(hsv[..., 0], s, hsv[..., 2]).astype(images.dtype),)
    return compute
