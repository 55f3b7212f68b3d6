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
}


def _run(lib, case):
    with lib.Graph().as_default() as g:
        out = CASES[case](lib)
        with lib.Session() as sess:
            first, second = sess.run(out), sess.run(out)
        ops = sorted({n.op for n in g.as_graph_def().node if n.op.startswith(
            ("Random", "Multinomial", "Stateless"))})
    return first, second, ops


@pytest.mark.parametrize("case", sorted(CASES))
def test_distributions_match_tf(case):
    ours, ours_again, our_ops = _run(tf, case)
    theirs, _, their_ops = _run(tf1, case)
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    assert our_ops == their_ops or case.startswith("stateless")
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
