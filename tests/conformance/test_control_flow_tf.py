"""Reference tier: TF1 control flow (while_loop, its gradients, case) against
TensorFlow's compat.v1 with control flow v1: values, op names and types, and TF importing
and running our while-loop GraphDefs.  Skipped without TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1


@pytest.fixture(autouse=True, scope="module")
def _control_flow_v1():
    from tensorflow.python.ops import control_flow_util

    saved = control_flow_util.ENABLE_CONTROL_FLOW_V2
    control_flow_util.ENABLE_CONTROL_FLOW_V2 = False
    try:
        yield
    finally:
        control_flow_util.ENABLE_CONTROL_FLOW_V2 = saved


def _flat(x):
    if isinstance(x, (list, tuple)):
        return [v for item in x for v in _flat(item)]
    return [x]


def _run_both(build, feeds=None):
    """(ours, theirs): values of build(lib) and the (name, type) of every op."""
    feeds = feeds or {}
    with tf.Graph().as_default() as g:
        out = build(tf)
        with tf.Session() as sess:
            got = sess.run(out, {g.get_tensor_by_name(k): v for k, v in feeds.items()})
        ours = ([op.name, op.type] for op in g.get_operations())
        our_ops = list(map(tuple, ours))
        graph_def = g.as_graph_def()
        fetch_names = [t.name for t in _flat(out)]
    with tf_ref.Graph().as_default() as tg:
        out = build(tf1)
        with tf1.Session() as sess:
            want = sess.run(out, {tg.get_tensor_by_name(k): v for k, v in feeds.items()})
        their_ops = [(op.name, op.type) for op in tg.get_operations()]
    return got, want, our_ops, their_ops, graph_def, fetch_names


def _assert_close(got, want):
    for g, w in zip(_flat(got), _flat(want)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def _tf_runs_our_graph(graph_def, fetch_names, feeds=None):
    with tf_ref.Graph().as_default() as tg:
        tf1.import_graph_def(tf1.GraphDef.FromString(graph_def.SerializeToString()), name="")
        with tf1.Session() as sess:
            return sess.run(fetch_names, {tg.get_tensor_by_name(k): v
                                          for k, v in (feeds or {}).items()})


def _simple_loop(lib):
    i = lib.constant(0)
    x = lib.constant([1.0, 2.0])
    return lib.while_loop(lambda i, x: i < 5, lambda i, x: (i + 1, x * 2.0), [i, x])


def _captured(lib):
    w = lib.placeholder(lib.float32, [], name="w")
    return lib.while_loop(lambda x: x < 100.0, lambda x: x * w, [lib.constant(1.0)])


def _nested(lib):
    def outer_body(i, acc):
        _, inner = lib.while_loop(lambda j, a: j < i, lambda j, a: (j + 1, a + 1.0),
                                  [lib.constant(0), acc])
        return i + 1, inner

    return lib.while_loop(lambda i, a: i < 4, outer_body, [lib.constant(0),
                                                           lib.constant(0.0)])


def _cond_in_while(lib):
    def body(i, s):
        s2 = lib.cond(lib.equal(i % 2, 0), lambda: s + lib.cast(i, lib.float32),
                      lambda: s - 1.0)
        return i + 1, s2

    return lib.while_loop(lambda i, s: i < 6, body, (lib.constant(0), lib.constant(0.0)))


def _max_iterations(lib):
    return lib.while_loop(lambda x: x < 100.0, lambda x: x * 2.0, [lib.constant(1.0)],
                          maximum_iterations=3)


def _shape_invariants(lib):
    x = lib.constant([1.0])
    return lib.while_loop(lambda x: lib.size(x) < 4, lambda x: lib.concat([x, x], 0), [x],
                          shape_invariants=[lib.TensorShape([None])])


LOOPS = {
    "simple": (_simple_loop, None),
    "captured": (_captured, {"w:0": 3.0}),
    "nested": (_nested, None),
    "cond_in_while": (_cond_in_while, None),
    "max_iterations": (_max_iterations, None),
    "shape_invariants": (_shape_invariants, None),
}


@pytest.mark.parametrize("case", sorted(LOOPS))
def test_while_loop_matches_tf(case):
    build, feeds = LOOPS[case]
    got, want, our_ops, their_ops, _, _ = _run_both(build, feeds)
    _assert_close(got, want)
    assert our_ops == their_ops


@pytest.mark.parametrize("case", sorted(LOOPS))
def test_tf_imports_and_runs_our_while_loop(case):
    build, feeds = LOOPS[case]
    got, _, _, _, graph_def, fetch_names = _run_both(build, feeds)
    theirs = _tf_runs_our_graph(graph_def, fetch_names, feeds)
    _assert_close(got, theirs)


def test_while_loop_static_shapes_match_tf():
    def build(lib):
        x = lib.placeholder(lib.float32, [None, 3], name="x")
        return lib.while_loop(lambda i, x: i < 2, lambda i, x: (i + 1, x + 1.0),
                              [lib.constant(0), x])

    with tf.Graph().as_default():
        ours = build(tf)
    with tf_ref.Graph().as_default():
        theirs = build(tf1)
    assert [t.shape.as_list() for t in ours] == [t.shape.as_list() for t in theirs]
