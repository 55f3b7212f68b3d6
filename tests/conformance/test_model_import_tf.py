"""Reference tier: TF1 models built in TensorFlow, exported as GraphDefs (with their
gradients) and imported into graphcore run with TF's outputs and gradients — every op type
such models put in a GraphDef imports and runs. Skipped without TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

RNG = np.random.default_rng(17)
IMAGES = RNG.normal(size=(4, 8, 8, 3)).astype(np.float32)
LABELS = np.array([1, 0, 3, 2], np.int64)
SEQ = RNG.normal(size=(4, 5, 6)).astype(np.float32)
IDS = np.array([[1, 4], [0, 2], [7, 7], [3, 5]], np.int64)


def _mlp(t):
    x = t.placeholder(t.float32, [None, 8, 8, 3], name="x")
    y = t.placeholder(t.int64, [None], name="y")
    h = t.layers.flatten(x) if hasattr(t, "layers") and hasattr(t.layers, "flatten") \
        else t.reshape(x, [-1, 192])
    w1 = t.get_variable("w1", [192, 32], initializer=t.glorot_uniform_initializer(seed=1))
    b1 = t.get_variable("b1", [32], initializer=t.zeros_initializer())
    h = t.nn.relu(t.matmul(h, w1) + b1)
    w2 = t.get_variable("w2", [32, 4], initializer=t.glorot_uniform_initializer(seed=2))
    logits = t.matmul(h, w2)
    loss = t.reduce_mean(t.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                       logits=logits))
    loss += 1e-3 * t.nn.l2_loss(w1)
    return {x: IMAGES, y: LABELS}, logits, loss


def _cnn(t):
    x = t.placeholder(t.float32, [None, 8, 8, 3], name="x")
    y = t.placeholder(t.int64, [None], name="y")
    k = t.get_variable("k", [3, 3, 3, 8], initializer=t.truncated_normal_initializer(
        stddev=0.1, seed=3))
    h = t.nn.relu(t.nn.bias_add(t.nn.conv2d(x, k, [1, 1, 1, 1], "SAME"),
                                t.get_variable("kb", [8], initializer=t.zeros_initializer())))
    h = t.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    h = t.nn.avg_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    mean, var = t.nn.moments(h, axes=[0, 1, 2])
    h = t.nn.batch_normalization(h, mean, var, None, None, 1e-3) \
        if hasattr(t.nn, "batch_normalization") else (h - mean) * t.rsqrt(var + 1e-3)
    w = t.get_variable("w", [2 * 2 * 8, 4], initializer=t.glorot_uniform_initializer(seed=4))
    logits = t.matmul(t.reshape(h, [-1, 32]), w)
    loss = t.reduce_mean(t.nn.softmax_cross_entropy_with_logits_v2(
        labels=t.one_hot(y, 4), logits=logits))
    return {x: IMAGES, y: LABELS}, logits, loss


def _lstm(t):
    x = t.placeholder(t.float32, [None, 5, 6], name="x")
    cells = t.nn.rnn_cell if t is tf else pytest.importorskip(
        "tensorflow.python.keras.layers.legacy_rnn.rnn_cell_impl")  # Keras 3 hides TF's
    cell = cells.BasicLSTMCell(7)
    outputs, state = t.nn.dynamic_rnn(cell, x, sequence_length=[5, 3, 4, 1], dtype=t.float32)
    logits = t.matmul(state.h, t.get_variable("out", [7, 4],
                                              initializer=t.glorot_uniform_initializer(seed=5)))
    loss = t.reduce_sum(t.square(outputs)) + t.reduce_sum(t.nn.softmax(logits))
    return {x: SEQ}, logits, loss


def _embedding(t):
    ids = t.placeholder(t.int64, [None, 2], name="ids")
    y = t.placeholder(t.int64, [None], name="y")
    table = t.get_variable("table", [10, 6], initializer=t.random_uniform_initializer(
        -1, 1, seed=6))
    emb = t.reduce_mean(t.nn.embedding_lookup(table, ids), axis=1)
    w = t.get_variable("w", [6, 4], initializer=t.glorot_uniform_initializer(seed=7))
    logits = t.matmul(emb, w)
    loss = t.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
    return {ids: IDS, y: LABELS}, logits, loss


def _clip_train(t):
    feeds, logits, loss = _mlp(t)
    grads = t.gradients(loss, t.trainable_variables())
    clipped, norm = t.clip_by_global_norm(grads, 0.1)
    return feeds, norm, t.add_n([t.reduce_sum(g) for g in clipped])


def _batchnorm_cnn(t):
    x = t.placeholder(t.float32, [None, 8, 8, 3], name="x")
    k = t.get_variable("k", [3, 3, 3, 4], initializer=t.glorot_uniform_initializer(seed=8))
    h = t.nn.conv2d(x, k, [1, 1, 1, 1], "SAME")
    scale = t.get_variable("scale", [4], initializer=t.ones_initializer())
    offset = t.get_variable("offset", [4], initializer=t.zeros_initializer())
    h, _, _ = t.nn.fused_batch_norm(h, scale, offset, is_training=True)
    h = t.nn.leaky_relu(h, 0.1)
    d = t.get_variable("d", [3, 3, 4, 2], initializer=t.glorot_uniform_initializer(seed=9))
    h = t.nn.depthwise_conv2d(h, d, [1, 2, 2, 1], "SAME")
    h = t.nn.selu(t.nn.lrn(h, depth_radius=2))
    h = t.space_to_depth(h, 2)
    logits = t.reduce_mean(h, axis=[1, 2])[:, :4]
    values, _ = t.nn.top_k(logits, 2)
    loss = t.reduce_mean(t.nn.sigmoid_cross_entropy_with_logits(
        labels=t.one_hot(t.placeholder_with_default(LABELS, [None]), 4), logits=logits))
    return {x: IMAGES}, values, loss + t.reduce_sum(t.nn.softsign(values))


def _gru(t):
    x = t.placeholder(t.float32, [None, 5, 6], name="x")
    cells = t.nn.rnn_cell if t is tf else pytest.importorskip(
        "tensorflow.python.keras.layers.legacy_rnn.rnn_cell_impl")
    cell = cells.MultiRNNCell([cells.GRUCell(5), cells.LSTMCell(4, use_peepholes=True)])
    outputs, _ = t.nn.dynamic_rnn(cell, x, dtype=t.float32)
    logits = t.matmul(outputs[:, -1], t.get_variable(
        "o", [4, 4], initializer=t.glorot_uniform_initializer(seed=10)))
    loss = t.losses.sparse_softmax_cross_entropy(labels=LABELS, logits=logits)
    return {x: SEQ}, logits, loss


def _resized_image(t):
    x = t.placeholder(t.float32, [None, 8, 8, 3], name="x")
    h = t.image.resize_bilinear(x, [12, 12])
    h = t.nn.conv2d_transpose(h, t.get_variable(
        "kt", [3, 3, 2, 3], initializer=t.glorot_uniform_initializer(seed=11)),
        [4, 24, 24, 2], [1, 2, 2, 1], "SAME")
    h = t.nn.avg_pool3d(t.expand_dims(h, 1), [1, 1, 2, 2, 1], [1, 1, 2, 2, 1], "VALID")
    out = t.nn.swish(t.squeeze(h, 1))
    return {x: IMAGES}, out, t.reduce_sum(t.square(out))


MODELS = {"mlp": _mlp, "cnn": _cnn, "lstm": _lstm, "embedding": _embedding,
          "clipped_gradients": _clip_train, "batchnorm_cnn": _batchnorm_cnn, "gru": _gru,
          "resized_image": _resized_image}


def _tf_graph(build):
    """TF's GraphDef of ``build`` with gradients, variables frozen to constants, and
    TF's values for the outputs, the loss and every gradient."""
    with tf1.Graph().as_default() as g:
        feeds, out, loss = build(tf1)
        xs = [t for t in feeds if t.dtype.is_floating]
        grads = [tf1.convert_to_tensor(v) for v in tf1.gradients(loss, xs +
                                                                  tf1.trainable_variables())]
        fetches = [out, loss] + grads
        names = [f.name for f in fetches]
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            values = sess.run(fetches, feeds)
            frozen = tf1.graph_util.convert_variables_to_constants(
                sess, g.as_graph_def(), sorted({n.split(":")[0] for n in names}))
        feed_values = {t.name: v for t, v in feeds.items()}
    return frozen, names, feed_values, values


@pytest.mark.parametrize("model", sorted(MODELS))
def test_tf_model_graph_def_imports_and_runs_as_in_tf(model, tf_control_flow_v1):
    """(TF builds TF1's Switch/Merge/Enter/Exit loops, as TF1 graph mode does.)"""
    frozen, names, feeds, expected = _tf_graph(MODELS[model])
    with tf.Graph().as_default():
        tf.import_graph_def(frozen, name="")
        with tf.Session() as sess:
            ours = sess.run(names, feeds)
    for name, a, b in zip(names, ours, expected):
        np.testing.assert_allclose(a, b, rtol=2e-4, atol=2e-5, err_msg=name)
