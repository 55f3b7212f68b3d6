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


def _one_example(loss_type, label, feature_ids=(1, 3)):
    ids = np.array(feature_ids, np.int64)
    return tf.train.sdca_optimizer(
        [np.zeros(len(ids), np.int64)], [ids], [np.array([2.0, 1.0], np.float32)],
        [np.array([[0.5, -1.0]], np.float32)], [1.5], [label],
        [np.arange(4, dtype=np.int64)], [np.zeros(4, np.float32)],
        [np.zeros(2, np.float32)], np.zeros((1, 4), np.float32), loss_type=loss_type,
        l1=0.0, l2=2.0, num_loss_partitions=1, num_inner_iterations=1)


def test_sdca_optimizer_squared_loss_step_is_closed_form():
    with tf.Graph().as_default():
        state, d_sparse, d_dense = _one_example("squared_loss", 3.0)
        assert state.op.get_attr("adaptative") is True
        with tf.Session() as sess:
            state_v, (ds,), (dd,) = sess.run([state, d_sparse, d_dense])
    # ||x||^2 = 4 + 1 + 0.25 + 1 = 6.25; norm = 6.25 / l2; dual = y / (1 + norm * w)
    norm = 6.25 / 2.0
    dual = 3.0 / (1 + norm * 1.5)
    delta = dual * 1.5 / 2.0
    np.testing.assert_allclose(state_v, [[dual, 0.5 * 9.0 * 1.5, 0.0, 1.5]], rtol=1e-6)
    np.testing.assert_allclose(ds, [0.0, 2 * delta, 0.0, delta], rtol=1e-6)
    np.testing.assert_allclose(dd, [0.5 * delta, -delta], rtol=1e-6)


def test_sdca_optimizer_errors():
    with tf.Graph().as_default():
        bad_label = _one_example("logistic_loss", 0.5)[0]
        duplicate = _one_example("squared_loss", 1.0, (2, 2))[0]
        out_of_range = _one_example("squared_loss", 1.0, (1, 9))[0]
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="Only labels of 0.0 or 1.0 are supported right now. "
                                     "Found example with label: 0.5"):
                sess.run(bad_label)
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="Duplicate index in sparse vector."):
                sess.run(duplicate)
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="Found sparse feature indices out of valid range: 9"):
                sess.run(out_of_range)
