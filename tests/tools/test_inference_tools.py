"""graphcore.tools.strip_unused_lib (TF-free): a frozen graph stripped to its outputs,
its inputs turned into placeholders, still computes them."""

import numpy as np
import pytest

import graphcore as tf
from graphcore.tools import strip_unused_lib


def _frozen():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), name="w")
        h = tf.identity(tf.matmul(x, w), name="h")
        tf.nn.relu(h + 1.0, name="y")
        tf.nn.tanh(h, name="unused")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return tf.graph_util.convert_variables_to_constants(sess, g.as_graph_def(), ["y"])


def test_strip_unused_keeps_what_the_outputs_need():
    out = strip_unused_lib.strip_unused(_frozen(), ["h"], ["y"], tf.float32.as_datatype_enum)
    assert [(n.name, n.op) for n in out.node] == [
        ("h", "Placeholder"), ("add/y", "Const"), ("add", "AddV2"), ("y", "Relu")]
    with tf.Graph().as_default():
        tf.import_graph_def(out, name="")
        with tf.Session() as sess:
            got = sess.run("y:0", {"h:0": [[-3.0, 1.0]]})
    np.testing.assert_array_equal(got, [[0.0, 2.0]])
    with pytest.raises(KeyError, match="The following input nodes were not found"):
        strip_unused_lib.strip_unused(_frozen(), ["nope"], ["y"], 1)
