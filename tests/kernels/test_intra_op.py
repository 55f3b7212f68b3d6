"""Intra-op parallelism (graphcore/kernels/intra_op.py) and the training kernels that
split a large variable's update over it."""

import threading
import time

import numpy as np
import pytest

import graphcore as tf
from graphcore.kernels import intra_op


@pytest.fixture
def two_threads():
    before = intra_op.threads()
    intra_op.set_threads(2)
    yield
    intra_op.set_threads(before)


def test_ranges_cover_everything_once(two_threads):
    n = intra_op.MIN_ELEMENTS * 3 + 7
    hits = np.zeros(n, np.int64)
    seen_threads = set()

    def fn(lo, hi):
        hits[lo:hi] += 1
        seen_threads.add(threading.get_ident())
        time.sleep(0.01)  # (long enough for the pool thread to take some)

    intra_op.map_ranges(fn, n)
    assert (hits == 1).all()
    assert len(seen_threads) == 2


def test_a_pool_thread_that_never_starts_leaves_its_ranges_to_the_caller(two_threads):
    """As when other processes hold the cores: the caller takes every range and does
    not wait for the busy pool thread."""
    n = intra_op.MIN_ELEMENTS * 2
    hits = np.zeros(n, np.int64)
    release = threading.Event()
    busy = intra_op._get_pool().submit(release.wait, 10)
    try:
        intra_op.map_ranges(lambda lo, hi: hits.__setitem__(slice(lo, hi), hits[lo:hi] + 1),
                            n)
        assert (hits == 1).all() and not release.is_set()
    finally:
        release.set()
        busy.result()


def test_small_work_stays_on_the_callers_thread(two_threads):
    calls = []
    intra_op.map_ranges(lambda lo, hi: calls.append((lo, hi, threading.get_ident())), 100)
    assert calls == [(0, 100, threading.get_ident())]


def test_an_error_in_any_range_is_raised(two_threads):
    def fn(lo, hi):
        if lo > 0:
            raise ValueError("second range failed")

    with pytest.raises(ValueError, match="second range"):
        intra_op.map_ranges(fn, intra_op.MIN_ELEMENTS * 2)


def test_set_threads_zero_means_one_per_core():
    before = intra_op.threads()
    try:
        intra_op.set_threads(0)
        assert intra_op.threads() >= 1
    finally:
        intra_op.set_threads(before)


def test_session_config_sets_the_intra_op_threads():
    before = intra_op.threads()
    try:
        with tf.Session(config=tf.ConfigProto(intra_op_parallelism_threads=3)):
            assert intra_op.threads() == 3
    finally:
        intra_op.set_threads(before)


@pytest.mark.parametrize("make_opt", [
    lambda: tf.train.AdamOptimizer(0.01),
    lambda: tf.train.GradientDescentOptimizer(0.1),
    lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
    lambda: tf.train.RMSPropOptimizer(0.01, centered=True),
])
def test_a_large_update_split_over_threads_equals_the_one_thread_update(make_opt):
    rng = np.random.default_rng(0)
    shape = (700, 600)  # above MIN_ELEMENTS, not a multiple of the split
    init = rng.standard_normal(shape).astype(np.float32)
    grads = [rng.standard_normal(shape).astype(np.float32) for _ in range(3)]
    results = {}
    before = intra_op.threads()
    try:
        for threads in (1, 2):
            intra_op.set_threads(threads)
            with tf.Graph().as_default():
                v = tf.Variable(init)
                g = tf.placeholder(tf.float32, shape)
                train = make_opt().apply_gradients([(g, v)])
                with tf.Session() as sess:
                    sess.run(tf.global_variables_initializer())
                    for gv in grads:
                        sess.run(train, {g: gv})
                    results[threads] = sess.run(v)
    finally:
        intra_op.set_threads(before)
    assert results[1].shape == shape
    np.testing.assert_array_equal(results[1], results[2])


def test_split_elementwise_kernels_equal_one_call_and_keep_the_error_state(two_threads):
    """intra_op.elementwise: the split computes each range into one output, bit-equal to
    one call; the pool threads run under the caller's numpy error state; whether a size
    splits follows TeamTimings (its first calls alternate: split, one thread)."""
    calls = []

    def fn(x):
        calls.append((threading.get_ident(), x.size))
        return np.log(x)

    split = intra_op.elementwise(fn)
    x = np.random.default_rng(0).standard_normal(intra_op.COSTLY_MIN_ELEMENTS * 2 + 3)
    x = x.astype(np.float32)
    with np.errstate(all="ignore"):
        want = np.log(x)
        first = split(x)  # (the first call of a size splits)
    assert len(calls) > 1 and sum(n for _, n in calls) == x.size
    np.testing.assert_array_equal(first, want)
    calls.clear()
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(split(x), want)  # (then one thread)
    assert len(calls) == 1
    with np.errstate(invalid="raise"), pytest.raises(FloatingPointError):
        split(x)  # a split call: log of negatives raises in whichever thread
    small = x[:100]
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(split(small), np.log(small))


def test_transcendental_kernels_split_large_inputs_with_the_same_values(two_threads):
    x = np.random.default_rng(1).standard_normal((300, 500)).astype(np.float32) * 5
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32)
        ops = [tf.exp(p), tf.tanh(p), tf.sigmoid(p), tf.nn.softplus(p), tf.nn.elu(p),
               tf.nn.selu(p), tf.log1p(tf.abs(p)), tf.math.expm1(p), tf.sin(p)]
        with tf.Session() as sess:
            runs = [sess.run(ops, {p: x}) for _ in range(4)]  # split and not, in turn
    for a, b in zip(runs[0], runs[1]):
        np.testing.assert_array_equal(a, b)


def test_philox_distributions_split_over_threads_give_the_same_values(two_threads):
    """Random kernels shard their groups over the intra-op threads (each group depends on
    its counter alone): split and one-thread draws of the same generator state agree."""
    from graphcore.kernels import philox

    size = philox._SPLITTER.min_elements * 4 * 2 + 5
    for draw in (philox.uniform, philox.normal):
        for dtype in (np.float32, np.float64):
            runs = [draw(philox.Philox.from_seeds(7, 11), size, dtype) for _ in range(4)]
            assert runs[0].shape == (size,)
            for r in runs[1:]:
                np.testing.assert_array_equal(r, runs[0])
    blocks = [philox.Philox.from_seeds(3, 4).blocks(np.arange(size // 4, dtype=np.uint64))
              for _ in range(2)]
    np.testing.assert_array_equal(blocks[0], blocks[1])
