"""Reference tier: resource variables against TensorFlow's compat.v1 — node names and op
types of each call, snapshot reads, optimizers' resource updates, checkpoints both ways,
and TF's own resource-variable graphs imported and trained. Skipped without TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

RNG = np.random.default_rng(3)
X = RNG.normal(size=(16, 4)).astype(np.float32)
Y = RNG.normal(size=(16, 1)).astype(np.float32)
W0 = RNG.normal(size=(4, 1)).astype(np.float32)


def _graph_nodes(lib, build):
    g = lib.Graph()
    with g.as_default():
        build(lib)
    return [(n.name, n.op, list(n.input)) for n in g.as_graph_def().node]


def _run(lib, build):
    with lib.Graph().as_default():
        fetches = build(lib)
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            return sess.run(fetches)


def _var(lib, value=(1.0, 2.0), name="w"):
    return lib.Variable(np.array(value, np.float32), name=name, use_resource=True)


GRAPH_CASES = {
    "construct": lambda t: _var(t),
    "value": lambda t: _var(t).value(),
    "read_value": lambda t: _var(t).read_value(),
    "assign": lambda t: _var(t).assign([3.0, 4.0]),
    "assign_add_no_read": lambda t: _var(t).assign_add([1.0, 1.0], read_value=False),
    "assign_sub": lambda t: _var(t).assign_sub([1.0, 1.0]),
    "sparse_read": lambda t: _var(t).sparse_read([1]),
    "operator": lambda t: _var(t) * 2.0,
    "get_variable": lambda t: t.get_variable("g", shape=[3], use_resource=True,
                                             initializer=t.zeros_initializer()),
    "scope_use_resource": lambda t: _scoped_get_variable(t),
}


def _scoped_get_variable(lib):
    with lib.variable_scope("s", use_resource=True):
        return lib.get_variable("v", shape=[2], initializer=lib.ones_initializer())


@pytest.mark.parametrize("case", sorted(GRAPH_CASES))
def test_graph_nodes_match_tf(case):
    assert _graph_nodes(tf, GRAPH_CASES[case]) == _graph_nodes(tf1, GRAPH_CASES[case])


def _snapshot_then_assign(lib):
    v = _var(lib)
    before = v.value()
    with lib.control_dependencies([before]):
        write = v.assign_add([10.0, 10.0], read_value=False)
    with lib.control_dependencies([write]):
        after = lib.identity(v.value())
    return before * 1.0, after


VALUE_CASES = {
    "assign_then_read": lambda t: _var(t).assign([3.0, 4.0]),
    "assign_add_then_read": lambda t: _var(t).assign_add([1.0, 1.0]),
    "snapshot_then_assign": _snapshot_then_assign,
    "sparse_read": lambda t: _var(t, [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]).sparse_read([2, 0]),
    # TF's gradient is IndexedSlices: compared densified.
    "gather_gradient": lambda t: t.convert_to_tensor(t.gradients(
        t.reduce_sum(_var(t, [[1.0, 2.0], [3.0, 4.0]]).sparse_read([1, 1, 0]) * 3.0),
        [t.trainable_variables()[0]])[0]),
    "gradient": lambda t: t.gradients(t.reduce_sum(_var(t) * _var(t, [3.0, 5.0], "u")),
                                      [t.trainable_variables()[0]]),
    "is_initialized": lambda t: t.is_variable_initialized(_var(t)),
}


@pytest.mark.parametrize("case", sorted(VALUE_CASES))
def test_values_match_tf(case):
    ours, theirs = _run(tf, VALUE_CASES[case]), _run(tf1, VALUE_CASES[case])
    if not isinstance(theirs, (list, tuple)):
        ours, theirs = [ours], [theirs]
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64))


OPTIMIZERS = {
    "gd": lambda t: t.train.GradientDescentOptimizer(0.1),
    "momentum": lambda t: t.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
    "adam": lambda t: t.train.AdamOptimizer(0.05),
    "adagrad": lambda t: t.train.AdagradOptimizer(0.1),
    "rmsprop": lambda t: t.train.RMSPropOptimizer(0.05, momentum=0.5),
    "rmsprop_centered": lambda t: t.train.RMSPropOptimizer(0.05, centered=True),
}


def _train(lib, make_opt, steps=5):
    with lib.Graph().as_default():
        w = lib.Variable(W0, name="w", use_resource=True)
        b = lib.get_variable("b", shape=[1], initializer=lib.zeros_initializer(),
                             use_resource=True)
        loss = lib.reduce_mean(lib.square(lib.matmul(X, w) + b - Y))
        opt = make_opt(lib)
        step = opt.minimize(loss)
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            for _ in range(steps):
                sess.run(step)
            slots = sorted(opt.get_slot_names())
            return (sess.run([w, b]), [sess.run(opt.get_slot(w, s)) for s in slots],
                    sorted(n.op for n in lib.get_default_graph().as_graph_def().node
                           if n.op.startswith("ResourceApply")))


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_optimizers_update_resource_variables_as_tf(name):
    (vars_ours, slots_ours, ops_ours) = _train(tf, OPTIMIZERS[name])
    (vars_tf, slots_tf, ops_tf) = _train(tf1, OPTIMIZERS[name])
    assert ops_ours == ops_tf
    for a, b in zip(vars_ours + slots_ours, vars_tf + slots_tf):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_checkpoints_of_resource_variables_go_both_ways(tmp_path):
    with tf.Graph().as_default():
        w = tf.Variable([1.0, 2.0], name="w", use_resource=True)
        n = tf.Variable(3, name="n")  # a ref variable beside it
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(w.assign_add([1.0, 1.0]))
            saver.save(sess, str(tmp_path / "ours"))
    with tf1.Graph().as_default():
        w = tf1.Variable([0.0, 0.0], name="w")  # TF 2.x compat.v1: a resource variable
        n = tf1.Variable(0, name="n")
        saver = tf1.train.Saver()
        with tf1.Session() as sess:
            saver.restore(sess, str(tmp_path / "ours"))
            np.testing.assert_array_equal(sess.run(w), [2.0, 3.0])
            assert sess.run(n) == 3
            sess.run(w.assign([7.0, 8.0]))
            saver.save(sess, str(tmp_path / "theirs"))
    with tf.Graph().as_default():
        w = tf.Variable([0.0, 0.0], name="w", use_resource=True)
        n = tf.Variable(0, name="n", use_resource=True)
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, str(tmp_path / "theirs"))
            np.testing.assert_array_equal(sess.run(w), [7.0, 8.0])
            assert sess.run(n) == 3


def test_tf_resource_graph_imports_and_trains_as_in_tf(tmp_path):
    """TF's own graph (resource variables, Adam), exported as a MetaGraphDef with a
    checkpoint: graphcore restores it and its train op gives TF's next values."""
    with tf1.Graph().as_default():
        w = tf1.Variable(W0, name="w")
        x = tf1.placeholder(tf1.float32, [None, 4], name="x")
        y = tf1.placeholder(tf1.float32, [None, 1], name="y")
        loss = tf1.reduce_mean(tf1.square(tf1.matmul(x, w) - y))
        train = tf1.train.AdamOptimizer(0.05).minimize(loss)
        tf1.add_to_collection("train_op", train)
        saver = tf1.train.Saver()
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            sess.run(train, {x: X, y: Y})
            saver.save(sess, str(tmp_path / "model"))
            for _ in range(3):
                sess.run(train, {x: X, y: Y})
            expected = sess.run(w)
    with tf.Graph().as_default():
        restorer = tf.train.import_meta_graph(str(tmp_path / "model.meta"))
        assert all(type(v).__name__ == "ResourceVariable" for v in tf.global_variables())
        train = tf.get_collection("train_op")[0]
        with tf.Session() as sess:
            restorer.restore(sess, str(tmp_path / "model"))
            for _ in range(3):
                sess.run(train, {"x:0": X, "y:0": Y})
            np.testing.assert_allclose(sess.run("w/Read/ReadVariableOp:0"), expected,
                                       rtol=1e-5, atol=1e-6)


def test_tf_graph_def_with_resource_variables_runs():
    with tf1.Graph().as_default() as g:
        w = tf1.get_variable("w", initializer=W0)
        out = tf1.matmul(X, w, name="out")
        tf1.identity(out)
        gd = g.as_graph_def()
        with tf1.Session() as sess:
            sess.run(w.initializer)
            expected = sess.run(out)
    with tf.Graph().as_default():
        tf.import_graph_def(gd, name="")
        with tf.Session() as sess:
            sess.run("w/Assign")
            np.testing.assert_allclose(sess.run("out:0"), expected, rtol=1e-6)
