"""tf.graph_util (graphcore/framework/graph_util_impl.py): subgraph extraction, training
node removal, and freezing variables into constants that a fresh graph runs."""

import numpy as np

import graphcore as tf


def _model(use_resource):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.Variable([[1.0], [2.0]], name="w", use_resource=use_resource)
    b = tf.Variable([0.5], name="b", use_resource=use_resource)
    y = tf.identity(tf.check_numerics(tf.matmul(x, w) + b, "y"), name="y")
    tf.reduce_sum(y, name="unused")
    return x, w, y


def test_extract_sub_graph_keeps_what_the_outputs_need_in_order():
    _model(False)
    gd = tf.get_default_graph().as_graph_def()
    sub = tf.graph_util.extract_sub_graph(gd, ["y"])
    names = [n.name for n in sub.node]
    assert "unused" not in names and "y" in names and "w" in names
    assert names == [n.name for n in gd.node if n.name in set(names)]


def test_remove_training_nodes_drops_identities_and_check_numerics():
    _model(False)
    gd = tf.graph_util.remove_training_nodes(tf.get_default_graph().as_graph_def(),
                                             protected_nodes=["y"])
    ops = {n.name: n.op for n in gd.node}
    assert "CheckNumerics" not in ops.values() and ops["y"] == "Identity"


def test_freezing_makes_a_graph_without_variables_that_gives_the_same_values():
    for use_resource in (False, True):
        with tf.Graph().as_default():
            x, w, y = _model(use_resource)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                sess.run(w.assign([[3.0], [4.0]]))
                expected = sess.run(y, {x: [[1.0, 1.0]]})
                frozen = tf.graph_util.convert_variables_to_constants(
                    sess, tf.get_default_graph().as_graph_def(), ["y"])
        assert not any(n.op in ("VariableV2", "VarHandleOp", "ReadVariableOp", "Assign")
                       for n in frozen.node)
        with tf.Graph().as_default():
            tf.import_graph_def(frozen, name="")
            with tf.Session() as sess:
                np.testing.assert_allclose(sess.run("y:0", {"x:0": [[1.0, 1.0]]}), expected)
