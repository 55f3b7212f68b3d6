"""CPU kernels of :mod:`graphcore.ops.candidate_sampling_ops` (TF's ``range_sampler.cc``
and ``candidate_sampler_ops.cc``): each sampler draws from its node's random stream
(:func:`graphcore.kernels.random_kernels.stream_of`, drawn as TF's SimplePhilox, so the
same seeds give TF's candidates), with or without replacement, and
reports expected counts as TF does: p * num_sampled, or 1 - (1 - p) ** num_tries when
``unique`` needed more tries than samples. The learned unigram sampler's counts live in the
session's resources, so they grow over the session's steps, as TF's kernel state does."""

from __future__ import annotations

import threading

import numpy as np

from graphcore.framework import errors
from graphcore.kernels import philox
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


def _check_range(true_classes: np.ndarray, range_max: int) -> None:
    bad = true_classes[(true_classes < 0) | (true_classes >= range_max)]
    if bad.size:
        raise _invalid(f"`true_candidate` out of range [0, {range_max}), received "
                       f"{int(bad[0])}")


def _expected_count(p: np.ndarray, batch_size: int, num_tries: int) -> np.ndarray:
    """TF's ``ExpectedCountHelper``, in float as TF computes it."""
    p = np.asarray(p, np.float32)
    if num_tries == batch_size:
        return p * np.float32(batch_size)
    return -np.expm1(np.float32(num_tries) * np.log1p(-p))


def _draw(sample, num_sampled: int, unique: bool, rnd: philox.SimplePhilox) -> tuple:
    """(batch, num_tries) as TF's ``SampleBatchGetExpectedCountAvoid``: ``sample(rnd)``
    one value at a time; without replacement, draws go on until ``num_sampled`` distinct
    values are seen."""
    if not unique:
        return np.array([sample(rnd) for _ in range(num_sampled)], np.int64), num_sampled
    batch, seen, tries = [], set(), 0
    while len(batch) < num_sampled:
        tries += 1
        value = sample(rnd)
        if value not in seen:
            seen.add(value)
            batch.append(value)
    return np.asarray(batch, np.int64), tries


def _sampler_kernel(make_distribution):
    """A kernel factory from ``make_distribution(ctx, range_max) -> (prepare, update)``:
    ``prepare()`` gives this run's ``(sample, probability)`` -- ``sample(rnd)`` one value
    from a :class:`~graphcore.kernels.philox.SimplePhilox`, ``probability(values)`` their
    float32 probabilities -- and ``update(true_classes)`` learns (None when the sampler
    does not).  Each run reserves ``2048 * num_sampled`` 32-bit samples of the node's
    Philox stream, as TF's ``BaseCandidateSamplerOp``."""

    def factory(ctx: KernelContext):
        num_true, num_sampled = ctx.attr("num_true"), ctx.attr("num_sampled")
        unique = ctx.attr("unique")
        range_max = ctx.attr("range_max") if ctx.has_attr("range_max") else num_sampled
        prepare, update = make_distribution(ctx, range_max)
        stream = stream_of(ctx)

        def compute(true_classes):
            true_classes = np.asarray(true_classes, np.int64)
            _check_true_classes(true_classes, num_true)
            if unique and num_sampled > range_max:
                raise _invalid("Sampler's range is too small.")
            _check_range(true_classes, range_max)
            with stream.lock:
                local = stream.philox.reserve((2048 * num_sampled + 3) // 4)
            rnd = philox.SimplePhilox(local)
            with _lock:
                sample, probability = prepare()
                batch, tries = _draw(sample, num_sampled, unique, rnd)
                true_count = _expected_count(probability(true_classes), num_sampled, tries)
                sampled_count = _expected_count(probability(batch), num_sampled, tries)
                if update is not None:
                    update(true_classes)
            return (batch, true_count, sampled_count)

        return compute

    return factory


def _uniform(ctx: KernelContext, range_max: int) -> tuple:
    inv_range = np.float32(1.0 / range_max)

    def prepare():
        return (lambda rnd: rnd.uniform64(range_max),
                lambda v: np.full(np.shape(v), inv_range, np.float32))

    return prepare, None


def _log_uniform(ctx: KernelContext, range_max: int) -> tuple:
    log_range = float(np.log1p(range_max))

    def sample(rnd):
        return (int(np.exp(rnd.rand_double() * log_range)) - 1) % range_max

    def probability(v):
        v = np.asarray(v, np.float64)
        return (np.log((v + 2.0) / (v + 1.0)) / log_range).astype(np.float32)

    return (lambda: (sample, probability)), None


def _learned_unigram(ctx: KernelContext, range_max: int) -> tuple:
    """TF's ``UnigramSampler``: a ``WeightedPicker`` of int weights, all 1 at first, each
    true class adding 1 after the run; a pick is an unbiased uniform index into the total
    weight, mapped to the class whose cumulative weight passes it."""
    resources = ctx.resources
    if resources is None:
        weights = np.ones(range_max, np.int64)
    else:
        with _lock:
            table = getattr(resources, "_unigram_counts", None)
            if table is None:
                table = resources._unigram_counts = {}
            weights = table.setdefault(ctx.name, np.ones(range_max, np.int64))

    def prepare():
        cumulative = np.cumsum(weights)
        total = int(cumulative[-1])

        def sample(rnd):
            return int(np.searchsorted(cumulative, rnd.uniform(total), side="right"))

        def probability(v):
            v = np.asarray(v, np.int64)
            return weights[v].astype(np.float32) / np.float32(total)

        return sample, probability

    def update(true_classes):
        values = true_classes.reshape(-1)
        room = max(0, (1 << 31) - 1 - int(weights.sum()))
        np.add.at(weights, values[:room], 1)

    return prepare, update


def _read_vocab_counts(path: str) -> list:
    counts = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                counts.append(float(line.split(",")[-1]))
    return counts


def _alias_table(weights: np.ndarray) -> tuple:
    """TF's ``DistributionSampler`` (distribution_sampler.cc): Walker's alias table built
    with the same high/low stacks, so a draw picks what TF's does."""
    n = len(weights)
    total = float(np.sum(weights.astype(np.float64)))
    pr = [float(w) * n / total for w in weights.tolist()]
    alt = [-1] * n
    low = [i for i in range(n) if pr[i] < 1.0]
    high = [i for i in range(n) if pr[i] >= 1.0]
    while high and low:
        small, big = low.pop(), high.pop()
        alt[small] = big
        pr[big] = pr[big] - (1.0 - pr[small])
        (low if pr[big] < 1.0 else high).append(big)
    prob = np.asarray(pr, np.float32)
    for i in high + low:
        prob[i] = np.float32(1.0)
        alt[i] = i
    return prob, alt


def _fixed_unigram(ctx: KernelContext, range_max: int) -> tuple:
    vocab_file = ctx.attr("vocab_file")
    vocab_file = vocab_file.decode() if isinstance(vocab_file, bytes) else vocab_file
    unigrams = list(ctx.attr("unigrams"))
    distortion = np.float32(ctx.attr("distortion"))
    num_reserved, num_shards, shard = (ctx.attr("num_reserved_ids"), ctx.attr("num_shards"),
                                       ctx.attr("shard"))
    if bool(vocab_file) == bool(unigrams):
        raise _invalid("Must provide either vocab_file or unigrams.")
    counts = _read_vocab_counts(vocab_file) if vocab_file else unigrams
    weights = [np.float32(0.0) for i in range(num_reserved) if i % num_shards == shard]
    for word_id, w in enumerate(counts, start=num_reserved):
        if word_id % num_shards == shard:
            weights.append(np.power(np.float32(w), distortion))
    if len(weights) != range_max:
        raise _invalid(f"range_max must be equal to the number of ids in this shard: "
                       f"{range_max} vs {len(weights)}")
    weights = np.asarray(weights, np.float32)
    total = float(np.sum(weights.astype(np.float64)))
    prob, alt = _alias_table(weights)

    def sample(rnd):
        r = rnd.rand_float()
        idx = rnd.uniform(range_max)
        return idx if r < prob[idx] else alt[idx]

    def probability(v):
        v = np.asarray(v, np.int64)
        inside = (v >= 0) & (v < range_max)
        p = weights[np.clip(v, 0, range_max - 1)].astype(np.float64) / total
        return np.where(inside, p, 0.0).astype(np.float32)

    return (lambda: (sample, probability)), None


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
        _check_range(true_classes, num_sampled)
        return (np.arange(num_sampled, dtype=np.int64),
                np.ones(true_classes.shape, np.float32), np.ones(num_sampled, np.float32))

    return compute


@register_kernel("ComputeAccidentalHits")
def _compute_accidental_hits(ctx: KernelContext):
    num_true = ctx.attr("num_true")

    def compute(true_classes, sampled):
        true_classes = np.asarray(true_classes, np.int64)
        sampled = np.asarray(sampled, np.int64)
        if true_classes.ndim != 2 or true_classes.shape[1] != num_true:
            raise _invalid("true_candidates must be a batch_size * num_true matrix")
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
