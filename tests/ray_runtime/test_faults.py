"""Faults on Ray: a killed ps or worker actor surfaces as UnavailableError within a
bounded time, and MonitoredTrainingSession recreates the actors, restores the last
checkpoint and finishes training (ray_runtime/master.py, ray_runtime/actors.py,
graphcore/train/monitored_session.py)."""

import logging
import os
import time

import numpy as np
import pytest

import graphcore as tf
import ray_runtime
from graphcore import errors

CLUSTER = {"ps": 2, "worker": 1}
X = np.array([[1.0, 0.5], [0.2, 1.0], [0.3, 0.3]], np.float32)
LAST_STEP = 10


def _model(cluster):
    setter = tf.train.replica_device_setter(cluster=cluster) if cluster else None
    with tf.device(setter):
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        w = tf.Variable(np.array([[1.0], [2.0]], np.float32), name="w")
        b = tf.Variable(0.5, name="b")
        step = tf.train.get_or_create_global_step()
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - 1.0))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    return x, w, b, step, train


def _config(timeout_ms=60000):
    config = tf.ConfigProto(operation_timeout_in_ms=timeout_ms)
    config.cluster_def.CopyFrom(tf.train.ClusterSpec(CLUSTER).as_cluster_def())
    return config


class KillOnceHook(tf.train.SessionRunHook):
    """Kills the actor of ``victim`` after the step that takes the global step to ``at``,
    and records every session creation (time, global step, variable values)."""

    def __init__(self, ray, cluster_name, victim, at):
        self.ray = ray
        self.name = f"graphcore/{cluster_name}/{victim}"
        self.at = at
        self.killed_at = None
        self.created = []

    def begin(self):
        g = tf.get_default_graph()
        self._step = tf.train.get_global_step()
        self._vars = [g.get_tensor_by_name("w:0"), g.get_tensor_by_name("b:0")]

    def after_create_session(self, session, coord):
        self.created.append((time.time(), int(session.run(self._step)),
                             session.run(self._vars)))

    def after_run(self, run_context, run_values):
        if self.killed_at is None and run_context.session.run(self._step) == self.at:
            actor = self.ray.get_actor(self.name, namespace="graphcore")
            self.ray.kill(actor, no_restart=True)
            self.killed_at = time.time()


def _local_reference():
    with tf.Graph().as_default():
        x, w, b, step, train = _model(None)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(LAST_STEP):
                sess.run(train, {x: X})
            return sess.run([w, b])


@pytest.mark.parametrize("victim", ["worker/0", "ps/1"])
def test_killed_actor_recovers_from_last_checkpoint(ray_cluster, cluster_name, victim,
                                                    tmp_path, caplog):
    ckpt = str(tmp_path)
    x, w, b, step, train = _model(CLUSTER)
    kill = KillOnceHook(ray_cluster, cluster_name, victim, at=5)
    steps = []
    caplog.set_level(logging.WARNING, logger="tensorflow")
    with tf.train.MonitoredTrainingSession(
            master=f"ray://auto?cluster={cluster_name}", config=_config(),
            checkpoint_dir=ckpt, save_checkpoint_steps=3,
            hooks=[kill, tf.train.StopAtStepHook(last_step=LAST_STEP)]) as sess:
        while not sess.should_stop():
            sess.run(train, {x: X})
            steps.append(int(sess.run(step)))
        assert sess.recoveries == 1
        final = sess.run([w, b])
    # The step after the kill raised UnavailableError naming the task, and the new
    # session came up within a bounded time (no hang).
    task = "/job:{}/replica:0/task:{}".format(*victim.split("/"))
    warnings = [r.getMessage() for r in caplog.records if "UnavailableError" in r.getMessage()]
    assert len(warnings) == 1 and task in warnings[0], caplog.text
    assert len(kill.created) == 2
    recreated_at, restored_step, restored = kill.created[1]
    assert recreated_at - kill.killed_at < 30.0
    # Restored from model.ckpt-3 (the last one before the kill at step 5): the global
    # step goes back to 3, never further, and the variables hold the saved values.
    assert restored_step == 3
    path = os.path.join(ckpt, "model.ckpt-3")
    np.testing.assert_array_equal(restored[0], tf.train.load_variable(path, "w"))
    np.testing.assert_array_equal(restored[1], tf.train.load_variable(path, "b"))
    # The first run after the kill that needs the victim failed and was run again on the
    # restored state: for the worker, the read of the step (with the hooks' fetch of
    # global_step/add, placed on the worker as in TF); for the ps, the next train step.
    if victim == "worker/0":
        assert steps == [1, 2, 3, 4, 3, 4, 5, 6, 7, 8, 9, 10]
    else:
        assert steps == [1, 2, 3, 4, 5, 4, 5, 6, 7, 8, 9, 10]
    # The victim is a new actor, and the trained values match a fault-free run.
    ray_cluster.get_actor(f"graphcore/{cluster_name}/{victim}", namespace="graphcore")
    ref_w, ref_b = _local_reference()
    np.testing.assert_allclose(final[0], ref_w, rtol=1e-5)
    np.testing.assert_allclose(final[1], ref_b, rtol=1e-5)
    assert tf.train.latest_checkpoint(ckpt).endswith(f"model.ckpt-{LAST_STEP}")


def test_killed_actor_error_is_bounded_in_time(ray_cluster, cluster_name):
    x, w, b, step, train = _model(CLUSTER)
    sess = ray_runtime.session("ray://auto", cluster=CLUSTER, cluster_name=cluster_name,
                               config=tf.ConfigProto(operation_timeout_in_ms=60000))
    sess.run(tf.global_variables_initializer())
    sess.run(train, {x: X})
    ray_cluster.kill(ray_cluster.get_actor(f"graphcore/{cluster_name}/worker/0",
                                           namespace="graphcore"))
    start = time.time()
    with pytest.raises(errors.UnavailableError, match="/job:worker/replica:0/task:0"):
        sess.run(train, {x: X})
    assert time.time() - start < 10.0
    # A new session on the same cluster recreates the dead actor; the ps still hold
    # the variables.
    sess2 = ray_runtime.session("ray://auto", cluster=CLUSTER, cluster_name=cluster_name)
    assert sess2.run(step) == 1
    sess2.run(train, {x: X})
    assert sess2.run(step) == 2


def test_new_session_right_after_a_kill_gets_a_live_actor(ray_cluster, cluster_name):
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(3.0, name="v")
    sess = ray_runtime.session("ray://auto", cluster={"ps": 1}, cluster_name=cluster_name)
    sess.run(v.initializer)
    old = ray_cluster.get_actor(f"graphcore/{cluster_name}/ps/0", namespace="graphcore")
    ray_cluster.kill(old)
    # The name may still resolve to the dying actor for a moment: the engine waits for
    # it to go and creates a new one (which holds no variables yet).
    sess2 = ray_runtime.session("ray://auto", cluster={"ps": 1}, cluster_name=cluster_name)
    with pytest.raises(errors.FailedPreconditionError):
        sess2.run(v)
    sess2.run(v.initializer)
    assert sess2.run(v) == 3.0
