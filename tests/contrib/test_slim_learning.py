"""slim.learning.train: the Supervisor loop runs number_of_steps steps, saves the final
checkpoint to logdir, and a second call restores it and continues; trace files when asked."""

import os

import numpy as np
import pytest

import graphcore as tf

slim = tf.contrib.slim


def _build():
    x = tf.constant(np.random.RandomState(0).rand(16, 3).astype(np.float32))
    y = tf.reduce_sum(x, 1, keepdims=True)
    pred = slim.fully_connected(x, 1, activation_fn=None, scope="fc")
    slim.losses.mean_squared_error(pred, y)
    total = slim.losses.get_total_loss()
    tf.summary.scalar("loss", total)
    return slim.learning.create_train_op(total, tf.train.GradientDescentOptimizer(0.1))


def test_train_runs_saves_and_resumes(tmp_path):
    logdir = str(tmp_path)
    loss = slim.learning.train(_build(), logdir, number_of_steps=5, save_summaries_secs=600,
                               trace_every_n_steps=4)
    assert np.isfinite(loss)
    assert os.path.exists(os.path.join(logdir, "model.ckpt-5.index"))
    traces = [f for f in os.listdir(logdir) if f.startswith("tf_trace-")]
    assert len(traces) == 2   # steps 0 and 4 (named by the global step fetched with them)
    first = tf.train.load_variable(os.path.join(logdir, "model.ckpt-5"), "fc/weights")
    tf.reset_default_graph()
    later = slim.learning.train(_build(), logdir, number_of_steps=8)
    # The Supervisor's checkpoint thread also saves (at the restored step) when the session
    # starts and may finish after the final save: look for the final checkpoint by name.
    final = os.path.join(logdir, "model.ckpt-8")
    assert os.path.exists(final + ".index")
    assert later < loss
    assert not np.allclose(tf.train.load_variable(final, "fc/weights"), first)


def test_train_argument_errors():
    train_op = _build()
    with pytest.raises(ValueError, match="Cannot provide saver because logdir=None"):
        slim.learning.train(train_op, None, saver=tf.train.Saver())
    with pytest.raises(ValueError, match="`number_of_steps` must be either None"):
        slim.learning.train(train_op, None, number_of_steps=0)
