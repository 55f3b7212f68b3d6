"""Reference tier: tf.metrics against TF's compat.v1.metrics — values and update-op
results over several update steps, local variable names and collections (LOCAL_VARIABLES,
METRIC_VARIABLES, metrics/updates collections) and the GraphDef node names."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

RNG = np.random.default_rng(3)
STEPS = 3
N = 8
# One batch per update step: binary labels, probabilities, class ids, weights, values.
BATCHES = [{
    "labels": (RNG.random(N) > 0.5).astype(np.int64),
    "probs": RNG.random(N).astype(np.float32),
    "classes": RNG.integers(0, 4, N).astype(np.int64),
    "pred_classes": RNG.integers(0, 4, N).astype(np.int64),
    "weights": (RNG.random(N) * (RNG.random(N) > 0.2)).astype(np.float32),
    "values": RNG.normal(size=(N, 3)).astype(np.float32),
    "targets": RNG.normal(size=(N, 3)).astype(np.float32),
    "scores": RNG.random((N, 5)).astype(np.float32),
    "top_ids": np.argsort(-RNG.random((N, 5)), axis=1)[:, :3].astype(np.int64),
    # two labels per row; -1 is "no label", 7 is out of range (5 classes)
    "multi": np.where(RNG.random((N, 2)) < 0.15, np.int64(-1),
                      RNG.integers(0, 5, (N, 2))).astype(np.int64),
} for _ in range(STEPS)]
BATCHES[1]["multi"][0, 1] = 7
SPARSE_LABELS = (np.array([[0, 0], [1, 0], [1, 1], [3, 0], [5, 1], [6, 0], [7, 0]], np.int64),
                 np.array([2, 0, 4, 1, 3, 3, 0], np.int64), np.array([N, 2], np.int64))
THRESHOLDS = [0.2, 0.5, 0.7]



# (id, build(lib, p) -> (value, update_op)); ``p`` maps the batch keys to placeholders.
CASES = [
    ("accuracy", lambda m, p: m.accuracy(p["classes"], p["pred_classes"])),
    ("accuracy_w", lambda m, p: m.accuracy(p["classes"], p["pred_classes"], p["weights"],
                                           metrics_collections=["mc"],
                                           updates_collections=["uc"])),
    ("mean", lambda m, p: m.mean(p["values"])),
    ("mean_w", lambda m, p: m.mean(p["values"], p["weights"][:, None], name="wmean")),
    ("mean_tensor", lambda m, p: m.mean_tensor(p["values"], p["weights"][:, None])),
    ("mae", lambda m, p: m.mean_absolute_error(p["targets"], p["values"])),
    ("mse", lambda m, p: m.mean_squared_error(p["targets"], p["values"], p["weights"][:, None])),
    ("rmse", lambda m, p: m.root_mean_squared_error(p["targets"], p["values"])),
    ("mre", lambda m, p: m.mean_relative_error(p["targets"], p["values"], p["targets"] + 3)),
    ("cosine", lambda m, p: m.mean_cosine_distance(p["targets"] / 4, p["values"] / 4, dim=1)),
    ("percentage_below", lambda m, p: m.percentage_below(p["values"], 0.3)),
    ("tp", lambda m, p: m.true_positives(p["labels"], p["probs"] > 0.5)),
    ("fp_w", lambda m, p: m.false_positives(p["labels"], p["probs"] > 0.5, p["weights"])),
    ("tn", lambda m, p: m.true_negatives(p["labels"], p["probs"] > 0.4)),
    ("fn", lambda m, p: m.false_negatives(p["labels"], p["probs"] > 0.6, name="fneg")),
    ("precision", lambda m, p: m.precision(p["labels"], p["probs"] > 0.5)),
    ("recall_w", lambda m, p: m.recall(p["labels"], p["probs"] > 0.5, p["weights"])),
    ("tp_thr", lambda m, p: m.true_positives_at_thresholds(p["labels"], p["probs"],
                                                           THRESHOLDS)),
    ("fp_thr", lambda m, p: m.false_positives_at_thresholds(p["labels"], p["probs"],
                                                            THRESHOLDS, p["weights"])),
    ("tn_thr", lambda m, p: m.true_negatives_at_thresholds(p["labels"], p["probs"],
                                                           THRESHOLDS)),
    ("fn_thr", lambda m, p: m.false_negatives_at_thresholds(p["labels"], p["probs"],
                                                            THRESHOLDS)),
    ("precision_thr", lambda m, p: m.precision_at_thresholds(p["labels"], p["probs"],
                                                             THRESHOLDS)),
    ("recall_thr", lambda m, p: m.recall_at_thresholds(p["labels"], p["probs"], THRESHOLDS,
                                                       p["weights"])),
    ("auc_roc", lambda m, p: m.auc(p["labels"], p["probs"])),
    ("auc_roc_w_minoring", lambda m, p: m.auc(p["labels"], p["probs"], p["weights"],
                                              num_thresholds=50, summation_method="minoring")),
    ("auc_pr_careful", lambda m, p: m.auc(p["labels"], p["probs"], curve="PR",
                                          summation_method="careful_interpolation")),
    ("auc_pr_majoring", lambda m, p: m.auc(p["labels"], p["probs"], curve="PR",
                                           summation_method="majoring",
                                           thresholds=[0.3, 0.6])),
    ("sens_at_spec", lambda m, p: m.sensitivity_at_specificity(p["labels"], p["probs"], 0.6)),
    ("spec_at_sens", lambda m, p: m.specificity_at_sensitivity(p["labels"], p["probs"], 0.4,
                                                               num_thresholds=20)),
    ("mean_per_class", lambda m, p: m.mean_per_class_accuracy(p["classes"], p["pred_classes"],
                                                              4)),
    ("mean_per_class_w", lambda m, p: m.mean_per_class_accuracy(
        p["classes"], p["pred_classes"], 4, p["weights"])),
    ("mean_iou", lambda m, p: m.mean_iou(p["classes"], p["pred_classes"], 4)),
    ("mean_iou_w", lambda m, p: m.mean_iou(p["classes"], p["pred_classes"], 4, p["weights"])),
    ("precision_at_k", lambda m, p: m.precision_at_k(p["classes"], p["scores"], 2)),
    ("precision_at_k_class_w", lambda m, p: m.precision_at_k(
        p["multi"], p["scores"], 3, class_id=1, weights=p["weights"])),
    ("sparse_precision_at_k", lambda m, p: m.sparse_precision_at_k(p["multi"], p["scores"],
                                                                   1)),
    ("recall_at_k", lambda m, p: m.recall_at_k(p["multi"], p["scores"], 3)),
    ("recall_at_k_class", lambda m, p: m.recall_at_k(p["classes"], p["scores"], 2,
                                                     class_id=3, name="r3")),
    ("precision_at_top_k", lambda m, p: m.precision_at_top_k(p["multi"], p["top_ids"])),
    ("recall_at_top_k_w", lambda m, p: m.recall_at_top_k(p["classes"], p["top_ids"], k=3,
                                                         weights=p["weights"],
                                                         metrics_collections=["mc"],
                                                         updates_collections=["uc"])),
    ("recall_at_k_sparse", lambda m, p: m.recall_at_k(m_sparse(p), p["scores"], 2)),
    ("precision_at_k_sparse_class", lambda m, p: m.precision_at_k(m_sparse(p), p["scores"],
                                                                  2, class_id=3)),
    ("average_precision_at_k", lambda m, p: m.average_precision_at_k(p["classes"],
                                                                     p["scores"], 2)),
    ("average_precision_at_k_multi_w", lambda m, p: m.average_precision_at_k(
        p["multi"], p["scores"], 3, weights=p["weights"])),
    ("sparse_average_precision_at_k", lambda m, p: m.sparse_average_precision_at_k(
        m_sparse(p), p["scores"], 4)),
]


def m_sparse(p):
    """SPARSE_LABELS as a SparseTensor of the library that built the placeholders ``p``."""
    lib = tf if isinstance(p["scores"], tf.Tensor) else tf1
    return lib.SparseTensor(*SPARSE_LABELS)


def _run(lib, build):
    with lib.Graph().as_default() as g:
        p = {k: lib.placeholder(lib.as_dtype(v.dtype), v.shape, name=k)
             for k, v in BATCHES[0].items()}
        start = len(g.get_operations())
        if lib is tf1:
            # TF1 graph mode makes ref variables (VariableV2), as graphcore does.
            with tf1.variable_scope(tf1.get_variable_scope(), use_resource=False):
                value, update = build(lib.metrics, p)
        else:
            value, update = build(lib.metrics, p)
        # graphcore's assert_rank_in builds its static check without TF's assert_type
        # NoOps (check_ops' business): those nodes are left out here.
        nodes = [(op.name, op.type) for op in g.get_operations()[start:]
                 if "/assert_rank_in/" not in op.name]
        info = {
            "local": [v.op.name for v in lib.local_variables()],
            "metric": [v.op.name for v in lib.get_collection(lib.GraphKeys.METRIC_VARIABLES)],
            "global": [v.op.name for v in lib.global_variables()],
            "collections": [[t.name for t in lib.get_collection(c)] for c in ("mc", "uc")],
            "value": (value.name, value.dtype.name, value.shape.as_list()),
            "update": (update.name, update.dtype.base_dtype.name, update.shape.as_list()),
            "nodes": nodes,
        }
        results = []
        with lib.Session() as sess:
            sess.run(lib.local_variables_initializer())
            results.append(sess.run(value))
            for batch in BATCHES:
                results.append(sess.run(update, {p[k]: v for k, v in batch.items()}))
                results.append(sess.run(value))
        return results, info


@pytest.mark.usefixtures("tf_control_flow_v1")  # TF1's Assert guards (Switch/Merge)
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_metrics_match_tf(case):
    case_id, build = case
    got, got_info = _run(tf, build)
    want, want_info = _run(tf1, build)
    if "_at_k" in case_id or "_at_top_k" in case_id:
        # The top-k metrics' inner nodes come from the set, sparse and assert ops they are
        # built on; their variables, value and update names are compared, not every node.
        del got_info["nodes"], want_info["nodes"]
    assert got_info == want_info
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


LABELS = np.array([1, 0], np.int64)
PROBS = np.array([0.3, 0.2], np.float32)


@pytest.mark.parametrize("call, error, message", [
    (lambda m: m.auc(LABELS, PROBS, curve="XY"), ValueError,
     "Curve must be either ROC or PR. Curve XY is unknown."),
    (lambda m: m.auc(LABELS, PROBS, summation_method="bad"), ValueError,
     "Invalid summation_method: bad"),
    (lambda m: m.sensitivity_at_specificity([1, 0], [0.3, 0.2], 1.5), ValueError,
     "`specificity` must be in the range"),
    (lambda m: m.specificity_at_sensitivity([1, 0], [0.3, 0.2], -1), ValueError,
     "`sensitivity` must be in the range"),
    (lambda m: m.accuracy([1, 0, 1], [1, 0]), ValueError, "are incompatible"),
])
def test_metric_errors_match_tf(call, error, message):
    for lib in (tf, tf1):
        with lib.Graph().as_default(), pytest.raises(error, match=message.replace(
                "`", ".").replace("(", ".")):
            call(lib.metrics)


@pytest.mark.usefixtures("tf_control_flow_v1")
def test_metric_out_of_range_predictions_fail_as_tf():
    for lib in (tf, tf1):
        with lib.Graph().as_default():
            with pytest.raises(lib.errors.InvalidArgumentError,
                               match="predictions must be in"):
                lib.metrics.auc(LABELS, lib.constant([0.3, 1.2]))  # statically
            probs = lib.placeholder(lib.float32, [2])
            _, update = lib.metrics.auc(LABELS, probs)
            with lib.Session() as sess:
                sess.run(lib.local_variables_initializer())
                with pytest.raises(lib.errors.InvalidArgumentError,
                                   match="predictions must be in"):
                    sess.run(update, {probs: [0.3, 1.2]})
