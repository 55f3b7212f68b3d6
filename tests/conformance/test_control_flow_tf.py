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


pytestmark = pytest.mark.usefixtures("tf_control_flow_v1")


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


@pytest.mark.parametrize("case", sorted(LOOPS))
def test_we_import_and_run_tfs_while_loop(case):
    """TF's loop GraphDef (back edges included) imports into graphcore and runs."""
    build, feeds = LOOPS[case]
    with tf_ref.Graph().as_default() as tg:
        out = build(tf1)
        fetch_names = [t.name for t in _flat(out)]
        with tf1.Session() as sess:
            want = sess.run(out, {tg.get_tensor_by_name(k): v
                                  for k, v in (feeds or {}).items()})
        their_bytes = tg.as_graph_def().SerializeToString()
    with tf.Graph().as_default() as g:
        tf.import_graph_def(tf.GraphDef.FromString(their_bytes), name="")
        with tf.Session() as sess:
            got = sess.run(fetch_names, {g.get_tensor_by_name(k): v
                                         for k, v in (feeds or {}).items()})
    _assert_close(got, _flat(want))


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


# -- gradients -------------------------------------------------------------------------------

def _grad_simple(lib):
    x = lib.placeholder(lib.float32, [3], name="x")
    w = lib.placeholder(lib.float32, [3], name="w")
    _, y = lib.while_loop(lambda i, v: i < 4, lambda i, v: (i + 1, v * w),
                          [lib.constant(0), x])
    return [y] + lib.gradients(y, [x, w])


def _grad_nonlinear(lib):
    x = lib.placeholder(lib.float32, [2, 2], name="x")
    m = lib.constant([[0.5, -0.2], [0.1, 0.3]])

    def body(i, a, b):
        return i + 1, lib.tanh(lib.matmul(a, m)) + b, b * 1.1

    _, a, b = lib.while_loop(lambda i, a, b: i < 3, body, [lib.constant(0), x, x * 0.5])
    loss = lib.reduce_sum(a * a)
    return [loss] + lib.gradients(loss, [x, m])


def _grad_nested(lib):
    x = lib.placeholder(lib.float32, [], name="x")

    def outer_body(i, v):
        _, inner = lib.while_loop(lambda j, u: j < i, lambda j, u: (j + 1, u * x + 0.5),
                                  [lib.constant(0), v])
        return i + 1, inner

    _, y = lib.while_loop(lambda i, v: i < 3, outer_body, [lib.constant(0), x])
    return [y] + lib.gradients(y, [x])


def _grad_cond_in_while(lib):
    x = lib.placeholder(lib.float32, [], name="x")

    def body(i, v):
        v2 = lib.cond(lib.equal(i % 2, 0), lambda: v * x, lambda: lib.sin(v) + x)
        return i + 1, v2

    _, y = lib.while_loop(lambda i, v: i < 5, body, [lib.constant(0), x])
    return [y] + lib.gradients(y, [x])


GRADS = {
    "simple": (_grad_simple, {"x:0": np.array([1.0, 2.0, -1.0], np.float32),
                              "w:0": np.array([1.5, -0.5, 2.0], np.float32)}),
    "nonlinear": (_grad_nonlinear, {"x:0": np.array([[0.3, -0.7], [1.2, 0.4]], np.float32)}),
    "nested": (_grad_nested, {"x:0": np.float32(0.9)}),
    "cond_in_while": (_grad_cond_in_while, {"x:0": np.float32(0.7)}),
}


@pytest.mark.parametrize("case", sorted(GRADS))
def test_while_loop_gradients_match_tf(case):
    build, feeds = GRADS[case]
    got, want, our_ops, their_ops, graph_def, fetch_names = _run_both(build, feeds)
    _assert_close(got, want)
    if case == "simple":
        # the whole gradient graph, op for op
        assert our_ops == their_ops
    # TF runs our gradient graph (stacks, backprop loop) to the same values
    _assert_close(_tf_runs_our_graph(graph_def, fetch_names, feeds), want)


# -- case ------------------------------------------------------------------------------------

def _case(lib, exclusive=False, with_default=True):
    x = lib.placeholder(lib.int32, [], name="x")
    pairs = [(lib.less(x, 0), lambda: lib.constant(-1)),
             (lib.equal(x, 0), lambda: lib.constant(0)),
             (lib.less(x, 10), lambda: lib.constant(1))]
    default = (lambda: lib.constant(99)) if with_default else None
    return lib.case(pairs, default=default, exclusive=exclusive)


@pytest.mark.parametrize("value", [-5, 0, 3, 20])
@pytest.mark.parametrize("with_default", [True, False])
def test_case_matches_tf(value, with_default):
    def build(lib):
        return _case(lib, with_default=with_default)

    if not with_default and value == 20:
        # no predicate true and no default: both fail the step
        with tf.Graph().as_default() as g:
            out = build(tf)
            with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                                     match="None of conditions"):
                sess.run(out, {g.get_tensor_by_name("x:0"): value})
        return
    got, want, our_ops, their_ops, _, _ = _run_both(build, {"x:0": value})
    assert got == want
    assert our_ops == their_ops


def test_case_exclusive_matches_tf():
    got, want, our_ops, their_ops, _, _ = _run_both(
        lambda lib: _case(lib, exclusive=True), {"x:0": 5})
    assert got == want == 1
    assert our_ops == their_ops
    with tf.Graph().as_default() as g:
        out = _case(tf, exclusive=True)
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                                 match="exclusive=True"):
            sess.run(out, {g.get_tensor_by_name("x:0"): -3})
