"""tf.train.SyncReplicasOptimizer and its ConditionalAccumulator ops, in one process
(graphcore/train/sync_replicas_optimizer.py)."""

import numpy as np
import pytest

import graphcore as tf
from graphcore import errors
from graphcore.train.sync_replicas_optimizer import ConditionalAccumulator

W0 = np.array([[1.0], [-1.0]], np.float32)
LR = 0.1


def _model():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    w = tf.Variable(W0, name="w")
    step = tf.train.get_or_create_global_step()
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
    return x, y, w, step, loss


def _grad(w, x, y):
    """d/dw mean((xw - y)^2)."""
    return 2.0 * x.T @ (x @ w - y) / len(x)


BATCHES = [(np.array([[1.0, 2.0], [0.5, 0.1]], np.float32), np.array([[1.0], [0.0]], np.float32)),
           (np.array([[0.3, -1.0]], np.float32), np.array([[2.0]], np.float32)),
           (np.array([[2.0, 0.0], [1.0, 1.0]], np.float32), np.array([[0.5], [1.5]], np.float32)),
           (np.array([[-1.0, 1.0]], np.float32), np.array([[0.0]], np.float32))]


def test_aggregates_replicas_to_aggregate_gradients_per_update():
    x, y, w, step, loss = _model()
    opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(LR),
                                         replicas_to_aggregate=2, total_num_replicas=1)
    train = opt.minimize(loss, global_step=step)
    hook = opt.make_session_run_hook(is_chief=True)
    expected = W0.copy()
    with tf.train.MonitoredTrainingSession(hooks=[hook]) as sess:
        for i, (bx, by) in enumerate(BATCHES):
            before = sess.run(w)
            sess.run(train, {x: bx, y: by})
            if i % 2 == 0:
                # One gradient in: nothing applied yet.
                assert sess.run(step) == i // 2
                np.testing.assert_array_equal(sess.run(w), before)
            else:
                g = (_grad(expected, *BATCHES[i - 1]) + _grad(expected, bx, by)) / 2
                expected = expected - LR * g
                assert sess.run(step) == (i + 1) // 2
                np.testing.assert_allclose(sess.run(w), expected, rtol=1e-5)


def test_apply_gradients_twice_and_without_global_step_fail():
    x, y, w, step, loss = _model()
    opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(LR), 2)
    grads = opt.compute_gradients(loss)
    with pytest.raises(ValueError, match="Global step"):
        opt.apply_gradients(grads)
    opt.apply_gradients(grads, global_step=step)
    with pytest.raises(ValueError, match="only once"):
        opt.apply_gradients(grads, global_step=step)


def test_conditional_accumulator_drops_stale_gradients_and_averages():
    acc = ConditionalAccumulator(tf.float32, shape=[2], shared_name="acc")
    local_step = tf.placeholder(tf.int64, [])
    grad = tf.placeholder(tf.float32, [2])
    apply = acc.apply_grad(grad, local_step=local_step)
    take = acc.take_grad(2)
    n = acc.num_accumulated()
    set_step = acc.set_global_step(tf.constant(5, tf.int64))
    with tf.Session() as sess:
        sess.run(apply, {local_step: 0, grad: [1.0, 2.0]})
        sess.run(apply, {local_step: 0, grad: [3.0, 6.0]})
        assert sess.run(n) == 2
        np.testing.assert_array_equal(sess.run(take), [2.0, 4.0])
        assert sess.run(n) == 0
        sess.run(set_step)
        sess.run(apply, {local_step: 4, grad: [9.0, 9.0]})  # stale: dropped
        assert sess.run(n) == 0
        sess.run(apply, {local_step: 5, grad: [1.0, 1.0]})
        assert sess.run(n) == 1
        with pytest.raises(ValueError, match="incompatible"):
            acc.apply_grad(tf.constant([1.0, 2.0, 3.0]), local_step=5)
        any_shape = tf.placeholder(tf.float32)
        with pytest.raises(errors.InvalidArgumentError, match="Shape mismatch"):
            sess.run(acc.apply_grad(any_shape, local_step=5), {any_shape: [1.0, 2.0, 3.0]})


def test_replica_waits_on_the_step_its_gradients_carry():
    """A run's read of the global step is unordered against the chief's update, which may
    land during the run (here a bump after the train op stands for it): the non-chief
    waits for the update after the step its gradients were stamped with, not after the
    step it happened to read (which would wait forever for its own next gradients)."""
    x, y, w, step, loss = _model()
    opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(LR),
                                         replicas_to_aggregate=2, total_num_replicas=2)
    train = opt.minimize(loss, global_step=step)
    with tf.control_dependencies([train]):
        chief_update = tf.assign_add(step, 1)
    hook = opt.make_session_run_hook(is_chief=False, timeout_secs=2)
    with tf.train.MonitoredTrainingSession(hooks=[hook]) as sess:
        bx, by = BATCHES[0]
        sess.run([train, chief_update], {x: bx, y: by})  # stamped 0; the step is now 1
        assert sess.run(step) == 1


@pytest.mark.parametrize("is_chief", [True, False])
def test_a_replica_that_stops_does_not_wait(is_chief):
    """A step that requested a stop (StopAtStepHook before the sync hook) ends the
    replica's training: neither the chief nor another replica waits on the others."""
    x, y, w, step, loss = _model()
    opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(LR),
                                         replicas_to_aggregate=2, total_num_replicas=2)
    train = opt.minimize(loss, global_step=step)
    hooks = [tf.train.StopAtStepHook(last_step=0),
             opt.make_session_run_hook(is_chief=is_chief, timeout_secs=2)]
    with tf.train.MonitoredTrainingSession(hooks=hooks) as sess:
        bx, by = BATCHES[0]
        sess.run(train, {x: bx, y: by})
        assert sess.should_stop()
        assert sess.run(step) == 0
