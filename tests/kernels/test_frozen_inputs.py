"""Kernels that keep what they parsed from a constant or folded input (Reshape's shape,
a reduction's axes; graphcore/kernels/array_kernels.py ``frozen``): the parse is redone
when the input shape changes, and a fed (changeable) shape or axes is never kept."""

import numpy as np

import graphcore as tf


def test_reshape_and_reduction_reparse_per_input_shape_and_never_keep_fed_values():
    x = tf.placeholder(tf.float32, [None], name="x")
    shape = tf.placeholder(tf.int32, [2], name="shape")
    axes = tf.placeholder(tf.int32, [None], name="axes")
    const_shape = tf.reshape(x, [-1, 2])  # a constant shape with -1: per input shape
    fed_shape = tf.reshape(x, shape)
    m = tf.reshape(x, [2, -1])
    const_axes = tf.reduce_sum(m, axis=[1])
    fed_axes = tf.reduce_sum(m, axis=axes)
    with tf.Session() as sess:
        for n in (4, 6, 4, 8):
            v = np.arange(n, dtype=np.float32)
            for fed in ([2, n // 2], [n // 2, 2], [1, n]):
                for ax in ([0], [1], [0, 1]):
                    got = sess.run([const_shape, fed_shape, const_axes, fed_axes],
                                   {x: v, shape: np.array(fed, np.int32),
                                    axes: np.array(ax, np.int32)})
                    np.testing.assert_array_equal(got[0], v.reshape(-1, 2))
                    np.testing.assert_array_equal(got[1], v.reshape(fed))
                    np.testing.assert_array_equal(got[2], v.reshape(2, -1).sum(axis=1))
                    np.testing.assert_array_equal(got[3], v.reshape(2, -1).sum(axis=tuple(ax)))
        # A bad fed shape after good ones still fails as TF's kernel does.
        try:
            sess.run(fed_shape, {x: np.arange(4, dtype=np.float32),
                                 shape: np.array([3, 3], np.int32)})
        except tf.errors.InvalidArgumentError as e:
            assert "Input to reshape is a tensor with 4 values" in str(e)
        else:
            raise AssertionError("a shape of 9 values reshaped 4")
