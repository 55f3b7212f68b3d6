"""Convolution and pooling ops without TensorFlow (graphcore/ops/nn_conv_ops.py,
nn_pool_ops.py, nn_convolution_ops.py, nn_fractional_pool_ops.py): the channels-first
layouts against channels-last, finite-difference gradients in float64 (dilated ones
included, which TF's CPU kernels refuse), and the errors."""

import numpy as np
import pytest

import graphcore as tf
from graphcore.framework import errors
from graphcore.ops.gradient_checker import compute_gradient_error

RNG = np.random.default_rng(3)


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def _first(x):
    """NHWC / NDHWC -> NCHW / NCDHW."""
    return np.moveaxis(x, -1, 1)


CHANNELS_FIRST = {
    "conv2d": (lambda x, fmt: tf.nn.conv2d(x, W4, [1, 2, 2, 1] if fmt == "NHWC"
                                            else [1, 1, 2, 2], "SAME", data_format=fmt,
                                            dilations=1), (2, 7, 6, 3)),
    "conv3d": (lambda x, fmt: tf.nn.conv3d(x, W5, [1, 1, 1, 1, 1], "VALID", data_format=fmt),
               (2, 4, 5, 4, 3)),
    "depthwise": (lambda x, fmt: tf.nn.depthwise_conv2d_native(
        x, W4, [1, 1, 1, 1], "SAME", data_format=fmt,
        dilations=[1, 2, 2, 1] if fmt == "NHWC" else [1, 1, 2, 2]), (2, 7, 6, 3)),
    "max_pool": (lambda x, fmt: tf.nn.max_pool2d(x, 3, 2, "SAME", data_format=fmt),
                 (2, 7, 6, 3)),
    "avg_pool": (lambda x, fmt: tf.nn.avg_pool2d(x, 2, 1, "VALID", data_format=fmt),
                 (2, 7, 6, 3)),
    "max_pool3d": (lambda x, fmt: tf.nn.max_pool3d(x, 2, 2, "SAME", data_format=fmt),
                   (2, 5, 4, 4, 3)),
    "avg_pool3d": (lambda x, fmt: tf.nn.avg_pool3d(x, 2, 1, "SAME", data_format=fmt),
                   (2, 3, 4, 4, 3)),
}
W4 = RNG.normal(size=(3, 3, 3, 2)).astype(np.float32)
W5 = RNG.normal(size=(2, 2, 2, 3, 2)).astype(np.float32)


@pytest.mark.parametrize("case", sorted(CHANNELS_FIRST))
def test_channels_first_matches_channels_last(case):
    build, shape = CHANNELS_FIRST[case]
    x = RNG.normal(size=shape).astype(np.float32)
    last_format = "NHWC" if len(shape) == 4 else "NDHWC"
    first_format = "NCHW" if len(shape) == 4 else "NCDHW"
    with tf.Graph().as_default():
        last = build(tf.constant(x), last_format)
        first = build(tf.constant(_first(x)), first_format)
        assert first.shape.as_list() == list(_first(np.zeros(last.shape.as_list())).shape)
        want, got = _run([last, first])
    np.testing.assert_allclose(got, _first(want), rtol=1e-5, atol=1e-5)


def _err(build, value):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, value.shape)
        y = build(x)
        with tf.Session():
            return compute_gradient_error(x, list(value.shape), y, y.shape.as_list(),
                                          x_init_value=value)


X4 = RNG.normal(size=(1, 6, 5, 2))
X5 = RNG.normal(size=(1, 4, 4, 3, 2))
GRADS = {
    "conv3d_input": (lambda t: tf.nn.conv3d(t, RNG.normal(size=(2, 2, 2, 2, 3)),
                                            [1, 2, 1, 1, 1], "SAME"), X5),
    "conv3d_dilated_filter": (lambda t: tf.nn.conv3d(
        X5, t, [1, 1, 1, 1, 1], "VALID", dilations=[1, 2, 1, 2, 1]),
        RNG.normal(size=(2, 2, 1, 2, 2))),
    "conv1d_dilated": (lambda t: tf.nn.conv1d(t, RNG.normal(size=(2, 2, 3)), 1, "SAME",
                                              dilations=2), RNG.normal(size=(2, 7, 2))),
    "depthwise_input": (lambda t: tf.nn.depthwise_conv2d_native(
        t, RNG.normal(size=(3, 2, 2, 2)), [1, 2, 1, 1], "SAME"), X4),
    "depthwise_dilated_filter": (lambda t: tf.nn.depthwise_conv2d_native(
        X4, t, [1, 1, 1, 1], "VALID", dilations=[1, 2, 2, 1]), RNG.normal(size=(2, 2, 2, 3))),
    "conv2d_transpose_filter": (lambda t: tf.nn.conv2d_transpose(
        RNG.normal(size=(1, 3, 3, 2)), t, [1, 6, 6, 3], 2), RNG.normal(size=(3, 3, 3, 2))),
    "conv3d_transpose_input": (lambda t: tf.nn.conv3d_transpose(
        t, RNG.normal(size=(2, 2, 2, 3, 2)), [1, 4, 4, 4, 3], 2), RNG.normal(size=(1, 2, 2,
                                                                                   2, 2))),
    "dilation2d_input": (lambda t: tf.nn.dilation2d(t, RNG.normal(size=(2, 2, 2)) * 0.1,
                                                    [1, 1, 1, 1], [1, 2, 1, 1], "SAME"), X4),
    "dilation2d_filter": (lambda t: tf.nn.dilation2d(X4, t, [1, 2, 2, 1], [1, 1, 1, 1],
                                                     "VALID"), RNG.normal(size=(2, 3, 2))),
    "avg_pool3d": (lambda t: tf.nn.avg_pool3d(t, 2, [1, 1, 2, 1, 1], "SAME"), X5),
    "max_pool_with_argmax": (lambda t: tf.nn.max_pool_with_argmax(
        t, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")[0], X4),
    "max_pool_grad_grad": (lambda t: tf.gradients(
        tf.reduce_sum(tf.nn.max_pool(t, 2, 1, "VALID") ** 2), t)[0], X4),
    "pool_dilated": (lambda t: tf.nn.pool(t, [2, 2], "AVG", "VALID", dilation_rate=[2, 1]),
                     X4),
}


@pytest.mark.parametrize("case", sorted(GRADS))
def test_finite_difference_gradients(case):
    build, value = GRADS[case]
    assert _err(build, value) < 1e-7


def test_max_pool3d_is_2d_max_pool_per_depth_slice():
    x = RNG.normal(size=(2, 3, 5, 4, 2)).astype(np.float32)
    with tf.Graph().as_default():
        t = tf.constant(x)
        y3 = tf.nn.max_pool3d(t, [1, 1, 2, 2, 1], [1, 1, 2, 2, 1], "SAME")
        g3 = tf.gradients(tf.reduce_sum(y3 * y3), t)[0]
        flat = tf.reshape(t, [6, 5, 4, 2])
        y2 = tf.nn.max_pool(flat, 2, 2, "SAME")
        g2 = tf.gradients(tf.reduce_sum(y2 * y2), flat)[0]
        got, got_grad, want, want_grad = _run([y3, g3, y2, g2])
    np.testing.assert_allclose(got.reshape(want.shape), want)
    np.testing.assert_allclose(got_grad.reshape(want_grad.shape), want_grad)


def test_fractional_pool_regions_are_fixed_when_deterministic():
    x = RNG.normal(size=(1, 10, 10, 1)).astype(np.float32)
    with tf.Graph().as_default():
        fixed = tf.nn.fractional_max_pool(x, [1.0, 1.5, 1.5, 1.0], deterministic=True,
                                          seed=3, seed2=4)
        free = tf.nn.fractional_avg_pool(x, [1.0, 1.5, 1.5, 1.0], pseudo_random=True)
        with tf.Session() as sess:
            runs = [sess.run([fixed.row_pooling_sequence, fixed.col_pooling_sequence,
                              free.output]) for _ in range(3)]
    assert all(np.array_equal(r[0], runs[0][0]) and np.array_equal(r[1], runs[0][1])
               for r in runs)
    assert runs[0][2].shape == (1, 6, 6, 1)
    assert fixed.output.shape.as_list() == [1, 6, 6, 1]


def test_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="ksize"):
            tf.nn.max_pool3d(tf.zeros([1, 4, 4, 4, 1]), [1, 2, 2, 1], 1, "VALID")
        with pytest.raises(ValueError, match="multiple of input depth"):
            tf.nn.conv3d(tf.zeros([1, 4, 4, 4, 3]), tf.zeros([2, 2, 2, 2, 1]),
                         [1, 1, 1, 1, 1], "SAME")
        with pytest.raises(ValueError, match="strides > 1"):
            tf.nn.convolution(tf.zeros([1, 8, 8, 1]), tf.zeros([2, 2, 1, 1]), "VALID",
                              strides=[2, 2], dilation_rate=[2, 2])
        nondeterministic_seed = tf.nn.fractional_max_pool(
            tf.zeros([1, 4, 4, 1]), [1.0, 1.5, 1.5, 1.0], seed=1)
        grouped = tf.nn.conv2d(tf.zeros([1, 4, 4, 4]), tf.zeros([2, 2, 2, 2]), 1, "SAME")
        with tf.Session() as sess:
            with pytest.raises(errors.InvalidArgumentError, match="seed"):
                sess.run(nondeterministic_seed)
            with pytest.raises(errors.UnimplementedError, match="Grouped"):
                sess.run(grouped)
