"""Reference tier: small top-level TF1 names against TensorFlow's compat.v1 —
saturate_cast, switch_case, bitcast, histogram_fixed_width_bins, timestamp,
orthogonal_initializer, get_local_variable, op_scope and the graph-mode switches.
Skipped without TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

CASES = {
    "saturate_cast": lambda t: t.saturate_cast(t.constant([-5.0, 300.0, 1e10, 7.5]), t.uint8),
    "saturate_cast_int": lambda t: t.saturate_cast(t.constant([-70000, 5, 70000]), t.int16),
    "switch_case_not_contiguous": lambda t: t.switch_case(
        t.constant(0), {0: lambda: t.constant(1), 3: lambda: t.constant(2)}),
    "switch_case": lambda t: [t.switch_case(t.constant(k), [lambda: t.constant(10),
                                                           lambda: t.constant(20)])
                              for k in (0, 1, 5)],
    "switch_case_default": lambda t: t.switch_case(t.constant(9), {0: lambda: t.constant(1.0),
                                                                   1: lambda: t.constant(2.0)},
                                                   default=lambda: t.constant(-1.0)),
    "bitcast_same": lambda t: t.bitcast(t.constant([1.0, -2.5]), t.int32),
    "bitcast_split": lambda t: t.bitcast(t.constant([1, 258], t.int32), t.uint8),
    "bitcast_join": lambda t: t.bitcast(t.constant([[1, 0], [2, 1]], t.uint8), t.uint16),
    "histogram_bins": lambda t: t.histogram_fixed_width_bins(
        t.constant([[-1.0, 0.0, 1.5], [2.0, 5.0, 15.0]]), [0.0, 5.0], nbins=5),
    "op_scope": lambda t: _op_scope_name(t),
}


def _op_scope_name(lib):
    with lib.op_scope([], "outer", "default") as scope:
        return lib.constant(scope)


def _run(lib, case):
    with lib.Graph().as_default():
        try:
            out = CASES[case](lib)
        except Exception as e:
            return type(e).__name__
        with lib.Session() as sess:
            value = sess.run(out)
    values = value if isinstance(value, list) else [value]
    return [np.asarray(v).tolist() for v in values], [np.asarray(v).dtype for v in values]


@pytest.mark.parametrize("case", sorted(CASES))
def test_values_match_tf(case):
    assert _run(tf, case) == _run(tf1, case)


def test_timestamp_is_now_in_seconds():
    import time

    with tf.Session() as sess:
        before = time.time()
        value = sess.run(tf.timestamp())
    assert value.dtype == np.float64 and before - 1 <= value <= time.time() + 1


def test_orthogonal_initializer_and_local_variables():
    for lib in (tf, tf1):
        with lib.Graph().as_default():
            w = lib.get_variable("w", [4, 3], initializer=lib.orthogonal_initializer(gain=2.0))
            v = lib.get_local_variable("v", [2], initializer=lib.zeros_initializer())
            assert v in lib.local_variables() and v not in lib.trainable_variables()
            with lib.Session() as sess:
                sess.run(w.initializer)
                value = sess.run(w)
            np.testing.assert_allclose(value.T @ value, 4.0 * np.eye(3), atol=1e-5)


def test_graph_mode_switches_keep_graph_mode():
    # TF's own switches change its process-wide state, so only graphcore's are called.
    tf.enable_resource_variables()
    tf.disable_eager_execution()
    tf.disable_v2_behavior()
    tf.disable_control_flow_v2()
    assert not tf.executing_eagerly()
    assert not tf.control_flow_v2_enabled()
    assert not tf.resource_variables_enabled()
    assert tf.VERSION.startswith("1.")
    assert not hasattr(tf, "enable_eager_execution")  # graphcore has no eager mode
