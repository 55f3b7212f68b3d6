"""The stateful random ops draw TF's Philox stream: the same values as TF's CPU kernels for
each seed setting, and successive runs in one session advance the stream as TF's."""

from __future__ import annotations

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
tf1 = tf.compat.v1

import graphcore as gc  # noqa: E402

# TF1's Keras (tf_keras' v1 API), as tf.keras is in a TF1 script.
tf_keras = pytest.importorskip("tf_keras.api._v1.keras")


def _uniform(m, seed, shape, dtype):
    return m.random_uniform(shape, seed=seed, dtype=getattr(m, dtype))


def _uniform_range(m, seed, shape, dtype):
    return m.random_uniform(shape, -2.0, 5.0, seed=seed, dtype=getattr(m, dtype))


def _normal(m, seed, shape, dtype):
    return m.random_normal(shape, seed=seed, dtype=getattr(m, dtype))


def _truncated(m, seed, shape, dtype):
    return m.truncated_normal(shape, seed=seed, dtype=getattr(m, dtype))


def _uniform_int(m, seed, shape, dtype):
    hi = 10**12 if dtype == "int64" else 1000
    return m.random_uniform(shape, -7, hi, seed=seed, dtype=getattr(m, dtype))


CASES = [
    (_uniform, "float32", [7, 3]),
    (_uniform, "float64", [5]),
    (_uniform, "float16", [9]),
    (_uniform, "bfloat16", [6]),
    (_uniform_range, "float32", [6]),
    (_normal, "float32", [2, 9]),
    (_normal, "float64", [7]),
    (_truncated, "float32", [3, 337]),
    (_truncated, "float64", [301]),
    (_truncated, "float16", [13]),
    (_uniform_int, "int32", [11]),
    (_uniform_int, "int64", [5]),
]
# (graph-level seed, op seed): graph seed only, op seed only, both.
SEEDS = [(7, None), (None, 3), (0, 3)]


def _runs(m, build, graph_seed, runs=2):
    graph = m.Graph()
    with graph.as_default():
        if graph_seed is not None:
            m.set_random_seed(graph_seed)
        out = build(m)
    with m.Session(graph=graph) as sess:
        return [sess.run(out) for _ in range(runs)]


def _check(mine, ref):
    assert mine.dtype == ref.dtype and mine.shape == ref.shape
    if ref.dtype.kind in "iu" or ref.dtype.itemsize == 2:
        np.testing.assert_array_equal(mine.astype(np.float64), ref.astype(np.float64))
    else:
        # TF's float Box-Muller uses libm float math: equal to within an ulp or two.
        np.testing.assert_allclose(mine, ref, rtol=3e-7 if ref.dtype == np.float32
                                   else 1e-14, atol=1e-7 if ref.dtype == np.float32 else 0)


@pytest.mark.parametrize("seeds", SEEDS, ids=str)
@pytest.mark.parametrize("fn,dtype,shape", CASES,
                         ids=[f"{c[0].__name__}-{c[1]}" for c in CASES])
def test_random_ops_match_tf(fn, dtype, shape, seeds):
    graph_seed, op_seed = seeds

    def build(m):
        return fn(m, op_seed, shape, dtype)

    mine = _runs(gc, build, graph_seed)
    ref = _runs(tf1, build, graph_seed)
    for a, b in zip(mine, ref):
        _check(a, b)
    assert not np.array_equal(mine[0], mine[1])  # the stream advanced


def test_uniform_float_exact_and_large():
    # Uniform float32 is bit-exact; a large draw covers many groups.
    def build(m):
        return m.random_uniform([100003], seed=11)

    np.testing.assert_array_equal(_runs(gc, build, 1, 1)[0], _runs(tf1, build, 1, 1)[0])


def _keras(m):
    return m.keras if m is gc else tf_keras


INITIALIZERS = [
    ("glorot_uniform", lambda m: m.glorot_uniform_initializer(seed=4), [7, 5]),
    ("truncated_normal", lambda m: m.truncated_normal_initializer(stddev=0.3, seed=5),
     [4, 9]),
    ("keras_random_uniform",
     lambda m: _keras(m).initializers.RandomUniform(-0.5, 0.5, seed=6), [3, 11]),
    ("keras_glorot_normal", lambda m: _keras(m).initializers.glorot_normal(seed=8), [6, 6]),
]


@pytest.mark.parametrize("name,make,shape", INITIALIZERS, ids=[i[0] for i in INITIALIZERS])
def test_seeded_initializers_match_tf(name, make, shape):
    def build(m):
        var = m.get_variable("w", shape=shape, initializer=make(m))
        return var, m.global_variables_initializer()

    def value(m):
        graph = m.Graph()
        with graph.as_default():
            var, init = build(m)
        with m.Session(graph=graph) as sess:
            sess.run(init)
            return sess.run(var)

    _check(value(gc), value(tf1))


STATELESS = [
    ("uniform", lambda m, s: m.random.stateless_uniform([7, 3], seed=s)),
    ("uniform_f64", lambda m, s: m.random.stateless_uniform([5], seed=s, dtype=m.float64)),
    ("normal", lambda m, s: m.random.stateless_normal([9], seed=s)),
    ("normal_f64", lambda m, s: m.random.stateless_normal([3], seed=s, dtype=m.float64)),
    ("truncated", lambda m, s: m.random.stateless_truncated_normal([2, 301], seed=s)),
    ("int32", lambda m, s: m.random.stateless_uniform([11], seed=s, minval=-4, maxval=99,
                                                      dtype=m.int32)),
    ("int64_full", lambda m, s: m.random.stateless_uniform([5], seed=s, minval=None,
                                                           maxval=None, dtype=m.int64)),
    ("v1_uniform", lambda m, s: m.raw_ops.StatelessRandomUniform(shape=[6], seed=s)),
    ("v1_truncated", lambda m, s: m.raw_ops.StatelessTruncatedNormal(shape=[9], seed=s)),
    ("v1_int64", lambda m, s: m.raw_ops.StatelessRandomUniformInt(
        shape=[5], seed=s, minval=m.constant(-9, m.int64), maxval=m.constant(2**40, m.int64))),
    ("key_counter", lambda m, s: m.raw_ops.StatelessRandomGetKeyCounter(seed=s)),
]


@pytest.mark.parametrize("name,build", STATELESS, ids=[c[0] for c in STATELESS])
def test_stateless_random_ops_match_tf(name, build):
    def run(m):
        graph = m.Graph()
        with graph.as_default():
            out = build(m, m.constant([7, -3], dtype=m.int64))
        with m.Session(graph=graph) as sess:
            return sess.run(out)

    mine, ref = run(gc), run(tf1)
    for a, b in zip(mine if name == "key_counter" else [mine],
                    ref if name == "key_counter" else [ref]):
        _check(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("shape", [(11,), (9, 2), (2, 3, 2)], ids=str)
def test_random_shuffle_matches_tf(shape):
    def build(m):
        return m.random_shuffle(np.arange(np.prod(shape)).reshape(shape), seed=5)

    for a, b in zip(_runs(gc, build, 2), _runs(tf1, build, 2)):
        np.testing.assert_array_equal(a, b)


def test_dropout_matches_tf():
    def build(m):
        return m.nn.dropout(m.ones([5, 7]), rate=0.4, seed=9)

    for a, b in zip(_runs(gc, build, 1), _runs(tf1, build, 1)):
        np.testing.assert_allclose(a, b, rtol=1e-6)


@pytest.mark.parametrize("stateless", [False, True], ids=["multinomial", "stateless"])
def test_multinomial_matches_tf_small_batch(stateless):
    # TF's kernel draws rows in sequence when it runs the batch as one shard (small
    # batches); bigger batches are split across its threads, machine-dependently.
    logits = np.random.RandomState(0).randn(4, 50).astype(np.float32)
    logits[0, 1] = -np.inf

    def build(m):
        if stateless:
            return m.random.stateless_categorical(logits, 33, seed=[4, 5])
        return m.multinomial(logits, 33, seed=2)

    for a, b in zip(_runs(gc, build, 3), _runs(tf1, build, 3)):
        np.testing.assert_array_equal(a, b)
