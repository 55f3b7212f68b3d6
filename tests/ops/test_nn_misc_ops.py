"""TF-free tests of the tf.nn/tf.math families added beside nn_ops (activations, special
functions, top_k, space ops, fused batch norm, LRN, candidate samplers, CTC): values against
closed forms or brute force, gradients against finite differences."""

import itertools

import numpy as np
import pytest
from scipy import special

import graphcore as tf
from graphcore.ops import gradient_checker

RNG = np.random.default_rng(2)


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


@pytest.mark.parametrize("fn,reference", [
    (lambda x: tf.nn.leaky_relu(x, 0.1), lambda x: np.where(x > 0, x, 0.1 * x)),
    (tf.nn.selu, lambda x: 1.0507009873554805 * np.where(
        x > 0, x, 1.6732632423543772 * np.expm1(x))),
    (tf.nn.softsign, lambda x: x / (1 + np.abs(x))),
    (tf.nn.swish, lambda x: x * special.expit(x)),
    (tf.math.bessel_i1e, special.i1e),
    (tf.math.special.dawsn, special.dawsn),
    (lambda x: tf.math.xlog1py(x, x * x), lambda x: x * np.log1p(x * x)),
    (lambda x: tf.math.cumulative_logsumexp(x, axis=1),
     lambda x: np.logaddexp.accumulate(x, axis=1)),
])
def test_elementwise_values_and_gradients(fn, reference):
    x = RNG.normal(size=(3, 4)) + 0.05
    with tf.Graph().as_default():
        xt = tf.constant(x)
        y = fn(xt)
        # attrs such as alpha are float32, as in TF
        np.testing.assert_allclose(_run(y), reference(x), rtol=1e-7, atol=1e-12)
        with tf.Session():
            error = gradient_checker.compute_gradient_error(xt, [3, 4], y, [3, 4],
                                                            x_init_value=x)
    assert error < 1e-6


def test_top_k_sort_and_approx_top_k_keep_the_lower_index_first():
    x = np.array([[3, 1, 3, 2], [5, 5, 5, 5]], np.float32)
    with tf.Graph().as_default():
        values, indices = tf.nn.top_k(x, 3)
        approx = tf.math.approx_min_k(x, 2)
        got = _run([values, indices, tf.argsort(x), tf.sort(x, direction="DESCENDING"),
                    approx.indices])
    np.testing.assert_array_equal(got[0], [[3, 3, 2], [5, 5, 5]])
    np.testing.assert_array_equal(got[1], [[0, 2, 3], [0, 1, 2]])
    np.testing.assert_array_equal(got[2], [[1, 3, 0, 2], [0, 1, 2, 3]])
    np.testing.assert_array_equal(got[3], [[3, 3, 2, 1], [5, 5, 5, 5]])
    np.testing.assert_array_equal(got[4], [[1, 3], [0, 1]])


def test_space_ops_round_trip_and_layout():
    x = np.arange(2 * 4 * 6 * 3, dtype=np.float32).reshape(2, 4, 6, 3)
    with tf.Graph().as_default():
        s2b = tf.space_to_batch_nd(x, [2, 3], [[0, 0], [1, 2]])
        back = tf.batch_to_space_nd(s2b, [2, 3], [[0, 0], [1, 2]])
        s2d = tf.space_to_depth(x, 2)
        d2s = tf.depth_to_space(s2d, 2)
        got = _run([s2b, back, s2d, d2s])
    assert got[0].shape == (12, 2, 3, 3)
    padded = np.pad(x, [(0, 0), (0, 0), (1, 2), (0, 0)])
    # Batch entry (i * 3 + j) * 2 + n holds padded[n, i::2, j::3].
    np.testing.assert_array_equal(got[0][(1 * 3 + 2) * 2 + 1], padded[1, 1::2, 2::3])
    np.testing.assert_array_equal(got[1], x)
    np.testing.assert_array_equal(got[2][0, 0, 0], x[0, :2, :2].reshape(-1))
    np.testing.assert_array_equal(got[3], x)


def test_fused_batch_norm_and_lrn_against_numpy():
    x = RNG.normal(size=(2, 3, 3, 4)).astype(np.float32)
    scale, offset = np.array([1.0, 2.0, 0.5, 1.5], np.float32), np.zeros(4, np.float32)
    with tf.Graph().as_default():
        y, mean, var = tf.nn.fused_batch_norm(x, scale, offset, epsilon=1e-3)
        lrn = tf.nn.lrn(x, depth_radius=1, bias=2.0, alpha=0.5, beta=0.75)
        got = _run([y, mean, var, lrn])
    m, v = x.mean((0, 1, 2)), x.var((0, 1, 2))
    np.testing.assert_allclose(got[0], (x - m) / np.sqrt(v + 1e-3) * scale, rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(got[1], m, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[2], v * 18 / 17, rtol=1e-5)
    sq = np.pad(x * x, [(0, 0)] * 3 + [(1, 1)])
    window = sq[..., :-2] + sq[..., 1:-1] + sq[..., 2:]
    np.testing.assert_allclose(got[3], x / (2.0 + 0.5 * window) ** 0.75, rtol=1e-5)


def test_fused_batch_norm_gradient_matches_finite_differences():
    x = RNG.normal(size=(2, 2, 2, 3)).astype(np.float32)
    with tf.Graph().as_default():
        xt = tf.constant(x)
        y = tf.nn.fused_batch_norm(xt, [1.0, 2.0, 3.0], [0.0, 0.1, 0.2])[0] * x
        with tf.Session():
            error = gradient_checker.compute_gradient_error(xt, x.shape, y, x.shape,
                                                            x_init_value=x, delta=1e-2)
    assert error < 2e-2


def test_all_candidate_sampler_and_accidental_hits():
    true = np.array([[0, 4], [2, 1]], np.int64)
    with tf.Graph().as_default():
        sampled = tf.nn.all_candidate_sampler(true, 2, 5, True)
        hits = tf.nn.compute_accidental_hits(true, [4, 3, 1], 2)
        got = _run([list(sampled), list(hits)])
    np.testing.assert_array_equal(got[0][0], np.arange(5))
    np.testing.assert_array_equal(got[0][1], np.ones((2, 2)))
    np.testing.assert_array_equal(got[1][0], [0, 1])
    np.testing.assert_array_equal(got[1][1], [0, 2])
    assert (got[1][2] == np.finfo(np.float32).min).all()


def _brute_force_ctc(logits, label, blank):
    """-log of the summed probability of every alignment that collapses to ``label``."""
    p = special.softmax(logits, axis=1)
    total = 0.0
    for path in itertools.product(range(logits.shape[1]), repeat=logits.shape[0]):
        collapsed = [c for i, c in enumerate(path) if (i == 0 or c != path[i - 1])]
        if [c for c in collapsed if c != blank] == list(label):
            total += np.prod(p[np.arange(len(path)), path])
    return -np.log(total)


def test_ctc_loss_equals_brute_force_and_decoders_agree():
    logits = RNG.normal(size=(4, 2, 3))
    labels = ([[0, 0], [0, 1], [1, 0]], np.array([1, 0, 1], np.int32), [2, 2])
    with tf.Graph().as_default():
        x = tf.constant(logits)
        loss = tf.nn.ctc_loss(tf.SparseTensor(*labels), x, [4, 3])
        with tf.Session():
            error = gradient_checker.compute_gradient_error(x, [4, 2, 3], loss, [2],
                                                            x_init_value=logits)
        (greedy,), _ = tf.nn.ctc_greedy_decoder(x, [4, 3])
        (beam,), _ = tf.nn.ctc_beam_search_decoder(x, [4, 3], beam_width=1)
        got = _run([loss, greedy.values])
    np.testing.assert_allclose(got[0], [_brute_force_ctc(logits[:, 0], [1, 0], 2),
                                        _brute_force_ctc(logits[:3, 1], [1], 2)], rtol=1e-10)
    assert error < 1e-6
    best = logits.argmax(axis=2)
    want = []
    for b, length in enumerate([4, 3]):
        path = best[:length, b]
        want += [int(c) for i, c in enumerate(path) if c != 2 and (i == 0 or c != path[i - 1])]
    np.testing.assert_array_equal(got[1], want)
