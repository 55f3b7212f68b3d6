"""Reference tier: tf.losses against TF's compat.v1.losses — values, gradients, the
GraphDef (node names and op types), the LOSSES collection and the errors."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

RNG = np.random.default_rng(11)
LOGITS = RNG.normal(size=(4, 3)).astype(np.float32) * 2
PROBS = 1 / (1 + np.exp(-LOGITS))
LABELS01 = (RNG.random((4, 3)) > 0.5).astype(np.float32)
ONEHOT = np.eye(3, dtype=np.float32)[[0, 2, 1, 2]]
SPARSE = np.array([0, 2, 1, 2], np.int32)
W_ROW = np.array([1.0, 0.0, 2.0, 0.5], np.float32)
W_FULL = RNG.random((4, 3)).astype(np.float32) * (RNG.random((4, 3)) > 0.3)
UNIT = LOGITS / np.linalg.norm(LOGITS, axis=1, keepdims=True)
UNIT2 = ONEHOT


def _red(lib, key):
    return getattr(lib.losses.Reduction, key)


# (id, build(lib, x) -> loss tensor); ``x`` is the placeholder holding LOGITS.
CASES = [
    ("abs_diff", lambda lib, x: lib.losses.absolute_difference(LABELS01, x)),
    ("abs_diff_w", lambda lib, x: lib.losses.absolute_difference(LABELS01, x, W_FULL)),
    ("cosine", lambda lib, x: lib.losses.cosine_distance(UNIT2, lib.nn.l2_normalize(x, 1),
                                                         axis=1)),
    ("cosine_dim_w", lambda lib, x: lib.losses.cosine_distance(
        UNIT2, lib.nn.l2_normalize(x, 1), dim=1, weights=W_ROW[:, None])),
    ("hinge", lambda lib, x: lib.losses.hinge_loss(LABELS01, x)),
    ("huber", lambda lib, x: lib.losses.huber_loss(LABELS01, x, delta=0.7)),
    ("huber_sum", lambda lib, x: lib.losses.huber_loss(
        LABELS01, x, W_FULL, reduction=_red(lib, "SUM"))),
    ("log_loss", lambda lib, x: lib.losses.log_loss(LABELS01, lib.sigmoid(x))),
    ("pairwise", lambda lib, x: lib.losses.mean_pairwise_squared_error(ONEHOT, x)),
    ("pairwise_w", lambda lib, x: lib.losses.mean_pairwise_squared_error(
        ONEHOT, x, weights=W_ROW[:, None])),
    ("mse_none", lambda lib, x: lib.losses.mean_squared_error(
        ONEHOT, x, reduction=_red(lib, "NONE"))),
    ("mse_mean", lambda lib, x: lib.losses.mean_squared_error(
        ONEHOT, x, W_FULL, reduction=_red(lib, "MEAN"))),
    ("mse_batch", lambda lib, x: lib.losses.mean_squared_error(
        ONEHOT, x, W_ROW[:, None], reduction=_red(lib, "SUM_OVER_BATCH_SIZE"))),
    ("sigmoid_xent", lambda lib, x: lib.losses.sigmoid_cross_entropy(LABELS01, x)),
    ("sigmoid_xent_smooth", lambda lib, x: lib.losses.sigmoid_cross_entropy(
        LABELS01, x, W_FULL, label_smoothing=0.2)),
    ("softmax_xent", lambda lib, x: lib.losses.softmax_cross_entropy(ONEHOT, x, W_ROW)),
    ("softmax_xent_smooth", lambda lib, x: lib.losses.softmax_cross_entropy(
        ONEHOT, x, label_smoothing=0.1, reduction=_red(lib, "SUM_OVER_NONZERO_WEIGHTS"))),
    ("sparse_xent", lambda lib, x: lib.losses.sparse_softmax_cross_entropy(SPARSE, x)),
    ("sparse_xent_w2d", lambda lib, x: lib.losses.sparse_softmax_cross_entropy(
        SPARSE[:, None], x, W_ROW[:, None])),
    ("weighted", lambda lib, x: lib.losses.compute_weighted_loss(
        lib.square(x), W_FULL, scope="mine")),
    ("total", lambda lib, x: [lib.losses.add_loss(lib.reduce_sum(x) * 0.01,
                                                  loss_collection="extra"),
                              lib.add_to_collection(lib.GraphKeys.REGULARIZATION_LOSSES,
                                                    lib.reduce_mean(x)),
                              lib.losses.hinge_loss(LABELS01, x),
                              lib.losses.get_regularization_loss(),
                              lib.losses.get_total_loss(),
                              lib.losses.get_losses(loss_collection="extra")[0]][2:]),
]


def _build(lib, build):
    with lib.Graph().as_default() as g:
        x = lib.placeholder(lib.float32, [4, 3], name="x")
        out = build(lib, x)
        outs = out if isinstance(out, list) else [out]
        grads = lib.gradients(outs[0], x)
        with lib.Session() as sess:
            values = sess.run(outs + grads, {x: LOGITS})
        nodes = [(n.name, n.op) for n in g.as_graph_def().node]
        collection = [t.name for t in lib.get_collection(lib.GraphKeys.LOSSES)]
        return outs, values, nodes, collection


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_losses_match_tf(case):
    _, build = case
    ours, got, our_nodes, our_coll = _build(tf, build)
    theirs, want, their_nodes, their_coll = _build(tf1, build)
    for o, t in zip(ours, theirs):
        assert (o.name, o.dtype.name, o.shape.as_list()) == \
            (t.name, t.dtype.name, t.shape.as_list())
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    assert our_coll == their_coll
    assert [n for n in our_nodes if "gradients" not in n[0]] == \
        [n for n in their_nodes if "gradients" not in n[0]]


@pytest.mark.parametrize("call, message", [
    (lambda lib: lib.losses.cosine_distance(ONEHOT, LOGITS), "You must specify argument `axis`."),
    (lambda lib: lib.losses.hinge_loss(None, LOGITS), "Argument `labels` must not be None."),
    (lambda lib: lib.losses.sigmoid_cross_entropy(LABELS01, None),
     "Argument `logits` must not be None."),
    (lambda lib: lib.losses.compute_weighted_loss(LOGITS, reduction="bad"),
     "Invalid Reduction Key bad."),
    (lambda lib: lib.losses.mean_squared_error(ONEHOT, LOGITS, W_ROW),
     "weights can not be broadcast to values."),
])
def test_loss_errors_match_tf(call, message):
    for lib in (tf, tf1):
        with lib.Graph().as_default(), pytest.raises(ValueError, match=message.replace(
                "`", ".").replace("(", ".")):
            call(lib)
