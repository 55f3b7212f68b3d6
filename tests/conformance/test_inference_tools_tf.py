"""Reference tier: graphcore's strip_unused_lib and optimize_for_inference_lib give TF's
GraphDef bytes on the same frozen graphs (built by graphcore and by TF), and the optimized
graph computes what the original does. Skipped without TensorFlow."""

import importlib
import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as gc  # noqa: E402
from graphcore.tools import optimize_for_inference_lib as ours_opt  # noqa: E402
from graphcore.tools import strip_unused_lib as ours_strip  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1
theirs_strip = pytest.importorskip("tensorflow.python.tools.strip_unused_lib")
theirs_opt = pytest.importorskip("tensorflow.python.tools.optimize_for_inference_lib")

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


def _freeze(lib, g, outputs):
    with lib.Session() as sess:
        sess.run(lib.global_variables_initializer())
        return lib.graph_util.convert_variables_to_constants(sess, g.as_graph_def(), outputs)


def _decomposed(lib):
    """tf.nn.batch_normalization after a conv (with gamma), a depthwise conv + bias (without
    gamma) and a conv + relu (fused but not folded), their AddV2s renamed Add as in the
    graphs of TF releases whose batch norms optimize_for_inference fuses."""
    rng = np.random.RandomState(1)
    with lib.Graph().as_default() as g:
        x = lib.placeholder(lib.float32, [None, 8, 8, 3], name="input")

        def bn(t, channels, gamma=True, name=None):
            vec = [lib.constant(rng.rand(channels).astype(np.float32) + 0.5)
                   for _ in range(4)]
            return lib.nn.batch_normalization(t, vec[0], vec[1], vec[2],
                                              vec[3] if gamma else None, 1e-3, name=name)

        w = lib.constant(rng.randn(3, 3, 3, 4).astype(np.float32))
        a = bn(lib.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"), 4, name="bn_a")
        dw = lib.constant(rng.randn(3, 3, 3, 2).astype(np.float32))
        b = lib.nn.depthwise_conv2d(x, dw, [1, 1, 1, 1], "SAME")
        b = bn(lib.nn.bias_add(b, lib.constant(rng.randn(6).astype(np.float32))), 6, False,
               name="bn_b")
        w2 = lib.constant(rng.randn(3, 3, 3, 4).astype(np.float32))
        c = bn(lib.nn.relu(lib.nn.conv2d(x, w2, [1, 1, 1, 1], "VALID")), 4, name="bn_c")
        lib.concat([a, b], 3, name="ab")
        lib.identity(c, name="c")
        frozen = _freeze(lib, g, ["ab", "c"])
    for node in frozen.node:
        if node.op == "AddV2":
            node.op = "Add"
    return frozen.SerializeToString(deterministic=True)


def _global_norm(lib):
    """Fused batch norms after a conv, a conv + bias and a depthwise conv, rewritten into
    the BatchNormWithGlobalNormalization of GraphDef versions before 9 (the first two
    scaled after normalization, the third not)."""
    rng = np.random.RandomState(2)
    with lib.Graph().as_default() as g:
        x = lib.placeholder(lib.float32, [None, 8, 8, 3], name="input")

        def bn(t, channels, name):
            vec = [lib.constant(rng.rand(channels).astype(np.float32) + 0.5)
                   for _ in range(4)]
            return lib.nn.fused_batch_norm(t, vec[0], vec[1], vec[2], vec[3], epsilon=1e-3,
                                           is_training=False, name=name)[0]

        w = lib.constant(rng.randn(3, 3, 3, 4).astype(np.float32))
        a = bn(lib.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"), 4, "bn_a")
        b = lib.nn.bias_add(lib.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"),
                            lib.constant(rng.randn(4).astype(np.float32)))
        b = bn(b, 4, "bn_b")
        dw = lib.constant(rng.randn(3, 3, 3, 2).astype(np.float32))
        c = bn(lib.nn.depthwise_conv2d(x, dw, [1, 1, 1, 1], "SAME"), 6, "bn_c")
        lib.concat([a, b, c], 3, name="out")
        frozen = _freeze(lib, g, ["out"])
    for node in frozen.node:
        if node.op == "FusedBatchNormV3":
            t, gamma, beta, mean, var = node.input
            eps = node.attr["epsilon"].f
            dtype = node.attr["T"].type
            node.op = "BatchNormWithGlobalNormalization"
            node.ClearField("attr")
            node.attr["T"].type = dtype
            node.attr["variance_epsilon"].f = eps
            node.attr["scale_after_normalization"].b = node.name != "bn_c"
            node.input[:] = [t, mean, var, beta, gamma]
    frozen.versions.producer = 8  # the op's last version: TF runs it
    return frozen.SerializeToString(deterministic=True)


def _pads(lib):
    """A symmetric pad + conv (FusedPadConv2D), a resize + conv also used elsewhere
    (FusedResizeAndPadConv2D, dummy paddings, the resize kept), learning-phase and
    training-flag placeholders and a StopGradient."""
    rng = np.random.RandomState(3)
    with lib.Graph().as_default() as g:
        x = lib.placeholder(lib.float32, [None, 8, 8, 3], name="input")
        phase = lib.placeholder_with_default(False, [], name="keras_learning_phase")
        flag = lib.placeholder_with_default(True, [], name="is_training")
        w = lib.constant(rng.randn(3, 3, 3, 2).astype(np.float32))
        p = lib.pad(x, [[0, 0], [2, 1], [1, 2], [0, 0]], mode="SYMMETRIC")
        a = lib.nn.conv2d(p, w, [1, 2, 2, 1], "VALID", name="padded_conv")
        r = lib.image.resize_bilinear(x, [12, 12], align_corners=True)
        b = lib.nn.conv2d(lib.stop_gradient(r), w, [1, 1, 1, 1], "SAME", name="resized_conv")
        scale = lib.cast(phase, lib.float32) + 2.0 * lib.cast(flag, lib.float32) + 1.0
        lib.identity(lib.reduce_mean(a, [1, 2]) * scale, name="pa")
        lib.identity(lib.reduce_mean(b, [1, 2]) + lib.reduce_mean(r, [1, 2, 3])[:, None],
                     name="rb")
        frozen = _freeze(lib, g, ["pa", "rb"])
    return frozen.SerializeToString(deterministic=True)


_MODELS = {"convnet": _convnet, "decomposed": _decomposed, "global_norm": _global_norm,
           "pads": _pads}


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


# -- optimize_for_inference --------------------------------------------------------------

_OPT_CASES = {
    # model, output names, keyword arguments
    "convnet": ("convnet", ["probs"], {}),
    "convnet_toco": ("convnet", ["probs"], {"toco_compatible": True}),
    "decomposed": ("decomposed", ["ab", "c"], {}),
    "global_norm": ("global_norm", ["out"], {}),
    "pads": ("pads", ["pa", "rb"], {"placeholder_to_const_names": ["is_training=False"]}),
}


def _run_tf(graph_bytes, feeds, fetches):
    with tf1.Graph().as_default():
        tf1.import_graph_def(tf1.GraphDef.FromString(graph_bytes), name="")
        with tf1.Session() as sess:
            return sess.run(fetches, feeds)


@pytest.mark.parametrize("source", sorted(_SOURCES))
@pytest.mark.parametrize("case", sorted(_OPT_CASES))
def test_optimize_for_inference_gives_tfs_bytes_and_values(source, case):
    model, outputs, kwargs = _OPT_CASES[case]
    data = _frozen(model, source)
    ours = ours_opt.optimize_for_inference(gc.GraphDef.FromString(data), ["input"], outputs,
                                           FLOAT, **kwargs).SerializeToString()
    theirs = theirs_opt.optimize_for_inference(tf1.GraphDef.FromString(data), ["input"],
                                               outputs, FLOAT, **kwargs).SerializeToString()
    assert gc.GraphDef.FromString(ours).SerializeToString(deterministic=True) == \
        tf1.GraphDef.FromString(theirs).SerializeToString(deterministic=True)
    if source == "tf":
        return  # the same bytes as graphcore's source: values checked there
    fetches = [o + ":0" for o in outputs]
    feeds = {"input:0": IMAGE}
    want = _run(data, feeds, fetches)
    for w, t in zip(want, _run_tf(data, feeds, fetches)):
        np.testing.assert_allclose(w, t, rtol=1e-4, atol=1e-4)
    if case == "pads":  # is_training became False: scale 3 -> 1
        want[0] = want[0] / 3.0
    got = _run(ours, feeds, fetches)
    # TF's optimized graph run by TF, on one image: TF 2.21's FusedResizeAndPadConv2D
    # CPU kernel gives every image of a larger batch the first one's result.
    got_tf = _run_tf(theirs, {"input:0": IMAGE[:1]}, fetches)
    for w, g, t in zip(want, got, got_tf):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(g[:1], t, rtol=1e-4, atol=1e-4)
    ops = {n.op for n in gc.GraphDef.FromString(ours).node}
    assert ops.isdisjoint({"BatchNormWithGlobalNormalization", "FusedBatchNormV3",
                           "StopGradient", "PlaceholderWithDefault"})
    assert ("FusedResizeAndPadConv2D" in ops) == (model in ("convnet", "pads") and
                                                  "toco_compatible" not in kwargs)


@pytest.mark.parametrize("frozen_graph", ["True", "False"])
def test_optimize_for_inference_command_writes_tfs_graph(tmp_path, monkeypatch, frozen_graph):
    from google.protobuf import text_format

    from graphcore.tools import optimize_for_inference as ours_cli
    theirs_cli = pytest.importorskip("tensorflow.python.tools.optimize_for_inference")
    data = _frozen("pads", "graphcore")
    src = tmp_path / "in.pb"
    if frozen_graph == "True":
        src.write_bytes(data)
    else:
        src.write_text(text_format.MessageToString(gc.GraphDef.FromString(data)))
    outs = []
    for lib, name in ((ours_cli, "ours.pb"), (theirs_cli, "theirs.pb")):
        monkeypatch.setattr("sys.argv", [
            "optimize_for_inference", f"--input={src}", f"--output={tmp_path / name}",
            "--input_names=input", "--output_names=pa,rb", f"--frozen_graph={frozen_graph}",
            "--placeholder_to_const_names=is_training=False"])
        flags, _ = lib.parse_args()
        monkeypatch.setattr(lib, "FLAGS", flags, raising=False)
        assert lib.main([]) == 0
        graph_def = gc.GraphDef()
        if frozen_graph == "True":
            graph_def.ParseFromString((tmp_path / name).read_bytes())
        else:
            text_format.Merge((tmp_path / name).read_text(), graph_def)
        outs.append(graph_def.SerializeToString(deterministic=True))
    assert outs[0] == outs[1]


def _bad_graphs():
    dup = gc.GraphDef()
    dup.node.add(name="a", op="Placeholder")
    dup.node.add(name="a", op="Placeholder")
    dangling = gc.GraphDef()
    dangling.node.add(name="b", op="Identity", input=["nope:1"])
    return {"duplicate": dup, "dangling": dangling}


@pytest.mark.parametrize("call", [
    "ensure_graph_is_valid duplicate", "ensure_graph_is_valid dangling",
    "fold_batch_norms duplicate", "fuse_decomposed_batch_norm duplicate",
    "convert_placeholder_to_const duplicate", "node_from_map", "values_from_const",
])
def test_optimize_lib_errors_as_tf(call):
    name, _, graph = call.partition(" ")
    errors = []
    for lib, proto in ((ours_opt, gc), (theirs_opt, tf1)):
        with pytest.raises(ValueError) as info:
            if graph:
                data = _bad_graphs()[graph].SerializeToString()
                getattr(lib, name)(proto.GraphDef.FromString(data))
            elif name == "node_from_map":
                lib.node_from_map({}, "^x:0")
            else:
                lib.values_from_const(proto.NodeDef(name="n", op="Identity", input=["i"]))
        errors.append(info.value.args)
    assert errors[0] == errors[1]


def test_optimize_lib_helpers_as_tf():
    for name in ("^a", "a:1", "a/b:10", "a:b", "^a:0"):
        assert ours_opt.node_name_from_input(name) == theirs_opt.node_name_from_input(name)
    for nodes in (None, [], [""], ["a=1", "b", " c =False", "=True"]):
        assert ours_opt.parse_nodes_dict(nodes) == theirs_opt.parse_nodes_dict(nodes)
    for text in ("True", "true", "False", "false"):
        assert ours_opt.strtobool(text) == theirs_opt.strtobool(text)


@pytest.mark.parametrize("training", [False, True])
def test_fused_batch_norm_v1_values_and_gradients_match_tf(training):
    """The FusedBatchNorm that fuse_decomposed_batch_norm makes: outputs, gradients (through
    FusedBatchNormGrad) and second-order gradients as TF's."""
    rng = np.random.RandomState(4)
    values = [rng.randn(2, 4, 4, 3).astype(np.float32), rng.rand(3).astype(np.float32) + .5,
              rng.randn(3).astype(np.float32), rng.randn(3).astype(np.float32),
              rng.rand(3).astype(np.float32) + .5]
    results = []
    for lib in (gc, tf1):
        with lib.Graph().as_default():
            # placeholders: TF's constant folding would leave only output 0 fetchable
            x, scale, offset, mean, var = (lib.placeholder_with_default(v, v.shape)
                                           for v in values)
            y = lib.raw_ops.FusedBatchNorm(x=x, scale=scale, offset=offset, mean=mean,
                                           variance=var, epsilon=1e-3, is_training=training)
            grads = lib.gradients(lib.reduce_sum(y[0] * y[0]), [x, scale, offset])
            second = lib.gradients(lib.reduce_sum(grads[0] * grads[0]), [x, scale])
            with lib.Session() as sess:
                results.append(sess.run(list(y[:3]) + grads + second))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4)
