"""CPU kernels of :mod:`graphcore.ops.random_distribution_ops`: the stateful ones draw
from the node's stream (as the other random kernels), the stateless ones from a generator
seeded by their ``seed`` input alone.  StatelessRandomUniform/Normal/TruncatedNormal/
UniformInt draw TF's Philox stream (:func:`graphcore.kernels.philox.stateless_generator`,
TF's values); Multinomial and StatelessMultinomial too (TF's values when TF runs the batch
as one shard, see :func:`_draw_multinomial`); RandomGamma and RandomPoissonV2 draw numpy's
numbers (the same distributions, not TF's values)."""

from __future__ import annotations

import numpy as np
from scipy import special

from graphcore.framework import errors
from graphcore.kernels import philox
from graphcore.kernels.elementwise_kernels import igamma_grad_a
from graphcore.kernels.random_kernels import shape_of, stream_of
from graphcore.kernels.registry import KernelContext, register_kernel


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _check_multinomial(logits, num_samples) -> tuple[np.ndarray, int]:
    logits = np.asarray(logits)
    if logits.ndim != 2:
        raise _invalid("logits should be a matrix")
    n = int(num_samples)
    if n < 0:
        raise _invalid(f"num_samples should be nonnegative, got {n}")
    if logits.shape[1] == 0 and n > 0:
        raise _invalid("num_classes should be positive")
    return logits, n


def _draw_multinomial(gen: philox.Philox, logits: np.ndarray, n: int, out_dtype):
    """TF's CPU multinomial: per row, the unnormalised cdf of ``exp(logit - max)`` over the
    finite logits (in double), then for each sample a double from two uint32 of the stream
    (``Uint64ToDouble``) times the total, looked up with ``upper_bound``.  The rows draw
    one after another from one generator: TF's values whenever its kernel runs the batch
    as one shard (it splits big batches across threads, each shard skipping ahead)."""
    batch, classes = logits.shape
    finite = np.isfinite(logits)
    logits = logits.astype(np.float64)
    row_max = np.where(finite, logits, -np.inf).max(axis=1, initial=-np.inf)
    with np.errstate(over="ignore", invalid="ignore"):
        cdf = np.exp(logits - row_max[:, None])
    cdf = np.cumsum(np.where(finite, cdf, 0.0), axis=1)
    total = cdf[:, -1] if classes else np.zeros(batch)
    count = batch * n * 2
    bits = gen.blocks(np.arange(-(-count // 4), dtype=np.uint64)).reshape(-1)[:count]
    u = philox.uint64_to_double(bits[0::2], bits[1::2]).reshape(batch, n)
    out = np.empty((batch, n), dtype=out_dtype)
    for b in range(batch):
        out[b] = np.searchsorted(cdf[b], u[b] * total[b], side="right")
    return out


@register_kernel("Multinomial")
def _multinomial(ctx: KernelContext):
    stream = stream_of(ctx)
    out = ctx.attr("output_dtype").as_numpy_dtype

    def compute(logits, num_samples):
        logits, n = _check_multinomial(logits, num_samples)
        # TF reserves 512 samples per output (two uint32 per double), the sample count
        # rounded up to a multiple of 4: ReserveRandomOutputs(batch * ceil4(n), 512).
        gen = stream.reserve(logits.shape[0] * (-(-n // 4) * 4) * 2)
        return (_draw_multinomial(gen, logits, n, out),)

    return compute


@register_kernel("RandomGamma")
def _random_gamma(ctx: KernelContext):
    stream = stream_of(ctx)
    out = ctx.output_types[0].as_numpy_dtype

    def compute(shape, alpha):
        alpha = np.asarray(alpha, dtype=np.float64)
        dims = shape_of(shape) + alpha.shape
        with stream.lock:
            values = stream.rng.standard_gamma(np.broadcast_to(alpha, dims))
        return (values.astype(out),)

    return compute


@register_kernel("RandomPoissonV2")
def _random_poisson(ctx: KernelContext):
    stream = stream_of(ctx)
    out = ctx.attr("dtype").as_numpy_dtype

    def compute(shape, rate):
        rate = np.asarray(rate, dtype=np.float64)
        dims = shape_of(shape) + rate.shape
        with stream.lock:
            values = stream.rng.poisson(np.broadcast_to(rate, dims))
        return (values.astype(out),)

    return compute


def _stateless_rng(seed) -> np.random.Generator:
    seed = np.asarray(seed).reshape(-1)
    if seed.size != 2:
        raise _invalid(f"seed must have shape [2], not [{seed.size}]")
    return np.random.default_rng([int(s) & 0xFFFFFFFFFFFFFFFF for s in seed])


# TF's Philox draws (gen, size, dtype) of the stateless ops, V1 and V2.
_STATELESS = {
    "StatelessRandomUniform": philox.uniform,
    "StatelessRandomNormal": philox.normal,
    "StatelessTruncatedNormal": philox.truncated_normal,
}


def _stateless_kernel(draw):
    def factory(ctx: KernelContext):
        out = ctx.attr("dtype").as_numpy_dtype

        def compute(shape, seed):
            dims = shape_of(shape)
            gen = _stateless_philox(seed)
            size = int(np.prod(dims, dtype=np.int64)) if dims else 1
            return (draw(gen, size, out).reshape(dims),)

        return compute

    return factory


for _op_type, _draw in _STATELESS.items():
    register_kernel(_op_type)(_stateless_kernel(_draw))


def _stateless_philox(seed) -> philox.Philox:
    seed = np.asarray(seed).reshape(-1)
    if seed.size != 2:
        raise _invalid(f"seed must have shape [2], not [{seed.size}]")
    return philox.stateless_generator(seed)


@register_kernel("StatelessRandomUniformInt")
def _stateless_uniform_int(ctx: KernelContext):
    out = ctx.attr("dtype").as_numpy_dtype

    def compute(shape, seed, minval, maxval):
        dims = shape_of(shape)
        gen = _stateless_philox(seed)
        lo, hi = int(minval), int(maxval)
        size = int(np.prod(dims, dtype=np.int64)) if dims else 1
        if not size:
            return (np.zeros(dims, dtype=out),)
        if lo >= hi:
            raise _invalid(f"Need minval < maxval: {lo} >= {hi}")
        return (philox.uniform_int(gen, size, out, lo, hi).reshape(dims),)

    return compute


@register_kernel("StatelessMultinomial")
def _stateless_multinomial(ctx: KernelContext):
    out = ctx.attr("output_dtype").as_numpy_dtype
    def compute(logits, num_samples, seed):
        gen = _stateless_philox(seed)
        logits, n = _check_multinomial(logits, num_samples)
        return (_draw_multinomial(gen, logits, n, out),)

    return compute


def _gamma_sample_grad(alpha: np.ndarray, sample: np.ndarray) -> np.ndarray:
    """d sample / d alpha = -(dP/dalpha) / (dP/dx) at x = sample, P(alpha, x) the
    regularized lower incomplete gamma. dP/dalpha is a central difference in float64 of P
    or, in the upper tail, of Q = 1 - P (whichever is small keeps its precision)."""
    a, x = np.broadcast_arrays(np.asarray(alpha, np.float64), np.asarray(sample, np.float64))
    dp_da = igamma_grad_a(a, x)
    log_dp_dx = -x + special.xlogy(a - 1.0, x) - special.gammaln(a)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return -dp_da * np.exp(-log_dp_dx)


@register_kernel("RandomGammaGrad")
def _random_gamma_grad(ctx: KernelContext):
    out = ctx.output_types[0].as_numpy_dtype

    def compute(alpha, sample):
        return (_gamma_sample_grad(alpha, sample).astype(out),)

    return compute
