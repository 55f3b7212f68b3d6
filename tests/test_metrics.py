"""tf.metrics without TensorFlow: streaming values against numpy over several updates,
local variables and their collections."""

import numpy as np

import graphcore as tf

RNG = np.random.default_rng(4)


def test_streaming_metrics_against_numpy():
    batches = [(RNG.integers(0, 2, 10), RNG.random(10).astype(np.float32)) for _ in range(3)]
    with tf.Graph().as_default():
        labels = tf.placeholder(tf.int64, [10])
        probs = tf.placeholder(tf.float32, [10])
        acc, acc_up = tf.metrics.accuracy(labels, tf.cast(probs > 0.5, tf.int64))
        prec, prec_up = tf.metrics.precision(labels, probs > 0.5)
        rec, rec_up = tf.metrics.recall(labels, probs > 0.5)
        mse, mse_up = tf.metrics.mean_squared_error(tf.cast(labels, tf.float32), probs)
        assert [v.op.name for v in tf.local_variables()] == [
            "accuracy/total", "accuracy/count", "precision/true_positives/count",
            "precision/false_positives/count", "recall/true_positives/count",
            "recall/false_negatives/count", "mean_squared_error/total",
            "mean_squared_error/count"]
        assert tf.get_collection(tf.GraphKeys.METRIC_VARIABLES) == tf.local_variables()
        assert tf.global_variables() == [] and tf.trainable_variables() == []
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            for y, p in batches:
                sess.run([acc_up, prec_up, rec_up, mse_up], {labels: y, probs: p})
            got = sess.run([acc, prec, rec, mse])
    y = np.concatenate([b[0] for b in batches])
    p = np.concatenate([b[1] for b in batches])
    pred = p > 0.5
    tp = np.sum(pred & (y == 1))
    np.testing.assert_allclose(got, [np.mean(pred == y), tp / pred.sum(), tp / (y == 1).sum(),
                                     np.mean((y - p) ** 2)], rtol=1e-5)


def test_mean_iou_against_numpy():
    labels = np.array([0, 1, 2, 2, 1, 0])
    preds = np.array([0, 2, 2, 2, 1, 1])
    with tf.Graph().as_default():
        miou, update = tf.metrics.mean_iou(labels, preds, 3)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            cm = sess.run(update)
            value = sess.run(miou)
    want_cm = np.zeros((3, 3))
    np.add.at(want_cm, (labels, preds), 1)
    np.testing.assert_array_equal(cm, want_cm)
    iou = np.diag(want_cm) / (want_cm.sum(0) + want_cm.sum(1) - np.diag(want_cm))
    np.testing.assert_allclose(value, iou.mean(), rtol=1e-6)
