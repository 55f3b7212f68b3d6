"""CPU kernels of the random ops.

Each node owns a stream seeded from its ``(seed, seed2)`` attrs (``(0, 0)``: fresh OS
entropy).  Like TF's stateful kernels, the stream belongs to the session's resources (one
per node name), so every run in a session advances it, and a new session with the same
seeds replays it.  RandomUniform, RandomStandardNormal, TruncatedNormal, RandomUniformInt
and RandomShuffle draw TF's Philox stream (:mod:`graphcore.kernels.philox`, advanced as
TF's ``GuardedPhiloxRandom``: each run reserves 256 samples per output value), so they
give TF's CPU numbers.  The other kernels that use ``stream.rng`` (a numpy Generator with
the same seeds) draw numpy's numbers, not TF's.
"""

from __future__ import annotations

import threading

import numpy as np

from graphcore.framework import errors
from graphcore.kernels import philox
from graphcore.kernels.registry import KernelContext, register_kernel

_lock = threading.Lock()


class _Stream:
    """TF's Philox state, a numpy Generator (for the kernels that do not draw TF's
    stream) and the lock that serialises draws from them."""

    __slots__ = ("_rng", "_seeds", "philox", "lock")

    def __init__(self, seed: int, seed2: int):
        self._seeds = (seed, seed2)
        self._rng = None
        self.philox = philox.Philox.guarded(seed, seed2)
        self.lock = threading.Lock()

    @property
    def rng(self) -> np.random.Generator:
        if self._rng is None:
            seed, seed2 = self._seeds
            self._rng = (np.random.default_rng() if seed == 0 and seed2 == 0
                         else np.random.default_rng([seed, seed2]))
        return self._rng

    def reserve(self, count: int) -> philox.Philox:
        """TF's ``ReserveRandomOutputs(count, 256)``: the state for this run."""
        with self.lock:
            return self.philox.reserve(count * philox.RESERVED_SAMPLES_PER_OUTPUT)


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


def _float_kernel(draw):
    def factory(ctx: KernelContext):
        stream = stream_of(ctx)
        dtype = ctx.attr("dtype").as_numpy_dtype

        def compute(shape):
            dims = shape_of(shape)
            size = int(np.prod(dims, dtype=np.int64)) if dims else 1
            gen = stream.reserve(size)
            return (draw(gen, size, dtype).reshape(dims),)

        return compute

    return factory


register_kernel("RandomUniform")(_float_kernel(philox.uniform))
register_kernel("RandomStandardNormal")(_float_kernel(philox.normal))
register_kernel("TruncatedNormal")(_float_kernel(philox.truncated_normal))


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
        gen = stream.reserve(size)
        if not size:
            return (np.zeros(dims, dtype=out_dtype),)
        return (philox.uniform_int(gen, size, out_dtype, lo, hi).reshape(dims),)

    return compute


@register_kernel("RandomShuffle")
def _shuffle(ctx: KernelContext):
    """TF's shuffle of the first dimension: ``ReserveSamples32(n - 1)``, one uint32 ``u``
    per step of a forward Fisher-Yates (``i <-> i + u % (n - i)``)."""
    stream = stream_of(ctx)

    def compute(value):
        arr = np.asarray(value)
        if arr.ndim == 0 or arr.size <= 1 or arr.shape[0] <= 1:
            return (arr,)
        n = arr.shape[0]
        with stream.lock:
            gen = stream.philox.reserve((n - 1 + 3) // 4)
        bits = gen.blocks(np.arange((n - 1 + 3) // 4, dtype=np.uint64)).reshape(-1)[:n - 1]
        bits = bits.astype(np.int64).tolist()
        perm = list(range(n))
        for i, u in enumerate(bits):
            j = i + u % (n - i)
            perm[i], perm[j] = perm[j], perm[i]
        return (arr[np.asarray(perm)],)

    return compute
