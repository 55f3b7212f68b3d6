"""The sliding-window geometry shared by the conv and pool kernels: output sizes and
paddings of N spatial dimensions (TF's GetWindowedOutputSize), the padded input, the input
slices each window tap reads, and the attrs (layout, strides, dilations, ksize, padding)
read from a NodeDef."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext


def invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def shape_text(shape: tuple) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def out_dtype(ctx: KernelContext, index: int = 0) -> np.dtype:
    return np.dtype(ctx.output_types[index].base_dtype.as_numpy_dtype)


def work_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype to compute in: half-precision types widen to float32."""
    dtype = np.dtype(dtype)
    if (dtype.kind == "f" and dtype.itemsize >= 4) or dtype.kind in "iu":
        return dtype
    return np.dtype(np.float32)


def lowest(dtype: np.dtype) -> object:
    dtype = np.dtype(dtype)
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def int_tuple(value: object) -> tuple:
    return tuple(int(v) for v in np.asarray(value).reshape(-1))


def _cdiv(a: int, b: int) -> int:
    return a // b if a >= 0 else -(-a // b)


class Window:
    """Geometry of one conv / pool over N spatial dims of a channels-last input: sizes,
    window sizes, strides, dilations, (before, after) paddings and output sizes."""

    def __init__(self, in_sizes: tuple, k_sizes: tuple, strides: tuple, dilations: tuple,
                 padding: str, explicit: tuple = ()):
        self.in_sizes, self.k = tuple(in_sizes), tuple(k_sizes)
        self.strides, self.dilations = tuple(strides), tuple(dilations)
        if min(self.strides) <= 0:
            raise invalid(f"Stride must be > 0, but got {min(self.strides)}")
        self.out, self.pads = [], []
        for d, (size, k, s, r) in enumerate(zip(self.in_sizes, self.k, self.strides,
                                                self.dilations)):
            eff = (k - 1) * r + 1
            if padding == "VALID":
                out, pad = _cdiv(size - eff + s, s), (0, 0)
            elif padding == "SAME":
                out = (size + s - 1) // s
                needed = max(0, (out - 1) * s + eff - size)
                pad = (needed // 2, needed - needed // 2)
            else:
                pad = (int(explicit[2 * d]), int(explicit[2 * d + 1]))
                out = _cdiv(size + pad[0] + pad[1] - eff + s, s)
            if out < 0:
                raise invalid(f"Computed output size would be negative: {out} [input_size: "
                              f"{size}, effective_filter_size: {eff}, stride: {s}]")
            self.out.append(out)
            self.pads.append(pad)
        self.out = tuple(self.out)

    @property
    def taps(self) -> int:
        return math.prod(self.k)

    def pad_widths(self) -> list[tuple[int, int]]:
        """(before, after) of every spatial dim of the padded input (extra cells at the end
        as the last window needs)."""
        widths = []
        for size, k, s, r, o, (before, after) in zip(self.in_sizes, self.k, self.strides,
                                                      self.dilations, self.out, self.pads):
            need = max(0, (o - 1) * s + (k - 1) * r + 1)
            widths.append((before, max(after, need - before - size, 0)))
        return widths

    def padded(self, x: np.ndarray, fill: float = 0) -> np.ndarray:
        """``x`` [N, *spatial, C] padded to cover every window: ``x`` itself when no
        padding is needed (callers that write to the result pass a fresh array)."""
        widths = self.pad_widths()
        if not any(b or a for b, a in widths):
            return x
        shape = (x.shape[0],) + tuple(size + b + a for size, (b, a) in
                                      zip(x.shape[1:-1], widths)) + (x.shape[-1],)
        xp = np.empty(shape, dtype=x.dtype)
        inner = (slice(None),) + tuple(slice(b, b + size) for size, (b, _) in
                                       zip(x.shape[1:-1], widths)) + (slice(None),)
        # Only the border is filled: the inside is overwritten by x.
        for d, (b, a) in enumerate(widths):
            lead = (slice(None),) * (d + 1)
            if b:
                xp[lead + (slice(0, b),)] = fill
            if a:
                xp[lead + (slice(shape[d + 1] - a, None),)] = fill
        xp[inner] = x
        return xp

    def patches(self, xp: np.ndarray) -> np.ndarray:
        """A read-only strided view [N, *out, *k, C] of the padded input ``xp``: element
        ``[n, *o, *t, c]`` is the input that window tap ``t`` of output ``o`` reads (no
        copy: im2col is one copy of this view)."""
        nd = len(self.k)
        st = xp.strides
        shape = (xp.shape[0],) + self.out + self.k + (xp.shape[-1],)
        strides = ((st[0],) + tuple(st[1 + d] * self.strides[d] for d in range(nd))
                   + tuple(st[1 + d] * self.dilations[d] for d in range(nd)) + (st[-1],))
        return np.lib.stride_tricks.as_strided(xp, shape, strides, writeable=False)

    def tap_slices(self) -> Iterator[tuple[tuple, tuple]]:
        """(tap, index) of each window tap in row-major order: ``padded[index]`` is the
        [N, *out, C] block of the inputs that tap reads for every output position."""
        for tap in itertools.product(*(range(k) for k in self.k)):
            index = tuple(slice(t * r, t * r + (o - 1) * s + 1, s)
                          for t, r, o, s in zip(tap, self.dilations, self.out, self.strides))
            yield tap, (slice(None),) + index + (slice(None),)

    def crop(self, xp: np.ndarray) -> np.ndarray:
        index = tuple(slice(before, before + size)
                      for (before, _), size in zip(self.pads, self.in_sizes))
        return xp[(slice(None),) + index + (slice(None),)]

    def counts(self) -> np.ndarray:
        """[1, *out, 1]: how many real (unpadded) inputs each window covers."""
        ones = self.padded(np.ones((1,) + self.in_sizes + (1,), dtype=np.float64))
        count = np.zeros((1,) + self.out + (1,))
        for _, index in self.tap_slices():
            count += ones[index]
        return count


def to_channels_last(x: np.ndarray, channels_first: bool) -> np.ndarray:
    return np.moveaxis(x, 1, -1) if channels_first else x


def from_channels_last(x: np.ndarray, channels_first: bool) -> np.ndarray:
    return np.moveaxis(x, -1, 1) if channels_first else x


def channels_last_shape(shape: tuple, channels_first: bool) -> tuple:
    shape = tuple(shape)
    return (shape[0],) + shape[2:] + (shape[1],) if channels_first else shape


class WindowAttrs:
    """A conv / pool NodeDef's window attrs, reduced to its ``nd`` spatial dims."""

    def __init__(self, ctx: KernelContext, nd: int, *, strides: tuple | None = None,
                 ksize: tuple | None = None, dilation_attr: str = "dilations",
                 channels_first: bool | None = None):
        attr = ctx.node_def.attr
        self.nd = nd
        self.channels_first = channels_first if channels_first is not None else (
            "data_format" in attr and attr["data_format"].s.startswith(b"NC"))
        c_i = 1 if self.channels_first else nd + 1
        self.spatial = tuple(range(2, nd + 2)) if self.channels_first else \
            tuple(range(1, nd + 1))
        if strides is None:
            strides = tuple(attr["strides"].list.i)
        if len(strides) != nd + 2:
            raise invalid(f"Sliding window strides field must specify {nd + 2} dimensions")
        dilations = tuple(attr[dilation_attr].list.i) if dilation_attr in attr else ()
        if not dilations:  # absent, or the generic Conv op's default []
            dilations = (1,) * (nd + 2)
        if len(dilations) != nd + 2:
            raise invalid(f"Sliding window dilations field must specify {nd + 2} "
                          "dimensions")
        self.batch_channel_strides = (strides[0], strides[c_i])
        self.batch_channel_dilations = (dilations[0], dilations[c_i])
        self.strides = tuple(strides[i] for i in self.spatial)
        self.dilations = tuple(dilations[i] for i in self.spatial)
        self.ksize = None
        if ksize is not None or "ksize" in attr:
            ksize = tuple(attr["ksize"].list.i) if ksize is None else tuple(ksize)
            if len(ksize) != nd + 2:
                raise invalid(f"Sliding window ksize field must specify {nd + 2} dimensions")
            self.batch_channel_ksize = (ksize[0], ksize[c_i])
            self.ksize = tuple(ksize[i] for i in self.spatial)
        self.padding = attr["padding"].s.decode()
        explicit = list(attr["explicit_paddings"].list.i) if "explicit_paddings" in attr \
            else []
        self.explicit = tuple(v for i in self.spatial for v in explicit[2 * i:2 * i + 2])

    def check_conv(self) -> None:
        """TF's conv checks: no stride or dilation in the batch and depth dimensions."""
        if self.batch_channel_strides != (1, 1):
            raise invalid("Current implementation does not yet support strides in the batch "
                          "and depth dimensions.")
        if min(self.dilations + self.batch_channel_dilations) < 1:
            raise invalid("Dilated rates should be larger than 0.")
        if self.batch_channel_dilations != (1, 1):
            raise invalid("Current implementation does not yet support dilations in the "
                          "batch and depth dimensions.")

    def window(self, x_shape: tuple, k_sizes: tuple | None = None) -> Window:
        """The geometry over channels-last ``x_shape`` with window ``k_sizes`` (the pool's
        ksize when None)."""
        return Window(tuple(x_shape[1:-1]), self.ksize if k_sizes is None else k_sizes,
                      self.strides, self.dilations, self.padding, self.explicit)
