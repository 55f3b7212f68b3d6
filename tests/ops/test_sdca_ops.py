"""SdcaFprint and SdcaShrinkL1 (graphcore/ops/sdca_ops.py, kernels/sdca_kernels.py):
fingerprints TF computes, the shrink step, shapes and errors."""

import numpy as np
import pytest

import graphcore as tf


def test_sdca_fprint_is_farmhash_fingerprint128():
    with tf.Graph().as_default():
        out = tf.train.sdca_fprint(["hello", "", "abc"])
        assert out.shape.as_list() == [3, 2] and out.dtype == tf.int64
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(out), [
                [8030732511675000650, 7283604105673962311],
                [4463240938071824939, 4374473821787594281],
                [4143508125394299908, -6879828354153669051]])
        with pytest.raises(ValueError, match="rank"):
            tf.train.sdca_fprint([["a"]])


def test_sdca_shrink_l1_shrinks_every_variable_in_place():
    with tf.Graph().as_default():
        w1 = tf.Variable([0.5, -0.1, 0.3, -2.0])
        w2 = tf.Variable([[1.0, -0.25]])
        shrink = tf.train.sdca_shrink_l1([w1, w2], l1=0.2, l2=1.0)
        assert shrink.outputs == []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(shrink)
            np.testing.assert_allclose(sess.run(w1), [0.3, 0.0, 0.1, -1.8], atol=1e-7)
            np.testing.assert_allclose(sess.run(w2), [[0.8, -0.05]], atol=1e-7)
