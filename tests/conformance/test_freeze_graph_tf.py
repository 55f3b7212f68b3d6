"""Reference tier: graphcore's freeze_graph writes TF's bytes for a graphcore-trained
graph and checkpoint (from a text GraphDef, a binary one, and a meta graph). Skipped
without TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402
from graphcore.tools import freeze_graph as ours  # noqa: E402

pytest.importorskip("tensorflow")
theirs = pytest.importorskip("tensorflow.python.tools.freeze_graph")


def _train_and_save(d):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="input")
        w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), name="w")
        b = tf.Variable([0.5, -0.5], name="b")
        tf.Variable(1.0, name="unused")
        tf.nn.softmax(tf.matmul(x, w) + b, name="probs")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(w.assign(w * 2.0))
            ckpt = saver.save(sess, os.path.join(d, "model.ckpt"))
        gd = tf.get_default_graph().as_graph_def()
        tf.train.write_graph(gd, d, "g.pbtxt")
        tf.train.write_graph(gd, d, "g.pb", as_text=False)
    return ckpt


@pytest.mark.parametrize("source", ["text", "binary", "meta"])
def test_freeze_graph_writes_tfs_bytes(tmp_path, source):
    d = str(tmp_path)
    ckpt = _train_and_save(d)
    graph, binary, meta = {"text": ("g.pbtxt", False, None), "binary": ("g.pb", True, None),
                           "meta": (None, True, ckpt + ".meta")}[source]
    graph = os.path.join(d, graph) if graph else None
    outs = []
    for lib, name in ((ours, "ours.pb"), (theirs, "theirs.pb")):
        lib.freeze_graph(graph, "", binary, ckpt, "probs", None, None,
                         os.path.join(d, name), True, "", input_meta_graph=meta)
        with open(os.path.join(d, name), "rb") as f:
            outs.append(f.read())
    assert outs[0] == outs[1]
    frozen = tf.GraphDef.FromString(outs[0])
    assert "unused" not in {n.name for n in frozen.node}
    assert not any(n.op == "VariableV2" for n in frozen.node)
    with tf.Graph().as_default():
        tf.import_graph_def(frozen, name="")
        with tf.Session() as sess:
            got = sess.run("probs:0", {"input:0": [[1.0, 0.0, 1.0]]})
    logits = np.array([[1.0, 0.0, 1.0]]) @ (2 * np.arange(6).reshape(3, 2)) + [0.5, -0.5]
    np.testing.assert_allclose(got, np.exp(logits) / np.exp(logits).sum(), rtol=1e-5)


def test_freeze_graph_errors_as_tf():
    with pytest.raises(ValueError, match="Input checkpoint '/no/such' doesn't exist!"):
        ours.freeze_graph_with_def_protos(tf.GraphDef(), None, "/no/such", "y", None, None,
                                          "", False, "")
