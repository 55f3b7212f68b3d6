"""The stateless random ops and tf.random.Generator without TensorFlow: same seed, same
values; moments of each distribution; shapes and dtypes."""

import numpy as np
import pytest

import graphcore as tf


def test_same_seed_same_values_and_distribution_moments():
    r = tf.random
    with tf.Graph().as_default():
        draws = {
            "binomial": r.stateless_binomial([20000], [1, 2], counts=10.0, probs=0.3),
            "gamma": r.stateless_gamma([20000], [1, 2], alpha=3.0, beta=2.0),
            "poisson": r.stateless_poisson([20000], [1, 2], lam=4.0),
            "truncated": r.stateless_parameterized_truncated_normal(
                [20000], [1, 2], means=1.0, stddevs=2.0, minvals=0.0, maxvals=3.0),
        }
        with tf.Session() as sess:
            first, second = sess.run(draws), sess.run(draws)
    for key in draws:
        np.testing.assert_array_equal(first[key], second[key])
    assert first["binomial"].dtype == np.int32 and first["poisson"].dtype == np.int32
    assert abs(first["binomial"].mean() - 3.0) < 0.1
    assert abs(first["gamma"].mean() - 1.5) < 0.05
    assert abs(first["poisson"].mean() - 4.0) < 0.1
    assert first["truncated"].min() >= 0.0 and first["truncated"].max() <= 3.0


def test_seed_ops_and_generator_streams():
    with tf.Graph().as_default():
        seeds = tf.random.split([7, 8], 4)
        folded = tf.random.fold_in([7, 8], 3)
        state = tf.random.create_rng_state(2**64 + 5, "philox")
        gen = tf.random.Generator.from_seed(3)
        twin = tf.random.Generator.from_seed(3)
        draw, twin_draw = gen.normal([1000]), twin.normal([1000])
        ints = gen.uniform([1000], minval=2, maxval=5, dtype=tf.int64)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            s, f, st, a, b, i = sess.run([seeds, folded, state, draw, twin_draw, ints])
            again = sess.run(draw)
    assert s.shape == (4, 2) and s.dtype == np.int32 and len({tuple(x) for x in s}) == 4
    assert f[1] == 3
    np.testing.assert_array_equal(st, [5, 1, 0])
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, again)
    assert set(np.unique(i)) == {2, 3, 4}


def test_threefry_generators_are_unimplemented_on_cpu():
    with tf.Graph().as_default():
        draw = tf.random.Generator.from_seed(1, alg="threefry").normal([2])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            with pytest.raises(tf.errors.UnimplementedError, match="ThreeFry"):
                sess.run(draw)


def test_index_shuffle_is_a_seeded_bijection():
    with tf.Graph().as_default():
        shuffled = tf.random.experimental.index_shuffle(tf.range(1000), [4, 5], 999)
        other = tf.random.experimental.index_shuffle(tf.range(1000), [4, 6], 999)
        big = tf.random_index_shuffle(tf.constant([0, 1], tf.int64), [1, 2, 3],
                                      tf.constant(2**62, tf.int64))
        with tf.Session() as sess:
            a, a_again, b, c = sess.run([shuffled, shuffled, other, big])
    assert sorted(a) == list(range(1000)) and sorted(b) == list(range(1000))
    np.testing.assert_array_equal(a, a_again)
    assert not np.array_equal(a, b)
    assert c[0] != c[1] and (0 <= c).all() and (c <= 2**62).all()
