"""TF's Philox4x32-10 counter-based generator and its distributions, vectorized in numpy.

The same numbers as TF's CPU kernels (core/lib/random/philox_random.h,
random_distributions.h, core/kernels/random_op_cpu.h): a generator is a 64-bit key and a
128-bit counter; one call gives 4 uint32 for the counter and then increments it.  A
fixed-size distribution fills output group ``g`` (``kResultElementCount`` values) from the
generator skipped by ``g``; a variable-sample one (truncated normal) from the generator
skipped by ``g * kGeneratorSkipPerOutputGroup``, drawing one uint32 at a time.

Products 32x32->64 are done in uint64, so every array op stays vectorized over groups.
"""

from __future__ import annotations

import os

import numpy as np

from graphcore.kernels import intra_op

_M32 = 0xFFFFFFFF
_M128 = (1 << 128) - 1
_MA = np.uint64(0xD2511F53)
_MB = np.uint64(0xCD9E8D57)
_WA = 0x9E3779B9
_WB = 0xBB67AE85
_SH = np.uint64(32)
_LO = np.uint64(_M32)
# Samples a variable-sample distribution reserves per output value (random_op_cpu.h).
RESERVED_SAMPLES_PER_OUTPUT = 256


class Philox:
    """A Philox key and 128-bit counter (``counter`` is a Python int, lane 0 lowest)."""

    __slots__ = ("key", "counter")

    def __init__(self, key: tuple[int, int], counter: int):
        self.key = (key[0] & _M32, key[1] & _M32)
        self.counter = counter & _M128

    @classmethod
    def from_seeds(cls, seed_lo: int, seed_hi: int) -> Philox:
        """TF's ``PhiloxRandom(seed_lo, seed_hi)``: key = seed_lo, counter lanes 2-3 = seed_hi."""
        seed_lo &= (1 << 64) - 1
        seed_hi &= (1 << 64) - 1
        return cls((seed_lo, seed_lo >> 32), seed_hi << 64)

    @classmethod
    def guarded(cls, seed: int, seed2: int) -> Philox:
        """TF's ``GuardedPhiloxRandom::Init(seed, seed2)``: (0, 0) seeds at random."""
        if seed == 0 and seed2 == 0:
            seed = int.from_bytes(os.urandom(8), "little")
            seed2 = int.from_bytes(os.urandom(8), "little")
        return cls.from_seeds(seed, seed2)

    @classmethod
    def from_lanes(cls, key, counter) -> Philox:
        c = [int(x) & _M32 for x in counter]
        return cls((int(key[0]), int(key[1])),
                   c[0] | (c[1] << 32) | (c[2] << 64) | (c[3] << 96))

    def lanes(self) -> list[int]:
        return [(self.counter >> (32 * i)) & _M32 for i in range(4)]

    def skip(self, count: int) -> None:
        self.counter = (self.counter + count) & _M128

    def reserve(self, samples: int) -> Philox:
        """``ReserveSamples128``: a copy of the current state; this one skips ``samples``."""
        local = Philox(self.key, self.counter)
        self.skip(samples)
        return local

    def blocks(self, offsets: np.ndarray) -> np.ndarray:
        """The outputs (uint32, shape ``offsets.shape + (4,)``) at counter + each offset:
        in chunks that stay in cache, split over the intra-op threads for many offsets
        (as TF shards its random kernels; each block depends on its counter alone)."""
        offsets = np.asarray(offsets, dtype=np.uint64)
        flat = offsets.reshape(-1)
        out = np.empty((flat.size, 4), dtype=np.uint32)

        def run(lo: int, hi: int) -> None:
            for start in range(lo, hi, _CHUNK):
                end = min(start + _CHUNK, hi)
                self._rounds(flat[start:end], out[start:end])

        _SPLITTER(run, flat.size)
        return out.reshape(offsets.shape + (4,))

    def _rounds(self, offsets: np.ndarray, out: np.ndarray) -> None:
        lanes = self.lanes()
        c0 = np.uint64(lanes[0]) + (offsets & _LO)
        c1 = np.uint64(lanes[1]) + (offsets >> _SH) + (c0 >> _SH)
        c2 = np.uint64(lanes[2]) + (c1 >> _SH)
        c3 = (np.uint64(lanes[3]) + (c2 >> _SH)) & _LO
        c0 &= _LO
        c1 &= _LO
        c2 &= _LO
        t = np.empty_like(c0)
        k0, k1 = self.key
        for _ in range(10):
            # p0 = c0 * MA, p1 = c2 * MB (in place); then
            # c0 = hi(p1) ^ c1 ^ k0, c1 = lo(p1), c2 = hi(p0) ^ c3 ^ k1, c3 = lo(p0)
            np.multiply(c0, _MA, out=c0)
            np.multiply(c2, _MB, out=c2)
            np.right_shift(c2, _SH, out=t)
            t ^= np.uint64(k0)
            c1 ^= t
            np.right_shift(c0, _SH, out=t)
            t ^= np.uint64(k1)
            c3 ^= t
            c2 &= _LO
            c0 &= _LO
            c0, c1, c2, c3 = c1, c2, c3, c0
            k0, k1 = (k0 + _WA) & _M32, (k1 + _WB) & _M32
        out[:, 0], out[:, 1], out[:, 2], out[:, 3] = c0, c1, c2, c3


# Blocks computed at a time: 8k counters keep the round's five uint64 arrays (320 KB) in
# cache (32k took 2x as long per block), with no temporary allocated per operation.
_CHUNK = 1 << 13
_SPLITTER = intra_op.Splitter(4 * _CHUNK)


class SingleSample:
    """TF's ``SingleSampleAdapter<PhiloxRandom>``: the generator's uint32 outputs one at a
    time, in order (a call that finds none left runs the generator once more).  Blocks
    are computed ``batch`` at a time, which gives the same sequence."""

    __slots__ = ("gen", "pending", "batch")

    def __init__(self, gen: Philox, batch: int = 64):
        self.gen = gen
        self.pending: list[int] = []
        self.batch = batch

    def __call__(self) -> int:
        if not self.pending:
            block = self.gen.blocks(np.arange(self.batch, dtype=np.uint64))
            self.gen.skip(self.batch)
            self.pending = block.reshape(-1).tolist()[::-1]
        return self.pending.pop()


# ---- uint32 -> value conversions (random_distributions.h) ---------------------------

def uint32_to_float(x: np.ndarray) -> np.ndarray:
    bits = np.bitwise_and(x.astype(np.uint32, copy=False), np.uint32(0x7FFFFF))
    bits |= np.uint32(0x3F800000)
    values = bits.view(np.float32)
    values -= np.float32(1.0)
    return values


def uint64_to_double(x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
    man = ((x0.astype(np.uint64) & np.uint64(0xFFFFF)) << _SH) | x1.astype(np.uint64)
    return (man | np.uint64(1023 << 52)).view(np.float64) - 1.0


def _uint16_to_narrow(x: np.ndarray, dtype) -> np.ndarray:
    if np.dtype(dtype) == np.float16:
        bits = (x.astype(np.uint16) & np.uint16(0x3FF)) | np.uint16(15 << 10)
        return bits.view(np.float16) - np.float16(1.0)
    # bfloat16: 7 mantissa bits, value exactly representable in float32.
    bits = ((x.astype(np.uint32) & np.uint32(0x7F)) << np.uint32(16)) | np.uint32(0x3F800000)
    return (bits.view(np.float32) - np.float32(1.0)).astype(dtype)


def box_muller_float(x0: np.ndarray, x1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``BoxMullerFloat``: float math, each libm call computed in double and rounded (the
    correctly rounded float result, which glibc's logf/sinf/cosf give)."""
    u1 = np.maximum(uint32_to_float(x0), np.float32(1e-7))
    v1 = (2.0 * np.pi * uint32_to_float(x1).astype(np.float64)).astype(np.float32)
    log_u1 = np.log(u1.astype(np.float64)).astype(np.float32)
    u2 = np.sqrt((np.float32(-2.0) * log_u1).astype(np.float64)).astype(np.float32)
    v = v1.astype(np.float64)
    return (np.sin(v).astype(np.float32) * u2, np.cos(v).astype(np.float32) * u2)


def box_muller_double(x0, x1, x2, x3) -> tuple[np.ndarray, np.ndarray]:
    u1 = np.maximum(uint64_to_double(x0, x1), 1e-7)
    v1 = 2.0 * np.pi * uint64_to_double(x2, x3)
    u2 = np.sqrt(-2.0 * np.log(u1))
    return np.sin(v1) * u2, np.cos(v1) * u2


# ---- the distributions: each maps blocks (n, 4) to values (n, kResultElementCount) ----

def _normal_float(b: np.ndarray) -> np.ndarray:
    f0, f1 = box_muller_float(b[:, 0], b[:, 1])
    f2, f3 = box_muller_float(b[:, 2], b[:, 3])
    return np.stack([f0, f1, f2, f3], axis=-1)


def _normal_double(b: np.ndarray) -> np.ndarray:
    d0, d1 = box_muller_double(b[:, 0], b[:, 1], b[:, 2], b[:, 3])
    return np.stack([d0, d1], axis=-1)


def _fill_fixed(gen: Philox, size: int, per_group: int, dist) -> np.ndarray:
    """``dist`` over the blocks of groups 0.. (per_group values each), the first ``size``
    values; many groups split over the intra-op threads, each range computing its own
    blocks and values (the same values: each group depends on its counter alone)."""
    groups = -(-size // per_group)
    parts: dict[int, np.ndarray] = {}

    def run(lo: int, hi: int) -> None:
        blocks = np.empty((hi - lo, 4), dtype=np.uint32)
        for start in range(lo, hi, _CHUNK):
            end = min(start + _CHUNK, hi)
            gen._rounds(np.arange(start, end, dtype=np.uint64), blocks[start - lo:end - lo])
        parts[lo] = dist(blocks).reshape(-1)

    _SPLITTER(run, groups)
    values = parts[0] if len(parts) == 1 else np.concatenate([parts[k] for k in sorted(parts)])
    return values[:size]


def uniform(gen: Philox, size: int, dtype) -> np.ndarray:
    """``UniformDistribution`` for floating types, values in [0, 1)."""
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        return _fill_fixed(gen, size, 2, lambda b: uint64_to_double(
            b[:, 0::2], b[:, 1::2]))
    if dtype == np.float32:
        return _fill_fixed(gen, size, 4, uint32_to_float)
    return _fill_fixed(gen, size, 4, lambda b: _uint16_to_narrow(b, dtype))


def normal(gen: Philox, size: int, dtype) -> np.ndarray:
    """``NormalDistribution`` (Box-Muller; float16/bfloat16 go through float)."""
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        return _fill_fixed(gen, size, 2, _normal_double)
    return _fill_fixed(gen, size, 4, _normal_float).astype(dtype)


def truncated_normal(gen: Philox, size: int, dtype) -> np.ndarray:
    """``TruncatedNormalDistribution``: normals with ``|x| < 2`` in draw order, group ``g``
    drawn from the generator skipped by ``g * kGeneratorSkipPerOutputGroup``."""
    dtype = np.dtype(dtype)
    double = dtype == np.float64
    per_group = 2 if double else 4
    skip = per_group * RESERVED_SAMPLES_PER_OUTPUT // 4
    groups = -(-size // per_group)
    dist = _normal_double if double else _normal_float
    out = np.empty((groups, per_group), dtype=np.float64 if double else np.float32)
    todo = np.arange(groups, dtype=np.uint64)
    # Candidates so far per pending group, and how many blocks each has drawn.
    cands = np.empty((groups, 0), dtype=out.dtype)
    drawn = 0
    while todo.size:
        step = 2 if drawn == 0 else 1
        new = [dist(gen.blocks(todo * np.uint64(skip) + np.uint64(drawn + j)))
               for j in range(step)]
        cands = np.concatenate([cands, *new], axis=1)
        drawn += step
        ok = np.abs(cands) < 2.0
        done = ok.sum(axis=1) >= per_group
        if done.any():
            rows = np.nonzero(done)[0]
            sel = cands[rows][ok[rows]]  # row-major: each row's accepted values in order
            counts = ok[rows].sum(axis=1)
            starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
            idx = starts[:, None] + np.arange(per_group)[None, :]
            out[todo[rows].astype(np.int64)] = sel[idx]
        todo, cands = todo[~done], cands[~done]
    return out.reshape(-1)[:size].astype(dtype)


def uniform_int(gen: Philox, size: int, dtype, lo: int, hi: int) -> np.ndarray:
    """``UniformDistribution`` for int32/int64: ``lo + bits % (hi - lo)``."""
    dtype = np.dtype(dtype)
    span = hi - lo
    if dtype.itemsize == 8:
        def dist(b):
            bits = b[:, 0::2].astype(np.uint64) | (b[:, 1::2].astype(np.uint64) << _SH)
            return bits % np.uint64(span)
        per_group = 2
    else:
        def dist(b):
            return b.astype(np.uint64) % np.uint64(span)
        per_group = 4
    offs = _fill_fixed(gen, size, per_group, dist)
    # lo + offset, wrapped as TF's SignedAdd in the unsigned type.
    bits = 64 if dtype.itemsize == 8 else 32
    mask = (1 << bits) - 1
    vals = (offs + np.uint64(lo & mask)) & np.uint64(mask)
    return vals.astype(np.dtype(f"uint{bits}")).view(dtype)


def full_int(gen: Philox, size: int, dtype) -> np.ndarray:
    """``UniformFullIntDistribution``: raw bits (64-bit values from two uint32, low first)."""
    dtype = np.dtype(dtype)
    if dtype.itemsize == 8:
        def dist(b):
            return b[:, 0::2].astype(np.uint64) | (b[:, 1::2].astype(np.uint64) << _SH)
        return _fill_fixed(gen, size, 2, dist).view(dtype)
    return _fill_fixed(gen, size, 4, lambda b: b).view(dtype)


def stateless_generator(seed) -> Philox:
    """TF's ``GenerateKey``: the Philox of a 2-element seed tensor, its two seeds scrambled
    by one Philox call with a fixed key (stateless_random_ops.cc)."""
    s0, s1 = (int(s) & ((1 << 64) - 1) for s in np.asarray(seed).reshape(-1))
    mix = Philox((0x3EC8F720, 0x02461E29), s0 | (s1 << 64)).blocks(np.zeros(1, np.uint64))[0]
    return Philox((int(mix[0]), int(mix[1])), (int(mix[2]) << 64) | (int(mix[3]) << 96))


def from_key_counter(key, counter) -> Philox:
    """The Philox of a ``[key]`` / ``[counter_lo, counter_hi]`` uint64 pair (TF's
    GetKeyFromMem / GetCounterFromMem)."""
    k = int(np.asarray(key).reshape(-1)[0]) & ((1 << 64) - 1)
    c = [int(x) & ((1 << 64) - 1) for x in np.asarray(counter).reshape(-1)[:2]]
    return Philox((k, k >> 32), c[0] | (c[1] << 64))


class SimplePhilox:
    """TF's ``random::SimplePhilox`` (simple_philox.h) over a Philox state: the uint32 of
    successive blocks one at a time (``SingleSampleAdapter``), and the draws built on them.
    The state is this object's own: drawing advances it, never the stream it came from."""

    __slots__ = ("_gen", "_buf", "_pos")
    _BLOCKS = 64  # blocks computed per refill (a batch of the same sequence)

    def __init__(self, gen: Philox):
        self._gen = Philox(gen.key, gen.counter)
        self._buf: list[int] = []
        self._pos = 0

    def rand32(self) -> int:
        if self._pos == len(self._buf):
            self._buf = self._gen.blocks(np.arange(self._BLOCKS, dtype=np.uint64)) \
                .reshape(-1).tolist()
            self._gen.skip(self._BLOCKS)
            self._pos = 0
        value = self._buf[self._pos]
        self._pos += 1
        return value

    def rand64(self) -> int:
        lo = self.rand32()
        return lo | (self.rand32() << 32)

    def rand_float(self) -> np.float32:
        return uint32_to_float(np.array([self.rand32()], np.uint32))[0]

    def rand_double(self) -> float:
        x0 = self.rand32()
        x1 = self.rand32()
        return float(uint64_to_double(np.array([x0], np.uint32), np.array([x1], np.uint32))[0])

    def uniform(self, n: int) -> int:
        """``Uniform(n)``: ``ExactUniformInt`` over 32-bit draws."""
        return _exact_uniform_int(n, self.rand32, 32)

    def uniform64(self, n: int) -> int:
        return _exact_uniform_int(n, self.rand64, 64)


def _exact_uniform_int(n: int, draw, bits: int) -> int:
    """TF's ``ExactUniformInt`` (exact_uniform_int.h): rejection of the low values that
    would bias ``bits % n``; a power of two masks; n == 0 consumes one draw and gives 0."""
    if n == 0:
        draw()
        return 0
    if n & (n - 1) == 0:
        return draw() & (n - 1)
    rem = (((1 << bits) - 1) % n) + 1
    while True:
        value = draw()
        if value >= rem:
            return value % n
