"""The global step (graphcore/train/training_util.py)."""

import numpy as np
import pytest

import graphcore as tf
from graphcore.train import training_util


def test_get_or_create_global_step():
    assert training_util.get_global_step() is None
    with tf.name_scope("outer"):
        step = training_util.get_or_create_global_step()
    assert step.op.name == "global_step" and step.name == "global_step:0"
    assert step.dtype == tf.int64_ref and step.shape.as_list() == []
    assert not step.trainable
    assert tf.get_collection(tf.GraphKeys.GLOBAL_STEP) == [step]
    assert step in tf.global_variables() and step not in tf.trainable_variables()
    assert step.initializer.name == "global_step/Assign"
    assert step.initial_value.op.name == "global_step/Initializer/zeros"
    assert training_util.get_or_create_global_step() is step
    assert training_util.get_global_step() is step
    with pytest.raises(ValueError, match='"global_step" already exists'):
        training_util.create_global_step()
    with tf.Session() as sess:
        sess.run(step.initializer)
        assert training_util.global_step(sess, step) == 0
        sess.run(tf.assign_add(step, 5))
        value = training_util.global_step(sess, step)
        assert value == 5 and isinstance(value, int)


def test_global_step_in_other_graph_and_variable_scope():
    g = tf.Graph()
    step = training_util.create_global_step(g)
    assert step.graph is g and training_util.get_global_step() is None
    assert training_util.get_global_step(g) is step
    assert training_util.get_or_create_global_step(g) is step
    with tf.variable_scope("scope"):
        scoped = training_util.create_global_step()
    assert scoped.op.name == "scope/global_step"


def test_get_global_step_by_name_and_ambiguity():
    v = tf.Variable(np.int64(3), name="global_step", trainable=False)
    found = training_util.get_global_step()
    assert found is not None and found.name == "global_step:0"
    assert found.op is v.op
    tf.add_to_collection(tf.GraphKeys.GLOBAL_STEP, v)
    tf.add_to_collection(tf.GraphKeys.GLOBAL_STEP, tf.Variable(np.int64(1), name="other"))
    assert training_util.get_global_step() is None


def test_assert_global_step():
    training_util.assert_global_step(tf.Variable(np.int64(0), name="ok"))
    training_util.assert_global_step(tf.constant(0))
    with pytest.raises(TypeError, match="must be a Variable or Tensor"):
        training_util.assert_global_step(3)
    with pytest.raises(TypeError, match="does not have integer type"):
        training_util.assert_global_step(tf.Variable(0.0, name="f"))
    with pytest.raises(TypeError, match="is not scalar"):
        training_util.assert_global_step(tf.constant([1, 2]))
    tf.Variable(1.5, name="global_step")
    with pytest.raises(TypeError, match="does not have integer type"):
        training_util.get_global_step()


def test_increment_global_step():
    with pytest.raises(ValueError, match="Global step tensor should be created"):
        training_util._increment_global_step(1)
    step = training_util.get_or_create_global_step()
    inc = training_util._increment_global_step(2)
    read = training_util._get_or_create_global_step_read()
    assert read is training_util._get_or_create_global_step_read()
    with tf.Session() as sess:
        sess.run(step.initializer)
        sess.run(inc)
        sess.run(inc)
        assert training_util.global_step(sess, step) == 4
