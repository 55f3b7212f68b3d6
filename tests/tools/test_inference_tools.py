"""graphcore.tools' strip_unused_lib, optimize_for_inference_lib and the
optimize_for_inference command (TF-free): stripped and optimized frozen graphs still
compute their outputs; a deployment script importing TF's tool modules runs under
graphcore.run."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from google.protobuf import text_format

import graphcore as tf
from graphcore.tools import optimize_for_inference, strip_unused_lib

ROOT = Path(__file__).resolve().parents[2]


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


SCRIPT = '''
import sys
import numpy as np
import tensorflow as tf
from tensorflow.python.framework import graph_util
from tensorflow.python.tools import optimize_for_inference_lib, strip_unused_lib

rng = np.random.RandomState(0)
x = tf.placeholder(tf.float32, [None, 6, 6, 3], name="input")
net = tf.pad(tf.image.resize_bilinear(x, [8, 8]), [[0, 0], [1, 1], [1, 1], [0, 0]],
             mode="REFLECT")
net = tf.nn.conv2d(net, tf.Variable(rng.randn(3, 3, 3, 4).astype(np.float32)),
                   [1, 1, 1, 1], "VALID")
net = tf.layers.batch_normalization(net, training=False, name="bn")
net = tf.nn.conv2d(tf.nn.relu(net), tf.Variable(rng.randn(1, 1, 4, 2).astype(np.float32)),
                   [1, 1, 1, 1], "SAME")
net = tf.nn.bias_add(net, tf.Variable([0.5, -0.5]))
net = tf.layers.batch_normalization(net, training=False, name="bn2")
tf.identity(tf.reduce_mean(net, [1, 2]), name="out")
tf.nn.tanh(net, name="unused")
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for v in tf.global_variables():
        if v.name.startswith("bn"):
            sess.run(v.assign(rng.rand(*v.shape.as_list()).astype(np.float32) + 0.5))
    frozen = graph_util.convert_variables_to_constants(sess, sess.graph_def, ["out"])
stripped = strip_unused_lib.strip_unused(frozen, ["input"], ["out"],
                                         tf.float32.as_datatype_enum)
optimized = optimize_for_inference_lib.optimize_for_inference(
    frozen, ["input"], ["out"], tf.float32.as_datatype_enum)
print(sorted({n.op for n in optimized.node}))
image = rng.rand(2, 6, 6, 3).astype(np.float32)
outs = []
for graph_def in (frozen, stripped, optimized):
    with tf.Graph().as_default():
        tf.import_graph_def(graph_def, name="")
        with tf.Session() as sess:
            outs.append(sess.run("out:0", {"input:0": image}))
print(np.abs(outs[1] - outs[0]).max() == 0, np.allclose(outs[2], outs[0], rtol=1e-4, atol=1e-5))
'''


def test_deployment_script_optimizes_and_runs(tmp_path):
    """A TF1 deployment script (freeze, strip, optimize, import) under graphcore.run: the
    batch norms fold into the convs, resize + pad fuse into the first, and the optimized
    graph computes what the frozen one does."""
    script = tmp_path / "deploy.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-m", "graphcore.run", str(script)],
                         capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.splitlines() == [
        "['BiasAdd', 'Const', 'Conv2D', 'FusedResizeAndPadConv2D', 'Identity', 'Mean', "
        "'Placeholder', 'Relu']",
        "True True",
    ]


@pytest.mark.parametrize("frozen_graph", [True, False])
def test_optimize_for_inference_command(tmp_path, monkeypatch, frozen_graph):
    graph_def = _frozen()
    src = tmp_path / "in.pb"
    if frozen_graph:
        src.write_bytes(graph_def.SerializeToString())
    else:
        src.write_text(text_format.MessageToString(graph_def))
    monkeypatch.setattr(sys, "argv", [
        "optimize_for_inference", f"--input={src}", f"--output={tmp_path / 'out.pb'}",
        "--input_names=x", "--output_names=y", f"--frozen_graph={frozen_graph}"])
    flags, unparsed = optimize_for_inference.parse_args()
    assert unparsed == []
    monkeypatch.setattr(optimize_for_inference, "FLAGS", flags)
    assert optimize_for_inference.main([]) == 0
    data = (tmp_path / "out.pb").read_bytes()
    out = tf.GraphDef()
    if frozen_graph:
        out.ParseFromString(data)
    else:
        text_format.Merge(data.decode(), out)
    assert [n.op for n in out.node] == ["Placeholder", "Const", "MatMul", "Const", "AddV2",
                                        "Relu"]
    monkeypatch.setattr(flags, "input", str(tmp_path / "missing.pb"))
    assert optimize_for_inference.main([]) == -1


@pytest.mark.parametrize("scale_after", [True, False])
def test_batch_norm_with_global_normalization_gradients(scale_after):
    """The old batch norm op (GraphDef versions before 9): values and gradients against
    the formula and central differences."""
    rng = np.random.RandomState(0)
    args = [rng.randn(2, 3, 3, 2), rng.randn(2), rng.rand(2) + 0.5, rng.randn(2),
            rng.rand(2) + 0.5]
    weights = rng.randn(2, 3, 3, 2)

    def formula(t, m, v, beta, gamma):
        factor = 1 / np.sqrt(v + 1e-3) * (gamma if scale_after else 1)
        return ((t * factor + (beta - m * factor)) * weights).sum()

    with tf.Graph().as_default():
        inputs = [tf.constant(a) for a in args]
        y = tf.raw_ops.BatchNormWithGlobalNormalization(
            t=inputs[0], m=inputs[1], v=inputs[2], beta=inputs[3], gamma=inputs[4],
            variance_epsilon=1e-3, scale_after_normalization=scale_after)
        loss = tf.reduce_sum(y * weights)
        grads = tf.gradients(loss, inputs)
        with tf.Session() as sess:
            got_loss, got = sess.run([loss, grads])
    np.testing.assert_allclose(got_loss, formula(*args), rtol=1e-10)
    for i, grad in enumerate(got):
        numeric = np.zeros_like(args[i])
        for j in range(numeric.size):
            up, down = [a.copy() for a in args], [a.copy() for a in args]
            up[i].flat[j] += 1e-6
            down[i].flat[j] -= 1e-6
            numeric.flat[j] = (formula(*up) - formula(*down)) / 2e-6
        np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-6)
