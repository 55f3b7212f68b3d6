"""tf.contrib.layers.optimize_loss (the step it applies, clipping, multipliers, decay,
update ops, global step, summaries, errors), tf.contrib.training.create_train_op and the
contrib summaries helpers."""

import numpy as np
import pytest

import graphcore as tf

layers = tf.contrib.layers


def _problem():
    w = tf.Variable([1.0, -2.0], name="w")
    b = tf.Variable(0.5, name="b")
    loss = tf.reduce_sum(tf.square(w)) + 3.0 * b   # grads: 2w = [2, -4], 3
    return w, b, loss


@pytest.mark.parametrize("kwargs,expected_w,expected_b", [
    ({"optimizer": "SGD"}, [0.8, -1.6], 0.2),
    ({"optimizer": tf.train.GradientDescentOptimizer}, [0.8, -1.6], 0.2),
    ({"optimizer": lambda lr: tf.train.GradientDescentOptimizer(lr)}, [0.8, -1.6], 0.2),
    # Global norm of (2, -4, 3) is sqrt(29); clipped to 1.
    ({"optimizer": "SGD", "clip_gradients": 1.0},
     [1.0 - 0.2 / 29 ** 0.5, -2.0 + 0.4 / 29 ** 0.5], 0.5 - 0.3 / 29 ** 0.5),
    ({"optimizer": "SGD", "gradient_multipliers": {"b:0": 0.0}}, [0.8, -1.6], 0.5),
    ({"optimizer": "SGD", "learning_rate_decay_fn": lambda lr, step: lr * 0.5},
     [0.9, -1.8], 0.35),
])
def test_optimize_loss_step(kwargs, expected_w, expected_b):
    w, b, loss = _problem()
    step = tf.train.get_or_create_global_step()
    counter = tf.Variable(0, name="counter")
    tf.add_to_collection(tf.GraphKeys.UPDATE_OPS, tf.assign_add(counter, 1))
    train = layers.optimize_loss(loss, step, 0.1, **kwargs)
    assert train.dtype == tf.float32 and train.shape.ndims == 0
    lr = [v.op.name for v in tf.global_variables() if "learning_rate" in v.op.name]
    assert lr == ["OptimizeLoss/learning_rate"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got_loss = sess.run(train)
        got_w, got_b, got_step, got_counter = sess.run([w, b, step, counter])
    assert got_loss == pytest.approx(5.0 + 1.5)
    np.testing.assert_allclose(got_w, expected_w, rtol=1e-5)
    assert got_b == pytest.approx(expected_b, rel=1e-5)
    assert (got_step, got_counter) == (1, 1)


def test_optimize_loss_summaries_and_errors():
    _, _, loss = _problem()
    step = tf.train.get_or_create_global_step()
    layers.optimize_loss(loss, step, 0.1, "Adam",
                         summaries=["loss", "gradients", "gradient_norm"])
    tags = sorted(s.op.name for s in tf.get_collection(tf.GraphKeys.SUMMARIES))
    assert len(tags) == 6 and any("gradients/w_0" in t for t in tags)
    with pytest.raises(ValueError, match="Optimizer name should be one of"):
        layers.optimize_loss(loss, step, 0.1, "Nope")
    with pytest.raises(ValueError, match="Summaries should be one of"):
        layers.optimize_loss(loss, step, 0.1, "SGD", summaries=["weights"])
    with pytest.raises(ValueError, match="Learning rate is None"):
        layers.optimize_loss(loss, step, None, "SGD")


def test_create_train_op_runs_updates_and_steps():
    w, b, loss = _problem()
    counter = tf.Variable(0, name="counter")
    tf.add_to_collection(tf.GraphKeys.UPDATE_OPS, tf.assign_add(counter, 1))
    train = tf.contrib.slim.learning.create_train_op(
        loss, tf.train.GradientDescentOptimizer(0.1), clip_gradient_norm=1.0,
        gradient_multipliers={w: 2.0})
    assert tf.get_collection(tf.GraphKeys.TRAIN_OP)[-1] is train
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(train) == pytest.approx(6.5)
        got_w, got_b, got_counter = sess.run([w, b, counter])
        assert sess.run(tf.train.get_global_step()) == 1
    # Multiplied ([4, -8]), then each gradient clipped to norm 1.
    np.testing.assert_allclose(got_w, [1.0 - 0.1 / 5 ** 0.5, -2.0 + 0.2 / 5 ** 0.5],
                               rtol=1e-5)
    assert got_b == pytest.approx(0.4) and got_counter == 1


def test_summaries():
    x = tf.constant([[-1.0, 2.0, 7.0, 8.0]])
    act = tf.nn.relu6(x, name="act")
    scalar = tf.reduce_sum(x, name="total")
    layers.summarize_activation(act)
    layers.summarize_tensors([scalar, x])
    tf.add_to_collection(tf.GraphKeys.ACTIVATIONS, tf.nn.relu(x, name="r"))
    layers.summarize_activations(name_filter="r")
    types = [s.op.type for s in tf.get_collection(tf.GraphKeys.SUMMARIES)]
    assert types == ["ScalarSummary", "ScalarSummary", "HistogramSummary", "ScalarSummary",
                     "HistogramSummary", "ScalarSummary", "HistogramSummary"]
    with tf.Session() as sess:
        zeros, sixes = sess.run(tf.get_collection(tf.GraphKeys.SUMMARIES)[:2])
    event = tf.Summary()
    event.ParseFromString(zeros)
    assert event.value[0].tag == "act/zeros" and event.value[0].simple_value == 0.25
    event.ParseFromString(sixes)
    assert event.value[0].tag == "act/sixes" and event.value[0].simple_value == 0.5
