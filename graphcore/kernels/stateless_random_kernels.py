"""CPU kernels of :mod:`graphcore.ops.stateless_random_ops` and RngReadAndSkip: each draws
from a generator keyed by its seed (or key and counter) alone, so the same seed gives the
same values.  StatelessRandomGetKeyCounter and the Philox (alg 1, or 3: auto) draws of
StatelessRandomUniformV2/NormalV2/TruncatedNormalV2/UniformIntV2/UniformFullIntV2 are
TF's (:mod:`graphcore.kernels.philox`); the others (binomial, Poisson, gamma, shuffle,
parameterized truncated normal, ThreeFry alg 2) draw numpy's numbers, not TF's."""

from __future__ import annotations

import numpy as np

from graphcore.framework import errors
from graphcore.kernels import philox
from graphcore.kernels.random_distribution_kernels import _STATELESS, _stateless_rng
from graphcore.kernels.random_kernels import shape_of
from graphcore.kernels.registry import KernelContext, register_kernel

_MASK = 2**64 - 1


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _key_counter_rng(key, counter, alg) -> np.random.Generator:
    key, counter = np.asarray(key).reshape(-1), np.asarray(counter).reshape(-1)
    if key.size != 1:
        raise _invalid(f"key must have shape [1], not [{key.size}]")
    words = [int(key[0]), *(int(c) for c in counter), int(alg)]
    return np.random.default_rng([w & _MASK for w in words])


def _broadcast_param(value, dims: tuple, what: str) -> np.ndarray:
    value = np.asarray(value, dtype=np.float64)
    try:
        return np.broadcast_to(value, dims)
    except ValueError:
        raise _invalid(f"{what} of shape [{','.join(map(str, value.shape))}] cannot be "
                       f"broadcast to the output shape [{','.join(map(str, dims))}]") from None


@register_kernel("StatelessRandomGetKeyCounter")
def _get_key_counter(ctx: KernelContext):
    def compute(seed):
        seed = np.asarray(seed).reshape(-1)
        if seed.size != 2:
            raise _invalid(f"seed must have shape [2], not [{seed.size}]")
        gen = philox.stateless_generator(seed)
        return (np.array([gen.key[0] | (gen.key[1] << 32)], dtype=np.uint64),
                np.array([gen.counter & _MASK, gen.counter >> 64], dtype=np.uint64))

    return compute


@register_kernel("StatelessRandomBinomial")
def _binomial(ctx: KernelContext):
    out = ctx.attr("dtype").as_numpy_dtype

    def compute(shape, seed, counts, probs):
        dims = shape_of(shape)
        counts = _broadcast_param(counts, dims, "counts")
        probs = _broadcast_param(probs, dims, "probs")
        return (_stateless_rng(seed).binomial(counts.astype(np.int64), probs).astype(out),)

    return compute


@register_kernel("StatelessRandomPoisson")
def _poisson(ctx: KernelContext):
    out = ctx.attr("dtype").as_numpy_dtype

    def compute(shape, seed, lam):
        dims = shape_of(shape)
        return (_stateless_rng(seed).poisson(_broadcast_param(lam, dims, "lam")).astype(out),)

    return compute


@register_kernel("StatelessParameterizedTruncatedNormal")
def _parameterized_truncated_normal(ctx: KernelContext):
    out = ctx.attr("dtype").as_numpy_dtype

    def compute(shape, seed, means, stddevs, minvals, maxvals):
        dims = shape_of(shape)
        mean, std, lo, hi = (_broadcast_param(v, dims, what) for v, what in (
            (means, "means"), (stddevs, "stddevs"), (minvals, "minvals"), (maxvals, "maxvals")))
        if np.any(lo >= hi):
            raise _invalid("Invalid parameters: minval must be less than maxval")
        rng = _stateless_rng(seed)
        values = mean + std * rng.standard_normal(dims)
        bad = (values < lo) | (values > hi)
        for _ in range(1000):
            if not bad.any():
                break
            values[bad] = mean[bad] + std[bad] * rng.standard_normal(int(bad.sum()))
            bad = (values < lo) | (values > hi)
        # A window far in a tail: fall back to uniform draws inside it.
        if bad.any():
            values[bad] = rng.uniform(lo[bad], hi[bad])
        return (values.astype(out),)

    return compute


@register_kernel("StatelessRandomGammaV3")
def _gamma(ctx: KernelContext):
    out = ctx.attr("dtype").as_numpy_dtype

    def compute(shape, key, counter, alg, alpha):
        dims = shape_of(shape)
        alpha = _broadcast_param(alpha, dims, "alpha")
        return (_key_counter_rng(key, counter, alg).standard_gamma(alpha).astype(out),)

    return compute


# The V2 ops draw as the V1 ones, from a key/counter generator.
_FLOAT_DRAWS = {f"{op_type}V2": draw for op_type, draw in _STATELESS.items()}


def _philox_of(key, counter, alg) -> philox.Philox | None:
    """TF's Philox for alg 1 (Philox) or 3 (auto: Philox on CPU); None for the others."""
    if int(alg) not in (1, 3):
        return None
    key, counter = np.asarray(key).reshape(-1), np.asarray(counter).reshape(-1)
    if key.size != 1:
        raise _invalid(f"key must have shape [1], not [{key.size}]")
    if counter.size < 2:
        raise _invalid(f"counter must be a vector of at least 2 elements, not [{counter.size}]")
    return philox.from_key_counter(key, counter)


def _size(dims: tuple) -> int:
    return int(np.prod(dims, dtype=np.int64)) if dims else 1


_NUMPY_DRAWS = {
    "StatelessRandomUniformV2": lambda rng, dims: rng.random(dims),
    "StatelessRandomNormalV2": lambda rng, dims: rng.standard_normal(dims),
    "StatelessTruncatedNormalV2": lambda rng, dims: _numpy_truncated(rng, dims),
}


def _numpy_truncated(rng: np.random.Generator, dims: tuple) -> np.ndarray:
    values = rng.standard_normal(dims)
    bad = np.abs(values) >= 2
    while bad.any():
        values[bad] = rng.standard_normal(int(bad.sum()))
        bad = np.abs(values) >= 2
    return values


def _float_kernel(op_type, draw):
    def factory(ctx: KernelContext):
        out = ctx.attr("dtype").as_numpy_dtype

        def compute(shape, key, counter, alg):
            dims = shape_of(shape)
            gen = _philox_of(key, counter, alg)
            if gen is None:
                rng = _key_counter_rng(key, counter, alg)
                return (np.asarray(_NUMPY_DRAWS[op_type](rng, dims)).astype(out),)
            return (draw(gen, _size(dims), out).reshape(dims),)

        return compute

    return factory


for _op_type, _draw in _FLOAT_DRAWS.items():
    register_kernel(_op_type)(_float_kernel(_op_type, _draw))


@register_kernel("StatelessRandomUniformFullIntV2")
def _full_int(ctx: KernelContext):
    out = np.dtype(ctx.attr("dtype").as_numpy_dtype)
    info = np.iinfo(out)

    def compute(shape, key, counter, alg):
        gen = _philox_of(key, counter, alg)
        if gen is not None:
            dims = shape_of(shape)
            return (philox.full_int(gen, _size(dims), out).reshape(dims),)
        rng = _key_counter_rng(key, counter, alg)
        return (rng.integers(info.min, info.max, shape_of(shape), dtype=out,
                             endpoint=True),)

    return compute


@register_kernel("StatelessRandomUniformIntV2")
def _uniform_int(ctx: KernelContext):
    out = np.dtype(ctx.attr("dtype").as_numpy_dtype)

    def compute(shape, key, counter, alg, minval, maxval):
        lo, hi = int(minval), int(maxval)
        dims = shape_of(shape)
        if lo >= hi and int(np.prod(dims)):
            raise _invalid(f"Need minval < maxval: {lo} >= {hi}")
        gen = _philox_of(key, counter, alg)
        if gen is not None:
            if not _size(dims):
                return (np.zeros(dims, dtype=out),)
            return (philox.uniform_int(gen, _size(dims), out, lo, hi).reshape(dims),)
        return (_key_counter_rng(key, counter, alg).integers(lo, hi, dims, dtype=out),)

    return compute


@register_kernel("StatelessShuffle")
def _shuffle(ctx: KernelContext):
    def compute(value, key, counter, alg):
        value = np.asarray(value)
        if value.ndim == 0:
            return (value,)
        return (value[_key_counter_rng(key, counter, alg).permutation(value.shape[0])],)

    return compute


_STATE_SIZES = {1: 3, 2: 2, 3: 3}


def _read_and_skip(state, alg, delta, node: str) -> np.ndarray:
    """The generator state before; moves its counter on by 256 * delta (TF skips delta
    Philox calls), so later draws get a fresh stream."""
    alg = int(alg)
    if alg == 2:
        raise errors.UnimplementedError(None, None,
                                        "Non-XLA devices don't support the ThreeFry algorithm.")
    if alg not in _STATE_SIZES:
        raise _invalid(f"Unsupported algorithm id: {alg}")
    with state.lock:
        old = state.value
        if old is None:
            raise errors.FailedPreconditionError(
                None, None, f"Could not find variable {state.name} (reading it in {node})")
        if old.size < _STATE_SIZES[alg]:
            raise _invalid(f"The size of the state must be at least {_STATE_SIZES[alg]}; "
                           f"got {old.size}")
        words = [int(w) & _MASK for w in old.reshape(-1)]
        counter_words = 1 if alg == 2 else 2
        counter = sum(w << (64 * i) for i, w in enumerate(words[:counter_words]))
        counter = (counter + 256 * int(delta)) % (1 << (64 * counter_words))
        for i in range(counter_words):
            words[i] = (counter >> (64 * i)) & _MASK
        state.assign(np.array(words, dtype=np.uint64).astype(np.int64).reshape(old.shape),
                     copy_on_write=True)
    return np.asarray(old, dtype=np.int64)


@register_kernel("RngReadAndSkip")
def _rng_read_and_skip(ctx: KernelContext):
    return lambda state, alg, delta: (_read_and_skip(state, alg, delta, ctx.name),)


@register_kernel("StatefulRandomBinomial")
def _stateful_binomial(ctx: KernelContext):
    out = ctx.attr("dtype").as_numpy_dtype

    def compute(state, alg, shape, counts, probs):
        dims = shape_of(shape)
        counts = _broadcast_param(counts, dims, "counts")
        probs = _broadcast_param(probs, dims, "probs")
        words = _read_and_skip(state, alg, max(1, int(np.prod(dims))), ctx.name)
        rng = np.random.default_rng([int(w) & _MASK for w in words])
        return (rng.binomial(counts.astype(np.int64), probs).astype(out),)

    return compute


@register_kernel("NonDeterministicInts")
def _non_deterministic_ints(ctx: KernelContext):
    out = np.dtype(ctx.attr("dtype").as_numpy_dtype)
    rng = np.random.default_rng()

    def compute(shape):
        if out.kind not in "iu":
            raise _invalid(f"NonDeterministicInts makes integers, not {out.name}")
        info = np.iinfo(out)
        return (rng.integers(info.min, info.max, shape_of(shape), dtype=out, endpoint=True),)

    return compute


def _mix64(x: np.ndarray) -> np.ndarray:
    """splitmix64's finalizer: a bijective scramble of uint64 words."""
    x = x ^ (x >> np.uint64(30))
    x = x * np.uint64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _shuffle_indices(index: np.ndarray, seed: np.ndarray, max_index: np.ndarray,
                     rounds: int) -> np.ndarray:
    """A keyed Feistel permutation of [0, 2^bits) walked until it lands in
    [0, max_index]: a bijection of [0, max_index] for each (seed, max_index)."""
    bits = np.maximum(2, np.ceil(np.log2(max_index.astype(np.float64) + 1))).astype(np.int64)
    bits = bits + (bits % 2)
    half = (bits // 2).astype(np.uint64)
    mask = (np.uint64(1) << half) - np.uint64(1)
    keys = []
    for r in range(rounds):
        k = _mix64(seed[..., 2] + np.uint64(r * 0x9E3779B97F4A7C15 % 2**64))
        keys.append(_mix64(seed[..., 0] ^ _mix64(seed[..., 1] ^ k)))

    def encrypt(y, todo):
        left, right = (y >> half[todo]) & mask[todo], y & mask[todo]
        for k in keys:
            left, right = right, left ^ (_mix64(right ^ k[todo]) & mask[todo])
        return (left << half[todo]) | right

    y = index.copy()
    todo = np.ones(y.shape, dtype=bool)
    while todo.any():
        y[todo] = encrypt(y[todo], todo)
        todo = y > max_index
    return y


@register_kernel("RandomIndexShuffle")
def _random_index_shuffle(ctx: KernelContext):
    out = np.dtype(ctx.attr("dtype").as_numpy_dtype)
    rounds = ctx.node_def.attr["rounds"].i

    def compute(index, seed, max_index):
        seed = np.asarray(seed)
        if seed.ndim not in (1, 2) or seed.shape[-1] != 3:
            raise _invalid(f"Seed must have shape [3] or [n, 3] but got "
                           f"[{', '.join(map(str, seed.shape))}].")
        index, max_index = np.asarray(index), np.asarray(max_index)
        batch = np.broadcast_shapes(index.shape, max_index.shape, seed.shape[:-1])
        seed_words = np.broadcast_to(seed.astype(np.int64).astype(np.uint64),
                                     batch + (3,))
        idx = np.broadcast_to(index.astype(np.uint64), batch)
        top = np.broadcast_to(max_index.astype(np.uint64), batch)
        bad = idx > top
        if bad.any():
            i = np.argmax(bad.reshape(-1))
            raise _invalid(f"max_index must be >= index, but {top.reshape(-1)[i]} < "
                           f"{idx.reshape(-1)[i]}")
        return (_shuffle_indices(np.array(idx), seed_words, np.array(top),
                                 rounds).astype(out),)

    return compute
