"""Reference tier: tf.graph_util's GraphDef rewrites give TF's GraphDefs, run on the same
GraphDef (one TF built, with Identity, StopGradient, CheckNumerics, control inputs and
colocation). Skipped without TensorFlow."""

import os

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1


def _tf_graph_def():
    with tf1.Graph().as_default() as g:
        x = tf1.placeholder(tf1.float32, [None, 2], name="x")
        w = tf1.constant([[1.0], [2.0]], name="w")
        h = tf1.identity(tf1.matmul(x, w), name="h")
        checked = tf1.check_numerics(h, "bad", name="checked")
        s = tf1.stop_gradient(checked * 2.0, name="stopped")
        with tf1.control_dependencies([s]):
            gated = tf1.identity(h, name="gated")  # carries a control input
        used_as_control = tf1.identity(x, name="marker")
        with tf1.control_dependencies([used_as_control]):
            after = tf1.add(gated, 1.0, name="after")
        with g.colocate_with(h):
            near = tf1.identity(after, name="near")
        tf1.identity(near + s, name="out")
        tf1.reduce_sum(x, name="unused")
        return g.as_graph_def()


@pytest.mark.parametrize("protected", [None, ["out"], ["h", "out"]])
def test_remove_training_nodes_matches_tf(protected):
    theirs = _tf_graph_def()
    ours = tf.GraphDef.FromString(theirs.SerializeToString())
    want = tf1.graph_util.remove_training_nodes(theirs, protected_nodes=protected)
    got = tf.graph_util.remove_training_nodes(ours, protected_nodes=protected)
    assert got.SerializeToString(deterministic=True) == want.SerializeToString(deterministic=True)


def test_extract_sub_graph_matches_tf():
    theirs = _tf_graph_def()
    ours = tf.GraphDef.FromString(theirs.SerializeToString())
    for dest in (["out"], ["after", "stopped"]):
        want = tf1.graph_util.extract_sub_graph(theirs, dest)
        got = tf.graph_util.extract_sub_graph(ours, dest)
        assert got.SerializeToString(deterministic=True) == want.SerializeToString(deterministic=True)
