"""CPU kernels of the random ops.

Each node draws from one numpy Generator seeded from its ``(seed, seed2)`` attrs
(``(0, 0)``: fresh OS entropy).  Like TF's stateful kernels, the generator belongs to
the session's resources (one per node name), so every run in a session advances the
same stream, and a new session with the same seeds replays it.  The numbers are not
TF's Philox stream; the distributions are the same.
"""

from __future__ import annotations

import threading

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel

_lock = threading.Lock()


class _Stream:
    """A Generator and the lock that serialises draws from it."""

    __slots__ = ("rng", "lock")

    def __init__(self, seed: int, seed2: int):
        if seed == 0 and seed2 == 0:
            self.rng = np.random.default_rng()
        else:
            self.rng = np.random.default_rng([seed, seed2])
        self.lock = threading.Lock()


def stream_of(ctx: KernelContext) -> _Stream:
    attr = ctx.node_def.attr
    seed, seed2 = int(attr["seed"].i), int(attr["seed2"].i)
    resources = ctx.resources
    if resources is None:
        return _Stream(seed, seed2)
    with _lock:
        table = getattr(resources, "_random_streams", None)
        if table is None:
            table = {}
            resources._random_streams = table
        key = (ctx.name, seed, seed2)
        stream = table.get(key)
        if stream is None:
            stream = table[key] = _Stream(seed, seed2)
    return stream


def shape_of(shape: object) -> tuple[int, ...]:
    arr = np.asarray(shape)
    if arr.ndim != 1:
        raise errors.InvalidArgumentError(
            None, None, f"shape must be a vector of {{int32,int64}}, got shape "
                        f"[{','.join(str(d) for d in arr.shape)}]")
    dims = tuple(int(d) for d in arr)
    for d in dims:
        if d < 0:
            raise errors.InvalidArgumentError(None, None, f"Dimension {d} must be >= 0")
    return dims


# Mantissa bits of the half-precision types: their uniform values are k / 2**bits, like
# TF's, so rounding to the narrow type can never reach 1.0.
_MANTISSA_BITS = {"float16": 10, "bfloat16": 7}


def _float_kernel(draw):
    def factory(ctx: KernelContext):
        stream = stream_of(ctx)
        dtype = ctx.attr("dtype")
        out_dtype = dtype.as_numpy_dtype
        gen_dtype = np.float64 if dtype.name == "float64" else np.float32
        bits = _MANTISSA_BITS.get(dtype.name) if draw is _uniform else None

        def compute(shape):
            dims = shape_of(shape)
            with stream.lock:
                if bits is not None:
                    values = stream.rng.integers(0, 2**bits, size=dims) / 2.0**bits
                else:
                    values = draw(stream.rng, dims, gen_dtype)
            return (np.asarray(values).astype(out_dtype, copy=False),)

        return compute

    return factory


def _uniform(rng: np.random.Generator, dims: tuple, dtype: type) -> np.ndarray:
    values = rng.random(dims, dtype=dtype)
    return values


def _normal(rng: np.random.Generator, dims: tuple, dtype: type) -> np.ndarray:
    return rng.standard_normal(dims, dtype=dtype)


def _truncated(rng: np.random.Generator, dims: tuple, dtype: type) -> np.ndarray:
    values = rng.standard_normal(dims, dtype=dtype)
    bad = np.abs(values) > 2.0
    while bad.any():
        values[bad] = rng.standard_normal(int(bad.sum()), dtype=dtype)
        bad = np.abs(values) > 2.0
    return values


register_kernel("RandomUniform")(_float_kernel(_uniform))
register_kernel("RandomStandardNormal")(_float_kernel(_normal))
register_kernel("TruncatedNormal")(_float_kernel(_truncated))


@register_kernel("RandomUniformInt")
def _uniform_int(ctx: KernelContext):
    stream = stream_of(ctx)
    out_dtype = ctx.attr("Tout").as_numpy_dtype

    def compute(shape, minval, maxval):
        dims = shape_of(shape)
        for value, what in ((minval, "minval"), (maxval, "maxval")):
            if np.ndim(value) != 0:
                raise errors.InvalidArgumentError(
                    None, None, f"{what} must be 0-D, got shape "
                                f"[{','.join(str(d) for d in np.shape(value))}]")
        lo, hi = int(minval), int(maxval)
        size = int(np.prod(dims)) if dims else 1
        if size and lo >= hi:
            raise errors.InvalidArgumentError(None, None, f"Need minval < maxval: {lo} >= {hi}")
        if not size:
            return (np.zeros(dims, dtype=out_dtype),)
        with stream.lock:
            values = stream.rng.integers(lo, hi, size=dims, dtype=out_dtype)
        return (np.asarray(values, dtype=out_dtype),)

    return compute


@register_kernel("RandomShuffle")
def _shuffle(ctx: KernelContext):
    stream = stream_of(ctx)

    def compute(value):
        arr = np.asarray(value)
        if arr.ndim == 0 or arr.shape[0] <= 1:
            return (arr,)
        with stream.lock:
            perm = stream.rng.permutation(arr.shape[0])
        return (arr[perm],)

    return compute
