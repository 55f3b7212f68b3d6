"""tf.contrib.metrics: each streaming_* metric gives the values of the tf.metrics metric it
wraps (predictions first); streaming_recall_at_k is the mean of in_top_k; aggregate_*."""

import numpy as np
import pytest

import graphcore as tf

metrics = tf.contrib.metrics
P = np.array([0.1, 0.9, 0.6, 0.3, 0.8], np.float32)
L = np.array([0, 1, 0, 1, 1], np.float32)
LOGITS = np.array([[0.1, 0.5, 0.4], [0.7, 0.1, 0.2], [0.3, 0.3, 0.4]], np.float32)
CLASSES = np.array([1, 1, 2], np.int64)

CASES = [
    ("accuracy", lambda: metrics.streaming_accuracy(P > 0.5, L > 0.5), 3 / 5),
    ("precision", lambda: metrics.streaming_precision(P > 0.5, L > 0.5), 2 / 3),
    ("recall", lambda: metrics.streaming_recall(P > 0.5, L > 0.5), 2 / 3),
    ("true_positives", lambda: metrics.streaming_true_positives(P > 0.5, L > 0.5), 2.0),
    ("false_negatives", lambda: metrics.streaming_false_negatives(P > 0.5, L > 0.5), 1.0),
    ("mean", lambda: metrics.streaming_mean(P, weights=L), (0.9 + 0.3 + 0.8) / 3),
    ("mse", lambda: metrics.streaming_mean_squared_error(P, L), np.mean((P - L) ** 2)),
    ("mae", lambda: metrics.streaming_mean_absolute_error(P, L), np.mean(np.abs(P - L))),
    ("rmse", lambda: metrics.streaming_root_mean_squared_error(P, L),
     np.sqrt(np.mean((P - L) ** 2))),
    ("percentage_less", lambda: metrics.streaming_percentage_less(P, 0.5), 2 / 5),
    ("auc", lambda: metrics.streaming_auc(P, L > 0.5), None),
    ("recall_at_k", lambda: metrics.streaming_recall_at_k(LOGITS, CLASSES, 2), 2 / 3),
    ("sparse_recall_at_k", lambda: metrics.streaming_sparse_recall_at_k(LOGITS, CLASSES, 1),
     2 / 3),
    ("mean_iou", lambda: metrics.streaming_mean_iou(
        tf.constant([0, 1, 1]), tf.constant([0, 1, 0]), 2), (1 / 2 + 1 / 2) / 2),
]


@pytest.mark.parametrize("name,build,expected", CASES, ids=[c[0] for c in CASES])
def test_streaming_metric_values(name, build, expected):
    value, update = build()
    if expected is None:   # compare with the core metric on the same inputs
        core_value, core_update = tf.metrics.auc(L > 0.5, P)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run(update)
        got = sess.run(value)
        if expected is None:
            sess.run(core_update)
            expected = sess.run(core_value)
    assert got == pytest.approx(expected, rel=1e-5)


def test_aggregate():
    acc = metrics.streaming_accuracy(P > 0.5, L > 0.5)
    mean = metrics.streaming_mean(P)
    values, updates = metrics.aggregate_metrics(acc, mean)
    assert values == [acc[0], mean[0]] and updates == [acc[1], mean[1]]
    names_to_values, names_to_updates = metrics.aggregate_metric_map({"acc": acc, "m": mean})
    assert names_to_values == {"acc": acc[0], "m": mean[0]}
    assert names_to_updates == {"acc": acc[1], "m": mean[1]}
    assert tf.contrib.slim.metrics is metrics
