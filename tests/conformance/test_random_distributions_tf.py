"""Reference tier: the random distributions (graphcore/ops/random_distribution_ops.py)
against TensorFlow's compat.v1 — op types, shapes and dtypes equal; sample moments
within sampling error of TF's (the streams differ: numpy's, not Philox); stateless ops
repeat for the same seed. Skipped without TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

CASES = {
    "multinomial": lambda t: t.cast(t.multinomial(t.log([[0.2, 0.8], [0.7, 0.3]]), 4000,
                                                  seed=1), t.float32),
    "categorical": lambda t: t.cast(t.random.categorical(t.log([[0.5, 0.25, 0.25]]), 4000,
                                                         seed=2), t.float32),
    "gamma": lambda t: t.random_gamma([4000], [0.5, 3.0], beta=[2.0, 1.0], seed=3),
    "poisson": lambda t: t.random_poisson([1.5, 7.0], [4000], seed=4),
    "stateless_uniform": lambda t: t.random.stateless_uniform([4000, 2], seed=[1, 2],
                                                              minval=-1.0, maxval=3.0),
    "stateless_normal": lambda t: t.random.stateless_normal([4000, 2], seed=[3, 4],
                                                            mean=1.0, stddev=2.0),
    "stateless_truncated_normal": lambda t: t.random.stateless_truncated_normal(
        [4000, 2], seed=[5, 6]),
    "stateless_binomial": lambda t: t.cast(t.random.stateless_binomial(
        [4000, 2], [1, 2], counts=[10.0, 20.0], probs=[0.3, 0.6]), t.float32),
    "stateless_gamma": lambda t: t.random.stateless_gamma([4000, 2], [3, 4], alpha=[0.5, 3.0],
                                                          beta=[2.0, 1.0]),
    "stateless_poisson": lambda t: t.cast(t.random.stateless_poisson(
        [4000, 2], [5, 6], lam=[1.5, 7.0]), t.float32),
    "stateless_parameterized_truncated_normal":
        lambda t: t.random.stateless_parameterized_truncated_normal(
            [4000, 2], [7, 8], means=[0.0, 1.0], stddevs=[1.0, 2.0], minvals=[-1.0, 0.0],
            maxvals=[1.0, 5.0]),
    "generator_normal": lambda t: t.random.Generator.from_seed(1).normal([4000, 2], mean=1.0,
                                                                         stddev=2.0),
    "generator_uniform": lambda t: t.random.Generator.from_seed(2, alg="philox").uniform(
        [4000, 2], minval=-1.0, maxval=3.0),
    "generator_uniform_int": lambda t: t.cast(t.random.Generator.from_seed(3).uniform(
        [4000, 2], maxval=10, dtype=t.int32), t.float32),
    "generator_truncated_normal": lambda t: t.random.Generator.from_seed(
        4, alg=t.random.Algorithm.PHILOX).truncated_normal([4000, 2]),
    "generator_binomial": lambda t: t.cast(t.random.Generator.from_seed(5).binomial(
        [4000, 2], counts=[10.0, 20.0], probs=[0.3, 0.6]), t.float32),
}


def _run(lib, case):
    with lib.Graph().as_default() as g:
        out = CASES[case](lib)
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            first, second = sess.run(out), sess.run(out)
        ops = sorted({n.op for n in g.as_graph_def().node if n.op.startswith(
            ("Random", "Multinomial", "Stateless"))})
    return first, second, ops


@pytest.mark.parametrize("case", sorted(CASES))
def test_distributions_match_tf(case):
    ours, ours_again, our_ops = _run(tf, case)
    theirs, _, their_ops = _run(tf1, case)
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    assert our_ops == their_ops
    axis = 1 if case in ("multinomial", "categorical") else 0
    np.testing.assert_allclose(ours.mean(axis=axis), theirs.mean(axis=axis), rtol=0.1,
                               atol=0.05)
    np.testing.assert_allclose(ours.std(axis=axis), theirs.std(axis=axis), rtol=0.1,
                               atol=0.05)
    if case.startswith("stateless"):
        np.testing.assert_array_equal(ours, ours_again)
    else:
        assert not np.array_equal(ours, ours_again)


def test_random_crop_takes_a_window_of_the_value():
    value = np.arange(20).reshape(4, 5)
    with tf.Session() as sess:
        crop = sess.run(tf.random_crop(value, [2, 3], seed=7))
    r, c = np.argwhere(value == crop[0, 0])[0]
    np.testing.assert_array_equal(crop, value[r:r + 2, c:c + 3])


def _seed_ops(lib):
    r = lib.random
    return {"split": r.split([1, 2], 3), "fold_in": r.fold_in([1, 2], 5),
            "split64": r.split(lib.constant([3, 4], lib.int64)),
            "experimental_split": r.experimental.stateless_split([1, 2]),
            "experimental_fold_in": r.experimental.stateless_fold_in([1, 2], 7),
            "shuffle": r.experimental.stateless_shuffle(lib.range(10), [1, 2]),
            "state_int": r.create_rng_state(5, "philox"),
            "state_big": r.create_rng_state(2**70 + 3, r.Algorithm.PHILOX),
            "state_list": r.create_rng_state([7, 8], "threefry"),
            "state_long": r.create_rng_state([1, 2, 3, 4], 1),
            "index_shuffle": r.experimental.index_shuffle(lib.range(50), [1, 2], 49),
            "index_shuffle_seeds": lib.random_index_shuffle(
                lib.constant([3, 3], lib.int64), lib.constant([[1, 2, 3], [3, 4, 5]], lib.int64),
                lib.constant(9, lib.int64)),
            "random_index_shuffle": lib.random_index_shuffle(
                lib.constant(7, lib.uint64), lib.constant([5, 6, 7], lib.uint64),
                lib.constant(2**40, lib.uint64), rounds=6)}


def test_seed_ops_match_tf():
    """split/fold_in: TF's shapes, dtypes and the data folded in; create_rng_state: TF's
    values (it does not draw); the shuffle is a permutation."""
    results = []
    for lib in (tf, tf1):
        with lib.Graph().as_default():
            out = _seed_ops(lib)
            with lib.Session() as sess:
                results.append(sess.run(out))
    ours, theirs = results
    for key in theirs:
        assert ours[key].shape == theirs[key].shape and ours[key].dtype == theirs[key].dtype
    for key in ("state_int", "state_big", "state_list", "state_long"):
        np.testing.assert_array_equal(ours[key], theirs[key])
    assert ours["fold_in"][1] == 5 and ours["experimental_fold_in"][1] == 7
    assert sorted(ours["shuffle"]) == list(range(10))
    assert sorted(ours["index_shuffle"]) == list(range(50))
    assert ours["random_index_shuffle"] <= 2**40
    assert [a.value for a in tf.random.Algorithm] == [a.value for a in tf1.random.Algorithm]
    assert [a.name for a in tf.random.Algorithm] == [a.name for a in tf1.random.Algorithm]


def test_generators_from_one_seed_agree_and_draws_move_on():
    with tf.Graph().as_default():
        a = tf.random.Generator.from_seed(11)
        b = tf.random.Generator.from_seed(11)
        d = tf.random.Generator.from_seed(12)
        c = tf.random.Generator(copy_from=d)
        x, y = a.normal([3]), b.normal([3])
        seeds = d.make_seeds(4)
        children = d.split(2)
        child_draws = [g.uniform([2]) for g in children]
        with tf.Session() as sess:
            # c's initial state is d's: unordered in one initializer run (TF's
            # initializer fails on it every time), so d first.
            sess.run(d.state.initializer)
            sess.run(tf.global_variables_initializer())
            first_x, first_y = sess.run([x, y])
            np.testing.assert_array_equal(first_x, first_y)
            assert not np.array_equal(first_x, sess.run(x))
            sess.run(tf.variables_initializer([g.state for g in children]))
            d0, d1 = sess.run(child_draws)
            assert not np.array_equal(d0, d1)
            assert sess.run(seeds).shape == (2, 4)
            sess.run(a.reset_from_seed(11))
            np.testing.assert_array_equal(sess.run(x), first_x)
            assert sess.run(c.state).shape == (3,)
    assert tf.random.get_global_generator() is tf.random.get_global_generator()


def test_random_errors_match_tf():
    for lib in (tf, tf1):
        with lib.Graph().as_default():
            with pytest.raises(ValueError, match="Dimension must be 2 but is 3"):
                lib.random.stateless_poisson([3], lib.constant([1, 2, 3]), lam=1.0)
            bad_shape = lib.random.stateless_binomial([3], [1, 2], counts=[1.0, 2.0], probs=0.5)
            threefry = lib.random.Generator.from_seed(5, alg="threefry").normal([3])
            with pytest.raises(ValueError, match=r"Seed must have shape \[3\] or \[n, 3\]"):
                lib.random_index_shuffle(1, lib.constant([1, 2]), 5)
            past_max = lib.random_index_shuffle(30, [1, 2, 3], 9)
            with lib.Session() as sess:
                sess.run(lib.global_variables_initializer())
                with pytest.raises(lib.errors.InvalidArgumentError):
                    sess.run(bad_shape)
                with pytest.raises(lib.errors.UnimplementedError, match="ThreeFry"):
                    sess.run(threefry)
                with pytest.raises(lib.errors.InvalidArgumentError,
                                   match="max_index must be >= index, but 9 < 30"):
                    sess.run(past_max)


def test_stateless_gamma_gradient_matches_tf():
    """Same samples are not available (the streams differ), so compare the implicit
    reparameterization gradient on each library's own samples: d sample / d alpha from
    RandomGammaGrad, summed over the sample dimensions, has the same mean."""
    results = []
    for lib in (tf, tf1):
        with lib.Graph().as_default():
            alpha = lib.constant([0.5, 2.0, 5.0])
            sample = lib.random.stateless_gamma([4000, 3], [1, 2], alpha=alpha)
            grad = lib.gradients(lib.reduce_sum(sample), alpha)[0]
            with lib.Session() as sess:
                results.append(sess.run(grad) / 4000)
    np.testing.assert_allclose(results[0], results[1], rtol=0.1)


def _stateless_graph(lib):
    with lib.Graph().as_default() as g:
        r = lib.random
        r.stateless_uniform([2], [1, 2], minval=-1.0, maxval=3.0)
        r.stateless_uniform([2], [1, 2], minval=1, maxval=5, dtype=lib.int32)
        r.stateless_uniform([2], [1, 2], minval=None, maxval=None, dtype=lib.int64)
        r.stateless_normal([2], [1, 2], mean=1.0, stddev=2.0)
        r.stateless_truncated_normal([2], [1, 2])
        return [(n.name, n.op, list(n.input)) for n in g.as_graph_def().node]


def test_stateless_graph_defs_match_tf():
    assert _stateless_graph(tf) == _stateless_graph(tf1)
