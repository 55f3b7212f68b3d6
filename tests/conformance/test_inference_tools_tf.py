"""Reference tier: graphcore's strip_unused_lib and optimize_for_inference_lib give TF's
GraphDef bytes on the same frozen graphs (built by graphcore and by TF), and the optimized
graph computes what the original does. Skipped without TensorFlow."""

import importlib
import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as gc  # noqa: E402
from graphcore.tools import strip_unused_lib as ours_strip  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1
theirs_strip = pytest.importorskip("tensorflow.python.tools.strip_unused_lib")

FLOAT = 1  # DT_FLOAT
IMAGE = np.random.RandomState(7).rand(2, 8, 8, 3).astype(np.float32)


def _layers(lib):
    if lib is gc:
        return gc.layers
    return importlib.import_module("tf_keras.api._v1.keras.__internal__.legacy.layers")


def _convnet(lib):
    """resize + reflect pad + conv + bias + fused batch norm, dropout, conv + unfused batch
    norm, identities and an unused branch, frozen."""
    rng = np.random.RandomState(0)
    layers = _layers(lib)
    with lib.Graph().as_default() as g:
        x = lib.placeholder(lib.float32, [None, 8, 8, 3], name="input")
        r = lib.image.resize_bilinear(x, [10, 10])
        p = lib.pad(r, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
        w1 = lib.Variable(rng.randn(3, 3, 3, 4).astype(np.float32), name="w1")
        c = lib.nn.conv2d(p, w1, [1, 1, 1, 1], "VALID")
        c = lib.nn.bias_add(c, lib.Variable(rng.randn(4).astype(np.float32), name="b1"))
        c = layers.batch_normalization(c, training=False, fused=True, name="bn1")
        c = layers.dropout(lib.nn.relu(c), 0.5, training=False)
        w2 = lib.Variable(rng.randn(3, 3, 4, 5).astype(np.float32), name="w2")
        c2 = lib.nn.conv2d(lib.identity(c), w2, [1, 1, 1, 1], "SAME")
        c2 = layers.batch_normalization(c2, training=False, fused=False, name="bn2")
        c2 = lib.identity(lib.nn.relu(c2), name="features")
        lib.nn.tanh(c2, name="unused")
        lib.nn.softmax(lib.reduce_mean(c2, [1, 2]), name="probs")
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            for v in lib.global_variables():
                if v.name.startswith(("bn1", "bn2")):
                    sess.run(v.assign(rng.rand(*v.shape.as_list()).astype(np.float32) + 0.5))
            frozen = lib.graph_util.convert_variables_to_constants(
                sess, g.as_graph_def(), ["probs", "unused"])
    return frozen.SerializeToString(deterministic=True)


_SOURCES = {"graphcore": gc, "tf": tf1}
_CACHE = {}


def _frozen(model, source):
    key = (model, source)
    if key not in _CACHE:
        _CACHE[key] = _MODELS[model](_SOURCES[source])
    return _CACHE[key]


_MODELS = {"convnet": _convnet}


def _run(graph_bytes, feeds, fetch):
    with gc.Graph().as_default():
        gc.import_graph_def(gc.GraphDef.FromString(graph_bytes), name="")
        with gc.Session() as sess:
            return sess.run(fetch, feeds)


# -- strip_unused ------------------------------------------------------------------------

_STRIP_CASES = {
    # (input names, output names, placeholder type enum)
    "to_probs": (["input"], ["probs"], FLOAT),
    "from_features": (["features"], ["probs"], [FLOAT]),
    "two_outputs": (["input", "Relu"], ["probs", "unused"], [FLOAT, FLOAT]),
}


@pytest.mark.parametrize("source", sorted(_SOURCES))
@pytest.mark.parametrize("case", sorted(_STRIP_CASES))
def test_strip_unused_gives_tfs_bytes(source, case):
    data = _frozen("convnet", source)
    inputs, outputs, dtype = _STRIP_CASES[case]
    ours = ours_strip.strip_unused(gc.GraphDef.FromString(data), inputs, outputs, dtype)
    theirs = theirs_strip.strip_unused(tf1.GraphDef.FromString(data), inputs, outputs, dtype)
    assert ours.SerializeToString(deterministic=True) == \
        theirs.SerializeToString(deterministic=True)
    if case == "from_features":
        feats = np.random.RandomState(1).rand(2, 8, 8, 5).astype(np.float32)
        got = _run(ours.SerializeToString(), {"features:0": feats}, "probs:0")
        want = np.exp(feats.mean((1, 2)))
        np.testing.assert_allclose(got, want / want.sum(1, keepdims=True), rtol=1e-5)


@pytest.mark.parametrize("binary", [True, False])
def test_strip_unused_from_files_writes_tfs_file(tmp_path, binary, capsys):
    data = _frozen("convnet", "graphcore")
    src = tmp_path / ("in.pb" if binary else "in.pbtxt")
    if binary:
        src.write_bytes(data)
    else:
        from google.protobuf import text_format
        src.write_text(text_format.MessageToString(gc.GraphDef.FromString(data)))
    outs = []
    for lib, name in ((ours_strip, "ours"), (theirs_strip, "theirs")):
        capsys.readouterr()
        assert lib.strip_unused_from_files(str(src), binary, str(tmp_path / name), binary,
                                           "Relu", "probs", FLOAT) is None
        outs.append(((tmp_path / name).read_bytes(), capsys.readouterr().out))
    assert outs[0] == outs[1]


def test_strip_unused_errors_as_tf(tmp_path, capsys):
    gd = gc.GraphDef.FromString(_frozen("convnet", "graphcore"))
    tgd = tf1.GraphDef.FromString(_frozen("convnet", "graphcore"))
    for args in ((["input:0"], ["probs"]), (["nope", "input"], ["probs"])):
        with pytest.raises((ValueError, KeyError)) as theirs:
            theirs_strip.strip_unused(tgd, *args, FLOAT)
        with pytest.raises(theirs.type) as ours:
            ours_strip.strip_unused(gd, *args, FLOAT)
        assert str(ours.value) == str(theirs.value)
    for args in ((str(tmp_path / "missing.pb"), "probs"), (str(tmp_path), "")):
        printed = []
        for lib in (ours_strip, theirs_strip):
            assert lib.strip_unused_from_files(args[0], True, "out", True, "input", args[1],
                                               FLOAT) == -1
            printed.append(capsys.readouterr().out)
        assert printed[0] == printed[1]
