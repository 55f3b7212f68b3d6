"""CPU kernels of :mod:`graphcore.ops.manip_ops`, with TF's checks."""

from __future__ import annotations

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _shape_text(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


@register_kernel("BroadcastTo")
def _broadcast_to(ctx: KernelContext):
    del ctx

    def compute(x, shape):
        target = tuple(int(d) for d in np.asarray(shape).reshape(-1))
        try:
            return (np.ascontiguousarray(np.broadcast_to(x, target)),)
        except ValueError:
            raise _invalid(f"Incompatible shapes: {_shape_text(np.shape(x))} vs. "
                           f"{_shape_text(target)}") from None

    return compute


@register_kernel("BroadcastArgs")
def _broadcast_args(ctx: KernelContext):
    out = ctx.output_types[0].as_numpy_dtype

    def compute(s0, s1):
        a, b = (tuple(int(d) for d in np.asarray(s).reshape(-1)) for s in (s0, s1))
        try:
            return (np.asarray(np.broadcast_shapes(a, b), dtype=out),)
        except ValueError:
            raise _invalid(f"Incompatible shapes: {_shape_text(a)} vs. {_shape_text(b)}"
                           ) from None

    return compute


@register_kernel("LinSpace")
def _lin_space(ctx: KernelContext):
    out = ctx.output_types[0].as_numpy_dtype

    def compute(start, stop, num):
        n = int(num)
        if n <= 0:
            raise _invalid(f"Requires num > 0: {n}")
        return (np.linspace(start, stop, n).astype(out),)

    return compute


@register_kernel("Roll")
def _roll(ctx: KernelContext):
    del ctx

    def compute(x, shift, axis):
        x = np.asarray(x)
        shifts, axes = np.asarray(shift).reshape(-1), np.asarray(axis).reshape(-1)
        if shifts.size != axes.size:
            raise _invalid(f"shift and axis must have the same size: {shifts.size} vs "
                           f"{axes.size}")
        for a in axes:
            if not -x.ndim <= a < x.ndim:
                raise _invalid(f"axis {a} is out of range")
        return (np.roll(x, tuple(int(s) for s in shifts), tuple(int(a) for a in axes)),)

    return compute


@register_kernel("ReverseSequence")
def _reverse_sequence(ctx: KernelContext):
    seq_dim = ctx.attr("seq_dim")
    batch_dim = ctx.attr("batch_dim")

    def compute(x, seq_lengths):
        x = np.asarray(x)
        lengths = np.asarray(seq_lengths).reshape(-1)
        if lengths.size != x.shape[batch_dim]:
            raise _invalid(f"Length of seq_lengths != input.dims({batch_dim}), "
                           f"({lengths.size} vs. {x.shape[batch_dim]})")
        if np.any(lengths > x.shape[seq_dim]):
            raise _invalid(f"seq_lens[{int(np.argmax(lengths > x.shape[seq_dim]))}] > "
                           f"input.dims({seq_dim})")
        out = x.copy()
        for b, n in enumerate(lengths):
            index = [slice(None)] * x.ndim
            index[batch_dim] = b
            index[seq_dim] = slice(0, int(n))
            out[tuple(index)] = np.flip(x[tuple(index)], axis=seq_dim - (batch_dim < seq_dim))
        return (out,)

    return compute


@register_kernel("UnravelIndex")
def _unravel_index(ctx: KernelContext):
    del ctx

    def compute(indices, dims):
        dims = tuple(int(d) for d in np.asarray(dims).reshape(-1))
        idx = np.asarray(indices)
        size = int(np.prod(dims))
        if np.any((idx < 0) | (idx >= size)):
            raise _invalid(f"index out of bounds for array of size {size}")
        return (np.asarray(np.unravel_index(idx, dims), dtype=idx.dtype),)

    return compute


@register_kernel("EnsureShape")
def _ensure_shape(ctx: KernelContext):
    shape = ctx.node_def.attr["shape"].shape
    want = None if shape.unknown_rank else [d.size for d in shape.dim]

    def compute(x):
        got = np.shape(x)
        if want is not None and (len(got) != len(want) or
                                 any(w >= 0 and w != g for w, g in zip(want, got))):
            text = "[" + ",".join("?" if w < 0 else str(w) for w in want) + "]"
            raise _invalid(f"Shape of tensor {ctx.node_def.input[0]} {_shape_text(got)} is not "
                           f"compatible with expected shape {text}.")
        return (x,)

    return compute


@register_kernel("GuaranteeConst")
def _guarantee_const(ctx: KernelContext):
    del ctx
    return lambda x: (x,)


def _unique(with_counts: bool):
    def factory(ctx: KernelContext):
        out_idx = ctx.attr("out_idx").as_numpy_dtype

        def compute(x):
            x = np.asarray(x)
            if x.ndim != 1:
                raise _invalid("unique expects a 1D vector.")
            values, first, inverse, counts = np.unique(x, return_index=True,
                                                       return_inverse=True,
                                                       return_counts=True)
            order = np.argsort(first, kind="stable")  # first appearance, as TF's
            rank = np.empty_like(order)
            rank[order] = np.arange(order.size)
            out = (values[order], rank[inverse.reshape(-1)].astype(out_idx))
            return out + ((counts[order].astype(out_idx),) if with_counts else ())

        return compute

    return factory


register_kernel("Unique")(_unique(False))
register_kernel("UniqueWithCounts")(_unique(True))


@register_kernel("ListDiff")
def _list_diff(ctx: KernelContext):
    out_idx = ctx.attr("out_idx").as_numpy_dtype

    def compute(x, y):
        x, y = np.asarray(x), np.asarray(y)
        if x.ndim != 1 or y.ndim != 1:
            raise _invalid("x should be a 1D vector.")
        keep = ~np.isin(x, y)
        return (x[keep], np.nonzero(keep)[0].astype(out_idx))

    return compute


def _bound(side: str):
    def factory(ctx: KernelContext):
        out_type = ctx.attr("out_type").as_numpy_dtype

        def compute(sorted_inputs, values):
            seq, vals = np.asarray(sorted_inputs), np.asarray(values)
            if seq.shape[0] != vals.shape[0]:
                raise _invalid("Leading dim_size of both tensors must match.")
            out = np.stack([np.searchsorted(s, v, side=side) for s, v in zip(seq, vals)]) \
                if seq.shape[0] else np.zeros(vals.shape, np.int64)
            return (out.astype(out_type),)

        return compute

    return factory


register_kernel("LowerBound")(_bound("left"))
register_kernel("UpperBound")(_bound("right"))


@register_kernel("Bucketize")
def _bucketize(ctx: KernelContext):
    boundaries = np.asarray(ctx.attr("boundaries"), np.float32)
    if np.any(boundaries[1:] < boundaries[:-1]):
        raise _invalid("Expected sorted boundaries")

    def compute(x):
        x = np.asarray(x)
        # TF compares in float (integers are converted), or in double for double input.
        if x.dtype == np.float64:
            out = np.searchsorted(boundaries.astype(np.float64), x, side="right")
        else:
            out = np.searchsorted(boundaries, x.astype(np.float32), side="right")
        return (out.astype(np.int32).reshape(x.shape),)

    return compute


@register_kernel("Bincount")
def _bincount(ctx: KernelContext):
    out = ctx.output_types[0].as_numpy_dtype

    def compute(arr, size, weights):
        arr = np.asarray(arr).reshape(-1)
        n = int(size)
        if n < 0:
            raise _invalid(f"size ({n}) must be non-negative")
        if arr.size and arr.min() < 0:
            raise _invalid("Input arr must be non-negative!")
        w = np.asarray(weights).reshape(-1)
        keep = arr < n
        counts = np.bincount(arr[keep], weights=w[keep] if w.size else None, minlength=n)
        return (counts[:n].astype(out),)

    return compute


@register_kernel("HistogramFixedWidth")
def _histogram_fixed_width(ctx: KernelContext):
    out = ctx.attr("dtype").as_numpy_dtype

    def compute(values, value_range, nbins):
        n = int(nbins)
        if n <= 0:
            raise _invalid(f"nbins should be a positive number, but got '{n}'")
        lo, hi = (float(v) for v in np.asarray(value_range).reshape(-1))
        if lo >= hi:
            raise _invalid(f"value_range should satisfy value_range[0] < value_range[1], "
                           f"but got '[{lo}, {hi}]'")
        v = np.asarray(values, dtype=np.float64).reshape(-1)
        index = np.clip(np.floor((v - lo) / (hi - lo) * n), 0, n - 1).astype(np.int64)
        return (np.bincount(index, minlength=n).astype(out),)

    return compute


@register_kernel("Bitcast")
def _bitcast(ctx: KernelContext):
    out = np.dtype(ctx.attr("type").as_numpy_dtype)

    def compute(x):
        x = np.ascontiguousarray(x)
        src = x.dtype.itemsize
        if src == out.itemsize:
            return (x.view(out),)
        if src > out.itemsize:
            return (x.view(out).reshape(x.shape + (src // out.itemsize,)),)
        if not x.shape or x.shape[-1] != out.itemsize // src:
            raise _invalid(f"Cannot bitcast from {x.dtype} to {out}: shape "
                           f"{_shape_text(x.shape)}")
        return (x.view(out).reshape(x.shape[:-1]),)

    return compute
