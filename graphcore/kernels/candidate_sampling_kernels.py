"""CPU kernels of :mod:`graphcore.ops.candidate_sampling_ops` (TF's ``range_sampler.cc``
and ``candidate_sampler_ops.cc``): each sampler draws from its node's random stream
(:func:`graphcore.kernels.random_kernels.stream_of`), with or without replacement, and
reports expected counts as TF does: p * num_sampled, or 1 - (1 - p) ** num_tries when
``unique`` needed more tries than samples. The learned unigram sampler's counts live in the
session's resources, so they grow over the session's steps, as TF's kernel state does."""

from __future__ import annotations

import threading

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.random_kernels import stream_of
from graphcore.kernels.registry import KernelContext, register_kernel

_lock = threading.Lock()


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _check_true_classes(true_classes: np.ndarray, num_true: int) -> None:
    if true_classes.ndim != 2:
        raise _invalid("true_classes must be a matrix")
    if true_classes.shape[1] != num_true:
        raise _invalid(f"true_classes must have num_true columns, expected: "
                       f"{true_classes.shape[1]} was: {num_true}")


def _expected_count(p: np.ndarray, batch_size: int, num_tries: int) -> np.ndarray:
    p = np.asarray(p, np.float64)
    if num_tries == batch_size:
        return (p * batch_size).astype(np.float32)
    return (-np.expm1(num_tries * np.log1p(-p))).astype(np.float32)


def _draw(sample, num_sampled: int, unique: bool, rng: np.random.Generator) -> tuple:
    """(batch, num_tries): ``sample(rng, n)`` draws n values; without replacement, draws
    go on (one at a time, in order) until ``num_sampled`` distinct values are seen."""
    if not unique:
        return np.asarray(sample(rng, num_sampled), np.int64), num_sampled
    batch, seen, tries = [], set(), 0
    while len(batch) < num_sampled:
        chunk = sample(rng, max(num_sampled - len(batch), 16))
        for value in np.asarray(chunk).tolist():
            tries += 1
            if value not in seen:
                seen.add(value)
                batch.append(value)
                if len(batch) == num_sampled:
                    break
    return np.asarray(batch, np.int64), tries


def _sampler_kernel(make_distribution):
    """A kernel factory from ``make_distribution(ctx) -> (sample, probability, update)``:
    ``sample(rng, n)`` values, their ``probability(values)``, and ``update(true_classes)``
    (None when the sampler does not learn)."""

    def factory(ctx: KernelContext):
        num_true, num_sampled = ctx.attr("num_true"), ctx.attr("num_sampled")
        unique = ctx.attr("unique")
        range_max = ctx.attr("range_max") if ctx.has_attr("range_max") else num_sampled
        sample, probability, update = make_distribution(ctx, range_max)
        stream = stream_of(ctx)

        def compute(true_classes):
            true_classes = np.asarray(true_classes, np.int64)
            _check_true_classes(true_classes, num_true)
            if unique and num_sampled > range_max:
                raise _invalid("Sampler's range is too small.")
            with stream.lock:
                batch, tries = _draw(sample, num_sampled, unique, stream.rng)
                true_count = _expected_count(probability(true_classes), num_sampled, tries)
                sampled_count = _expected_count(probability(batch), num_sampled, tries)
                if update is not None:
                    update(true_classes)
            return (batch, true_count, sampled_count)

        return compute

    return factory


def _uniform(ctx: KernelContext, range_max: int) -> tuple:
    return (lambda rng, n: rng.integers(0, range_max, size=n),
            lambda v: np.full(np.shape(v), 1.0 / range_max), None)


def _log_uniform(ctx: KernelContext, range_max: int) -> tuple:
    log_range = np.log1p(range_max)

    def sample(rng, n):
        values = np.exp(rng.random(n) * log_range).astype(np.int64) - 1
        return values % range_max

    def probability(v):
        v = np.asarray(v, np.float64)
        return np.log((v + 2.0) / (v + 1.0)) / log_range

    return sample, probability, None


def _weighted(weights: np.ndarray) -> tuple:
    def sample(rng, n):
        cdf = np.cumsum(weights)
        return np.minimum(np.searchsorted(cdf, rng.random(n) * cdf[-1], side="right"),
                          len(weights) - 1)

    def probability(v):
        v = np.asarray(v, np.int64)
        inside = (v >= 0) & (v < len(weights))
        return np.where(inside, weights[np.clip(v, 0, len(weights) - 1)], 0.0) / \
            weights.sum()

    return sample, probability


def _learned_unigram(ctx: KernelContext, range_max: int) -> tuple:
    resources = ctx.resources
    if resources is None:
        weights = np.ones(range_max, np.float64)
    else:
        with _lock:
            table = getattr(resources, "_unigram_counts", None)
            if table is None:
                table = resources._unigram_counts = {}
            weights = table.setdefault(ctx.name, np.ones(range_max, np.float64))

    def update(true_classes):
        np.add.at(weights, true_classes.reshape(-1), 1.0)

    return (*_weighted(weights), update)


def _read_vocab_counts(path: str) -> list:
    counts = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                counts.append(float(line.split(",")[-1]))
    return counts


def _fixed_unigram(ctx: KernelContext, range_max: int) -> tuple:
    vocab_file = ctx.attr("vocab_file")
    vocab_file = vocab_file.decode() if isinstance(vocab_file, bytes) else vocab_file
    unigrams = list(ctx.attr("unigrams"))
    distortion = ctx.attr("distortion")
    num_reserved, num_shards, shard = (ctx.attr("num_reserved_ids"), ctx.attr("num_shards"),
                                       ctx.attr("shard"))
    if bool(vocab_file) == bool(unigrams):
        raise _invalid("Must provide either vocab_file or unigrams.")
    counts = _read_vocab_counts(vocab_file) if vocab_file else unigrams
    weights = [0.0 for i in range(num_reserved) if i % num_shards == shard]
    for word_id, w in enumerate(counts, start=num_reserved):
        if word_id % num_shards == shard:
            weights.append(float(w) ** distortion)
    if len(weights) != range_max:
        raise _invalid(f"range_max must be equal to the number of ids in this shard: "
                       f"{range_max} vs {len(weights)}")
    return (*_weighted(np.asarray(weights, np.float64)), None)


register_kernel("UniformCandidateSampler")(_sampler_kernel(_uniform))
register_kernel("LogUniformCandidateSampler")(_sampler_kernel(_log_uniform))
register_kernel("LearnedUnigramCandidateSampler")(_sampler_kernel(_learned_unigram))
register_kernel("FixedUnigramCandidateSampler")(_sampler_kernel(_fixed_unigram))


@register_kernel("AllCandidateSampler")
def _all_candidate_sampler(ctx: KernelContext):
    num_true, num_sampled = ctx.attr("num_true"), ctx.attr("num_sampled")

    def compute(true_classes):
        true_classes = np.asarray(true_classes, np.int64)
        _check_true_classes(true_classes, num_true)
        return (np.arange(num_sampled, dtype=np.int64),
                np.ones(true_classes.shape, np.float32), np.ones(num_sampled, np.float32))

    return compute


@register_kernel("ComputeAccidentalHits")
def _compute_accidental_hits(ctx: KernelContext):
    num_true = ctx.attr("num_true")

    def compute(true_classes, sampled):
        true_classes = np.asarray(true_classes, np.int64)
        sampled = np.asarray(sampled, np.int64)
        _check_true_classes(true_classes, num_true)
        if sampled.ndim != 1:
            raise _invalid("sampled_candidates must be a vector, which is typically an "
                           "output from CandidateSampler")
        position = {v: i for i, v in enumerate(sampled.tolist())}
        indices, ids = [], []
        for i, row in enumerate(true_classes.tolist()):
            for value in row:
                j = position.get(value)
                if j is not None:
                    indices.append(i)
                    ids.append(j)
        lowest = np.finfo(np.float32).min
        return (np.asarray(indices, np.int32), np.asarray(ids, np.int64),
                np.full(len(ids), lowest, np.float32))

    return compute
