"""Reference tier: ``tf.profiler.profile`` against TensorFlow's tfprof on one small
conv/dense graph — the returned GraphNodeProto / MultiGraphNodeProto (parameters, float ops
per scope and per op type, the tree, input shapes) and the printed report, for the option
presets and a few builder variations. Skipped without TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402
from graphcore.protobuf import tfprof_output_pb2  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1


def _model(t):
    x = t.placeholder(t.float32, [8, 16, 16, 3], name="x")
    u = t.placeholder(t.float32, [None, 6], name="u")
    with t.variable_scope("conv1", use_resource=False):
        h = t.nn.conv2d(x, t.get_variable("w", [3, 3, 3, 4]), [1, 1, 1, 1], "SAME")
        h = t.nn.relu(t.nn.bias_add(h, t.get_variable("b", [4])))
        h = t.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    with t.variable_scope("fc", use_resource=False):
        y = t.matmul(t.reshape(h, [8, -1]), t.get_variable("w", [256, 10]))
        y = y + t.get_variable("b", [10])
        t.nn.softmax(t.matmul(u, t.get_variable("v", [6, 10])))
    t.Variable(0, trainable=False, name="step", use_resource=False)
    t.reduce_mean(t.square(y))


def _cases(t):
    P = t.profiler.ProfileOptionBuilder
    return [
        ("scope", P.trainable_variables_parameter()),
        ("op", P.float_operation()),
        ("scope", P.float_operation()),
        ("op", P.trainable_variables_parameter()),
        ("scope", P(P.float_operation()).with_max_depth(2).select(
            ["float_ops", "params", "occurrence"]).with_node_names(
            hide_name_regexes=[".*Initializer.*"]).build()),
        ("op", P(P.float_operation()).select(
            ["float_ops", "occurrence", "op_types", "params"]).build()),
        ("scope", P.time_and_memory()),
        ("scope", P().select(["input_shapes", "op_types", "params", "bytes"]).with_node_names(
            start_name_regexes=["fc/w.*"]).build()),
        ("op", P().with_accounted_types(["Mat.*", "_trainable_variables"]).select(
            ["params", "float_ops"]).order_by("params").build()),
        ("scope", 0),
    ]


def _profile(t, capfd):
    results = []
    with t.Graph().as_default() as g:
        _model(t)
        cases = _cases(t)
        capfd.readouterr()
        for cmd, options in cases:
            results.append(t.profiler.profile(g, cmd=cmd, options=options))
        text = capfd.readouterr().out
    return results, text


def test_profile_matches_tensorflow(capfd):
    ours, our_text = _profile(tf, capfd)
    ref, ref_text = _profile(tf1, capfd)
    assert our_text == ref_text
    for got, want in zip(ours, ref):
        expected = type(got)()
        expected.ParseFromString(want.SerializeToString())
        assert got == expected
    assert isinstance(ours[0], tfprof_output_pb2.GraphNodeProto)
    assert (ours[0].total_parameters, ours[1].total_float_ops) == (2742, 505441)


def test_profile_empty_output_and_errors(capfd):
    with tf.Graph().as_default() as g:
        _model(tf)
        opts = tf.profiler.ProfileOptionBuilder(
            tf.profiler.ProfileOptionBuilder.float_operation()).with_empty_output().build()
        capfd.readouterr()
        assert tf.profiler.profile(g, cmd="op", options=opts).total_float_ops == 505441
        assert capfd.readouterr().out == ""
        with pytest.raises(tf.errors.InvalidArgumentError, match="unknown cmd: bad"):
            tf.profiler.profile(g, cmd="bad", options=opts)


def _traced_flops(t):
    with t.Graph().as_default() as g:
        x = t.placeholder(t.float32, [None, 6], name="x")
        y = t.nn.softmax(t.matmul(x, t.ones([6, 3])))
        opts = t.profiler.ProfileOptionBuilder(
            t.profiler.ProfileOptionBuilder.float_operation()).with_empty_output().build()
        before = t.profiler.profile(g, run_meta=t.RunMetadata(), cmd="op", options=opts)
        with t.Session() as sess:
            run_meta = t.RunMetadata()
            sess.run(y, {x: np.ones([5, 6])},
                     options=t.RunOptions(trace_level=t.RunOptions.FULL_TRACE),
                     run_metadata=run_meta)
        after = t.profiler.profile(g, run_meta=run_meta, cmd="op", options=opts)
        return before.total_float_ops, after.total_float_ops, y.shape.as_list()


def test_run_meta_completes_shapes_as_tensorflow():
    assert _traced_flops(tf) == _traced_flops(tf1) == (0, 75, [5, 3])
