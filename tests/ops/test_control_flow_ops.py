"""cond (Switch/Merge with dead tensors), group, tuple, initialized_value."""

import numpy as np
import pytest

import graphcore as tf
from graphcore import errors


def test_cond_takes_one_branch():
    x = tf.placeholder(tf.float32, [], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    c = tf.constant(5.0, name="c")
    y = tf.cond(p, lambda: tf.add(x, 10.0), lambda: tf.add(c, -10.0))
    assert y.op.type == "Merge" and y.op.name == "cond/Merge"
    with tf.Session() as sess:
        assert sess.run(y, {x: 1.0, p: True}) == 11.0
        assert sess.run(y, {x: 1.0, p: False}) == -5.0
        # x is only needed on the true branch, but the graph still needs it fed:
        with pytest.raises(errors.InvalidArgumentError, match="must feed"):
            sess.run(y, {p: False})


def test_untaken_branch_side_effects_do_not_run():
    v = tf.Variable(0, name="v")
    p = tf.placeholder(tf.bool, [])

    def bump():
        return tf.assign_add(v, 1)

    def keep():
        return tf.identity(v)

    r = tf.cond(p, bump, keep)
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(r, {p: False}) == 0
        assert sess.run(v) == 0
        assert sess.run(r, {p: True}) == 1
        assert sess.run(v) == 1


def test_nested_cond_multiple_outputs_and_ops():
    a = tf.placeholder(tf.bool, [])
    b = tf.placeholder(tf.bool, [])
    x = tf.constant(1.0)

    def inner():
        return tf.cond(b, lambda: tf.add(x, 1.0), lambda: tf.add(x, 2.0))

    out = tf.cond(a, inner, lambda: tf.add(x, 3.0))
    pair = tf.cond(a, lambda: [tf.add(x, 1.0), tf.constant(1)],
                   lambda: [tf.add(x, 2.0), tf.constant(2)])
    v = tf.Variable(0, name="counter")
    op_result = tf.cond(a, lambda: tf.assign_add(v, 5).op, lambda: tf.no_op())
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(out, {a: True, b: True}) == 2.0
        assert sess.run(out, {a: True, b: False}) == 3.0
        assert sess.run(out, {a: False, b: True}) == 4.0
        assert sess.run(pair, {a: False}) == [3.0, 2]
        assert op_result.dtype == tf.bool
        sess.run(op_result, {a: True})
        sess.run(op_result, {a: False})
        assert sess.run(v) == 5


def test_fetching_a_dead_tensor_fails_and_session_survives():
    p = tf.placeholder(tf.bool, [])
    holder = {}

    def true_fn():
        holder["inner"] = tf.add(tf.constant(1.0), 1.0, name="inner")
        return holder["inner"]

    y = tf.cond(p, true_fn, lambda: tf.constant(0.0))
    with tf.Session() as sess:
        assert sess.run(holder["inner"], {p: True}) == 2.0
        with pytest.raises(errors.InvalidArgumentError, match="does not have value"):
            sess.run(holder["inner"], {p: False})
        assert sess.run(y, {p: False}) == 0.0


def test_cond_across_devices():
    p = tf.placeholder(tf.bool, [])
    with tf.device("/device:CPU:1"):
        x = tf.constant([1.0, 2.0])
    y = tf.cond(p, lambda: tf.add(x, 1.0), lambda: tf.add(x, 2.0))
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        np.testing.assert_array_equal(sess.run(y, {p: True}), [2.0, 3.0])
        np.testing.assert_array_equal(sess.run(y, {p: False}), [3.0, 4.0])


def test_cond_errors():
    p = tf.placeholder(tf.bool, [])
    with pytest.raises(TypeError):
        tf.cond(True, lambda: tf.constant(1), lambda: tf.constant(2))
    with pytest.raises(TypeError):
        tf.cond(p, lambda: tf.constant(1), lambda: tf.constant(2.0))
    with pytest.raises(TypeError):
        tf.cond(p, None, lambda: tf.constant(2.0))


def test_initialized_value():
    v = tf.Variable(3.0, name="v")
    w = tf.Variable(tf.add(v.initialized_value(), 1.0), name="w")
    with tf.Session() as sess:
        sess.run(w.initializer)  # v itself is still uninitialized
        assert sess.run(w) == 4.0
        sess.run(v.initializer)
        sess.run(tf.assign(v, 7.0))
        assert sess.run(v.initialized_value()) == 7.0


def test_group_and_tuple():
    v = tf.Variable(0, name="v")
    a = tf.assign_add(v, 1)
    b = tf.assign_add(v, 10)
    g = tf.group(a, b, name="both")
    assert g.type == "NoOp" and g.name == "both"
    t = tf.tuple([tf.constant(1), tf.constant(2)])
    with tf.Session() as sess:
        sess.run(v.initializer)
        sess.run(g)
        assert sess.run(v) == 11
        assert sess.run(t) == [1, 2]
