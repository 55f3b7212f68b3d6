"""Random ops: shapes, dtypes, distributions and TF's seed rules (graphcore/ops/random_ops.py)."""

import numpy as np
import pytest

import graphcore as tf
from graphcore import errors
from graphcore.ops import math_ops

needs_math = pytest.mark.skipif(not hasattr(math_ops, "multiply"),
                                reason="needs math_ops.multiply / Mul")


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def test_get_seed_rules():
    g = tf.get_default_graph()
    assert tf.get_seed(None) == (None, None)
    assert tf.get_seed(7) == (87654321, 7)
    tf.set_random_seed(5)
    assert g.seed == 5
    assert tf.get_seed(None) == (5, 0)
    assert tf.get_seed(None) == (5, 1)
    assert tf.get_seed(9) == (5, 9)
    tf.set_random_seed(0)
    assert tf.get_seed(0) == (0, 2**31 - 1)
    assert tf.get_seed(2**31 + 3) == (0, 4)
    with tf.Graph().as_default():
        assert tf.get_seed(None) == (None, None)


def test_seed_attrs_on_ops():
    r = tf.random_uniform([2])
    assert (r.op.get_attr("seed"), r.op.get_attr("seed2")) == (0, 0)
    tf.set_random_seed(3)
    a, b = tf.random_uniform([2]), tf.random_uniform([2], seed=11)
    assert (a.op.get_attr("seed"), a.op.get_attr("seed2")) == (3, 0)
    assert (b.op.get_attr("seed"), b.op.get_attr("seed2")) == (3, 11)
    s = tf.random_shuffle([1, 2, 3], seed=4)
    assert s.op.type == "RandomShuffle" and s.op.get_attr("seed2") == 4
    assert s.op._is_stateful if hasattr(s.op, "_is_stateful") else True


def test_random_uniform_default_structure_and_range():
    r = tf.random_uniform([300, 40], seed=1)
    assert r.op.name == "random_uniform/RandomUniform" and r.dtype == tf.float32
    assert r.op.inputs[0].op.name == "random_uniform/shape"
    assert r.shape.as_list() == [300, 40]
    v = _run(r)
    assert v.dtype == np.float32 and v.shape == (300, 40)
    assert v.min() >= 0 and v.max() < 1
    assert abs(v.mean() - 0.5) < 0.02 and abs(v.std() - np.sqrt(1 / 12)) < 0.01
    d = _run(tf.random_uniform([1000], dtype=tf.float64, seed=2))
    assert d.dtype == np.float64
    h = _run(tf.random_uniform([10], dtype=tf.float16, seed=2))
    assert h.dtype == np.float16


def test_random_uniform_int():
    r = tf.random_uniform([5000], minval=-3, maxval=4, dtype=tf.int32, seed=3)
    assert r.op.type == "RandomUniformInt" and r.op.name == "random_uniform"
    assert r.shape.as_list() == [5000]
    v = _run(r)
    assert v.dtype == np.int32 and v.min() == -3 and v.max() == 3
    assert np.all(np.abs(np.bincount(v + 3) / 5000 - 1 / 7) < 0.03)
    assert _run(tf.random_uniform([3], maxval=10, dtype=tf.int64)).dtype == np.int64
    with pytest.raises(ValueError, match="maxval"):
        tf.random_uniform([2], dtype=tf.int32)
    with pytest.raises(ValueError, match="dtype"):
        tf.random_uniform([2], dtype=tf.string)
    bad = tf.random_uniform([2], minval=5, maxval=5, dtype=tf.int32)
    with pytest.raises(errors.InvalidArgumentError, match="Need minval < maxval"):
        _run(bad)


@needs_math
def test_random_uniform_range_normal_truncated():
    u = tf.random_uniform([4000], -2.0, 6.0, seed=1)
    assert u.op.name == "random_uniform" and u.op.type == "AddV2"
    n = tf.random_normal([4000], mean=3.0, stddev=2.0, seed=1)
    assert n.op.name == "random_normal"
    assert n.op.inputs[0].op.inputs[0].op.type == "RandomStandardNormal"
    t = tf.truncated_normal([20000], mean=-1.0, stddev=0.5, seed=1, dtype=tf.float64)
    assert t.op.name == "truncated_normal" and t.dtype == tf.float64
    m = tf.random_uniform([10], maxval=3.0)
    assert m.op.name == "random_uniform_1/Mul"  # the graph's second random_uniform
    uv, nv, tv, mv = _run([u, n, t, m])
    assert uv.min() >= -2 and uv.max() < 6 and abs(uv.mean() - 2) < 0.15
    assert abs(nv.mean() - 3) < 0.1 and abs(nv.std() - 2) < 0.1
    assert tv.min() >= -2.0 and tv.max() <= 0.0
    # a standard normal truncated at +-2 has std 0.8796
    assert abs(tv.mean() + 1) < 0.01 and abs(tv.std() - 0.5 * 0.87962566) < 0.01
    assert mv.max() < 3.0


def test_truncated_normal_kernel_bounds():
    from graphcore.framework.op_def_library import apply_op

    t = apply_op("TruncatedNormal", shape=[50000], dtype=tf.float32, seed=1, seed2=2).outputs[0]
    v = _run(t)
    assert v.dtype == np.float32 and np.abs(v).max() <= 2.0
    assert abs(v.std() - 0.87962566) < 0.01
    n = apply_op("RandomStandardNormal", shape=[50000], dtype=tf.float64, seed=1,
                 seed2=2).outputs[0]
    nv = _run(n)
    assert abs(nv.mean()) < 0.02 and abs(nv.std() - 1) < 0.02 and np.abs(nv).max() > 3


def test_same_seed_same_values_new_session_and_steps_differ():
    tf.set_random_seed(42)
    r = tf.random_uniform([6])
    s = tf.random_shuffle(np.arange(10))
    with tf.Session() as sess:
        first = sess.run([r, s])
        second = sess.run([r, s])
        alone = sess.run(r)
    with tf.Session() as sess:
        again = sess.run([r, s])
        again2 = sess.run(r)
    np.testing.assert_array_equal(first[0], again[0])
    np.testing.assert_array_equal(first[1], again[1])
    np.testing.assert_array_equal(second[0], again2)
    assert not np.array_equal(first[0], second[0])
    assert not np.array_equal(alone, second[0])
    assert sorted(first[1].tolist()) == list(range(10))


def test_seed_rules_across_graphs():
    def build(graph_seed, op_seed):
        with tf.Graph().as_default() as g:
            if graph_seed is not None:
                tf.set_random_seed(graph_seed)
            r = tf.random_uniform([8], seed=op_seed)
            with tf.Session(graph=g) as sess:
                return sess.run(r)

    np.testing.assert_array_equal(build(1, None), build(1, None))
    np.testing.assert_array_equal(build(None, 3), build(None, 3))
    np.testing.assert_array_equal(build(2, 3), build(2, 3))
    assert not np.array_equal(build(1, None), build(2, None))
    assert not np.array_equal(build(2, 3), build(2, 4))
    assert not np.array_equal(build(None, None), build(None, None))


def test_two_seedless_ops_under_graph_seed_differ():
    tf.set_random_seed(7)
    a, b = tf.random_uniform([5]), tf.random_uniform([5])
    va, vb = _run([a, b])
    assert not np.array_equal(va, vb)


def test_random_shuffle_shapes():
    x = np.arange(12).reshape(6, 2)
    s = tf.random_shuffle(x, seed=1)
    assert s.shape.as_list() == [6, 2] and s.dtype == tf.int64
    v = _run(s)
    assert sorted(map(tuple, v.tolist())) == sorted(map(tuple, x.tolist()))
    assert _run(tf.random_shuffle(5.0)) == 5.0


def test_shape_inference_from_shape_tensors():
    ph = tf.placeholder(tf.int32, [3])
    assert tf.random_uniform(ph).shape.as_list() == [None, None, None]
    assert tf.random_uniform(tf.placeholder(tf.int32)).shape.ndims is None
    assert tf.random_uniform(tf.stack([2, tf.placeholder(tf.int32, [])])).shape.as_list() == \
        [2, None]
    assert tf.random_uniform([]).shape.as_list() == []
    assert tf.random_uniform(tf.TensorShape([2, 3])).shape.as_list() == [2, 3]
    with pytest.raises(ValueError, match="rank 1"):
        tf.random_uniform(tf.placeholder(tf.int32, [2, 2]))
    v = _run(tf.random_uniform(ph), {ph: [2, 1, 3]})
    assert v.shape == (2, 1, 3)
    with pytest.raises(errors.InvalidArgumentError):
        _run(tf.random_uniform(ph), {ph: [2, -1, 3]})


def test_random_ops_not_differentiable():
    from graphcore.framework import gradient_registry

    for op_type in ("RandomUniform", "RandomStandardNormal", "TruncatedNormal",
                    "RandomUniformInt", "RandomShuffle"):
        assert gradient_registry.registered_gradients()[op_type] is None
