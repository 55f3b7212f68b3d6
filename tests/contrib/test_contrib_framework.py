"""tf.contrib.framework: arg_scope semantics (nesting, override, call arguments win, errors),
the model-variable helpers and collections, variable lookups, and restoring from
checkpoints by assign_from_checkpoint(_fn) / assign_from_values."""

import numpy as np
import pytest

import graphcore as tf

framework = tf.contrib.framework
layers = tf.contrib.layers


@framework.add_arg_scope
def _op(a, b=1, c=2, d=3):
    return (a, b, c, d)


@framework.add_arg_scope
def _other(a, c=0):
    return (a, c)


def _plain(a, b=1):
    return (a, b)


def test_arg_scope_nesting_override_and_call_arguments():
    assert _op(0) == (0, 1, 2, 3)
    with framework.arg_scope([_op, _other], c=10) as outer:
        assert _op(0) == (0, 1, 10, 3) and _other(0) == (0, 10)
        with framework.arg_scope([_op], b=20, c=30):
            assert _op(0) == (0, 20, 30, 3) and _other(0) == (0, 10)
            assert _op(0, c=5) == (0, 20, 5, 3)
        assert _op(0) == (0, 1, 10, 3)
    assert _op(0) == (0, 1, 2, 3)
    with framework.arg_scope(outer):
        assert _op(0) == (0, 1, 10, 3)
    assert framework.has_arg_scope(_op) and not framework.has_arg_scope(_plain)
    assert framework.arg_scoped_arguments(_op) == ("b", "c", "d")
    assert _op.__name__ == "_op"


@pytest.mark.parametrize("ops,kwargs,error,match", [
    ([_plain], {"b": 2}, ValueError, "is not decorated with @add_arg_scope"),
    (_op, {"b": 2}, TypeError, "must either be a list/tuple or reused scope"),
    ({}, {"b": 2}, ValueError, "kwargs must be empty"),
])
def test_arg_scope_errors(ops, kwargs, error, match):
    with pytest.raises(error, match=match):
        with framework.arg_scope(ops, **kwargs):
            pass


def test_arg_scope_on_layers_and_model_variable_device():
    x = tf.ones([2, 8, 8, 3])
    with framework.arg_scope([layers.conv2d, layers.fully_connected], activation_fn=None,
                             weights_regularizer=layers.l2_regularizer(0.1)):
        with framework.arg_scope([layers.conv2d], padding="VALID"):
            net = layers.conv2d(x, 4, 3, scope="c1")
        net = layers.conv2d(net, 4, 3, padding="SAME", activation_fn=tf.nn.relu, scope="c2")
        with framework.arg_scope([framework.model_variable], device="/cpu:0"):
            out = layers.fully_connected(layers.flatten(net), 2, scope="fc")
    assert net.shape.as_list() == [2, 6, 6, 4] and net.op.type == "Relu"
    assert out.op.type == "BiasAdd"
    assert len(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)) == 3
    assert tf.get_collection(tf.GraphKeys.MODEL_VARIABLES)[-1].device == "/device:CPU:0"
    assert tf.get_collection(tf.GraphKeys.MODEL_VARIABLES)[0].device == ""


def test_variables_and_lookups():
    with tf.variable_scope("net"):
        w = framework.model_variable("weights", [2, 3], initializer=tf.ones_initializer())
        b = framework.variable("biases", [3], collections=["extra"], trainable=False)
        with tf.variable_scope("sub"):
            w2 = framework.model_variable("weights", [1])
    local = framework.local_variable([1.0], name="counter")
    glob = framework.global_variable(0, name="g")
    step = framework.get_or_create_global_step()
    assert framework.get_global_step() is step
    assert [v.op.name for v in framework.get_model_variables()] == ["net/weights",
                                                                   "net/sub/weights"]
    assert tf.get_collection("extra") == [b] and b not in tf.global_variables()
    assert framework.get_variables("net/sub") == [w2]
    assert framework.get_variables(suffix="weights") == [w, w2]
    assert framework.get_variables_by_name("weights") == [w, w2]
    assert framework.get_variables_by_suffix("biases") == []
    assert framework.get_unique_variable("net/weights") is w
    assert framework.get_trainable_variables("net") == [w, w2]
    assert framework.get_local_variables() == [local]
    assert glob in tf.global_variables() and glob not in tf.trainable_variables()
    assert framework.get_variables_to_restore(exclude=["net/sub"]) == [w, glob, step]
    assert framework.get_variables_to_restore(include=["net/sub", "g"]) == [w2, glob, step]
    assert framework.filter_variables([w, w2, glob], include_patterns=["weights"],
                                      exclude_patterns=["sub"]) == [w]
    with pytest.raises(ValueError, match="Couldn't find variable nope"):
        framework.get_unique_variable("nope")
    with pytest.raises(TypeError, match="include is provided but is not a list"):
        framework.get_variables_to_restore(include="net")


def test_assign_from_checkpoint_and_values(tmp_path):
    a = tf.Variable([[1.0, 2.0]], name="a")
    b = tf.Variable(3.0, name="b")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = tf.train.Saver().save(sess, str(tmp_path / "model.ckpt"))
    assert framework.list_variables(path) == [("a", [1, 2]), ("b", [])]
    np.testing.assert_array_equal(framework.load_variable(path, "a"), [[1.0, 2.0]])
    tf.reset_default_graph()
    a = tf.Variable(tf.zeros([1, 2]), name="a")
    b = tf.Variable(0.0, name="b")
    c = tf.Variable(0.0, name="c")
    restore = framework.assign_from_checkpoint_fn(path, [a, c], ignore_missing_vars=True)
    op, feed = framework.assign_from_checkpoint(path, {"b": b})
    values_fn = framework.assign_from_values_fn({"c": np.array(7.0, np.float32)})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        restore(sess)
        sess.run(op, feed)
        values_fn(sess)
        np.testing.assert_array_equal(sess.run([a, b, c])[0], [[1.0, 2.0]])
        assert sess.run([b, c]) == [3.0, 7.0]
    with pytest.raises(ValueError, match=r"Checkpoint is missing variable \[c\]"):
        framework.assign_from_checkpoint(path, [c])
    with pytest.raises(ValueError, match="var_list cannot be empty"):
        framework.assign_from_checkpoint_fn(path, [])
