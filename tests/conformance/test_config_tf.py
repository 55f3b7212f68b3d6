"""Reference tier: ``tf.config`` against TensorFlow's in graph mode — the devices listed,
the settings later Sessions run under (threads, soft placement, logical CPUs) and the
errors of settings that do not apply or come too late.  Each side starts from a fresh
context (TF's reset before and after). Skipped without TensorFlow."""

import os

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402
from graphcore.kernels import intra_op  # noqa: E402
from graphcore.runtime import context as gc_context  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf_context = pytest.importorskip("tensorflow.python.eager.context")
tf1 = tf_ref.compat.v1


def _error(fn):
    try:
        return ("ok", fn())
    except (ValueError, RuntimeError, KeyError) as e:
        return (type(e).__name__, str(e))


def _scenario(t):
    """What a TF1 script sees through ``t.config`` (t: graphcore or tf.compat.v1)."""
    out = {}
    cpu = t.config.list_physical_devices("CPU")[0]
    out["physical"] = [tuple(d) for d in t.config.list_physical_devices()]
    out["physical_exp"] = [repr(d) for d in t.config.experimental.list_physical_devices("CPU")]
    out["visible"] = [tuple(d) for d in t.config.get_visible_devices()]
    out["bad_device"] = _error(lambda: t.config.set_visible_devices(
        [t.config.PhysicalDevice("/physical_device:CPU:7", "CPU")]))
    out["wrong_type"] = _error(lambda: t.config.set_visible_devices([cpu], "GPU"))
    out["growth_cpu"] = _error(lambda: t.config.experimental.set_memory_growth(cpu, True))
    out["get_growth_cpu"] = _error(lambda: t.config.experimental.get_memory_growth(cpu))
    out["details"] = t.config.experimental.get_device_details(cpu)
    out["cpu_memory_limit"] = _error(lambda: t.config.set_logical_device_configuration(
        cpu, [t.config.LogicalDeviceConfiguration(memory_limit=10)]))
    out["threads0"] = (t.config.threading.get_intra_op_parallelism_threads(),
                       t.config.threading.get_inter_op_parallelism_threads(),
                       t.config.get_soft_device_placement())
    t.config.set_logical_device_configuration(
        cpu, [t.config.LogicalDeviceConfiguration(), t.config.LogicalDeviceConfiguration()])
    out["logical_config"] = [tuple(c) for c in t.config.get_logical_device_configuration(cpu)]
    t.config.threading.set_intra_op_parallelism_threads(3)
    t.config.threading.set_inter_op_parallelism_threads(2)
    t.config.set_soft_device_placement(True)
    out["threads1"] = (t.config.threading.get_intra_op_parallelism_threads(),
                       t.config.threading.get_inter_op_parallelism_threads(),
                       t.config.get_soft_device_placement())
    with t.Graph().as_default():
        with t.device("/device:CPU:1"):
            x = t.constant(2.0) * 3.0
        with t.Session() as sess:
            c = sess._config
            out["session_config"] = (c.intra_op_parallelism_threads,
                                     c.inter_op_parallelism_threads, c.allow_soft_placement,
                                     c.device_count["CPU"])
            out["on_cpu1"] = float(sess.run(x))
    out["logical"] = [tuple(d) for d in t.config.list_logical_devices()]
    out["logical_exp_cpu"] = len(t.config.experimental.list_logical_devices("CPU"))
    out["late_threads"] = _error(lambda: t.config.threading.set_intra_op_parallelism_threads(5))
    out["late_visible"] = _error(lambda: t.config.set_visible_devices([], "CPU"))
    out["same_threads"] = _error(lambda: t.config.threading.set_intra_op_parallelism_threads(3))
    return out


def test_config_matches_tensorflow(monkeypatch):
    monkeypatch.setattr(gc_context, "_context", gc_context.Context())
    threads = intra_op.threads()
    try:
        ours = _scenario(tf)
    finally:
        intra_op.set_threads(threads)  # the Session set the process-wide count to 3
    tf_context._reset_context()
    try:
        with tf1.Graph().as_default():  # graph mode, as a TF1 script runs
            ref = _scenario(tf1)
    finally:
        tf_context._reset_context()
    assert ours == ref


def test_untouched_settings_give_sessions_an_empty_config(monkeypatch):
    monkeypatch.setattr(gc_context, "_context", gc_context.Context())
    with tf.Graph().as_default(), tf.Session() as sess:
        assert sess._config == tf.ConfigProto()
