"""A chaos loop: a random task actor is killed again and again while
MonitoredTrainingSession trains on Ray.  The run ends at the right global step, with
the accuracy (and weights) of an undisturbed run, in bounded time; afterwards no task
actor or placement group of the cluster is left and the object store is back to its
starting use (ray_runtime/master.py, graphcore/train/monitored_session.py).

A killer thread strikes at a random moment (mid-step, mid-save) once the session has
run a given number of steps since it last (re)started: a recovery itself takes
seconds, so kills on a fixed clock would leave a fast machine untouched and a slow
one no time to train.  CI runs a short loop (3 kills, well under 30 s);
GRAPHCORE_CHAOS_LONG=1 runs a long one (1000 steps, a kill 40 steps after each
recovery: some 25-30 kills, a few minutes).
"""

import os
import random
import threading
import time

import numpy as np
import pytest

import graphcore as tf
import ray_runtime

LONG = os.environ.get("GRAPHCORE_CHAOS_LONG") == "1"
LAST_STEP = 1000 if LONG else 120
KILL_AFTER_STEPS = 40 if LONG else 15
MAX_KILLS = 10_000 if LONG else 3
CLUSTER = {"ps": 2, "worker": 1}
TASKS = ["ps/0", "ps/1", "worker/0"]

_rng = np.random.RandomState(0)
TRUE_W = _rng.normal(size=(8, 1)).astype(np.float32)
TRAIN_X = _rng.normal(size=(10, 32, 8)).astype(np.float32)  # 10 batches of 32
TRAIN_Y = (TRAIN_X @ TRUE_W > 0).astype(np.float32)
TEST_X = _rng.normal(size=(500, 8)).astype(np.float32)
TEST_Y = (TEST_X @ TRUE_W > 0).astype(np.float32)


def _model(cluster):
    """Logistic regression; step s trains on batch s % 10 (chosen in the graph, so a
    run restored from a checkpoint sees the same batches again)."""
    with tf.device(tf.train.replica_device_setter(cluster=cluster) if cluster else None):
        w = tf.Variable(tf.zeros([8, 1]), name="w")
        b = tf.Variable(0.0, name="b")
        step = tf.train.get_or_create_global_step()
        i = tf.mod(step, TRAIN_X.shape[0])
        x = tf.gather(tf.constant(TRAIN_X), i)
        y = tf.gather(tf.constant(TRAIN_Y), i)
        loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
            labels=y, logits=tf.matmul(x, w) + b))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=step)
    return w, b, step, train


def _accuracy(w, b):
    return float(np.mean(((TEST_X @ w + b) > 0) == (TEST_Y > 0)))


def _undisturbed():
    with tf.Graph().as_default():
        w, b, step, train = _model(None)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(LAST_STEP):
                sess.run(train)
            return sess.run([w, b])


def _store_bytes_used(ray):
    from ray._private.internal_api import get_memory_info_reply, get_state_from_address

    address = ray.get_runtime_context().gcs_address
    return get_memory_info_reply(get_state_from_address(address)).store_stats \
        .object_store_bytes_used


class Killer(threading.Thread, tf.train.SessionRunHook):
    """Kills a random task actor of ``cluster_name`` at a random moment once the
    session has run ``after_steps`` steps since it (re)started; as a hook it counts
    them."""

    def __init__(self, ray, cluster_name, after_steps, seed):
        super().__init__(daemon=True)
        self.ray = ray
        self.cluster_name = cluster_name
        self.after_steps = after_steps
        self.rng = random.Random(seed)
        self.stop = threading.Event()
        self.due = threading.Event()
        self.steps_up = 0
        self.kills = []

    def after_create_session(self, session, coord):
        self.steps_up = 0

    def after_run(self, run_context, run_values):
        self.steps_up += 1
        if self.steps_up == self.after_steps:
            self.due.set()

    def run(self):
        while len(self.kills) < MAX_KILLS:
            while not self.due.wait(0.05):
                if self.stop.is_set():
                    return
            self.due.clear()
            # Anywhere in the next step or two: mid-step, mid-save, between steps.
            if self.stop.wait(self.rng.uniform(0, 0.1)):
                return
            task = self.rng.choice(TASKS)
            try:
                actor = self.ray.get_actor(f"graphcore/{self.cluster_name}/{task}",
                                           namespace="graphcore")
            except ValueError:  # between a death and its replacement: try again
                self.due.set()
                continue
            self.ray.kill(actor, no_restart=True)
            self.kills.append((time.time(), task))


@pytest.mark.timeout(1800 if LONG else 300)
def test_chaos_loop(ray_cluster, cluster_name, tmp_path):
    time.sleep(0.5)  # objects of the tests before are freed asynchronously
    store_before = _store_bytes_used(ray_cluster)
    started = time.time()
    w, b, step, train = _model(CLUSTER)
    config = tf.ConfigProto(operation_timeout_in_ms=30000)
    config.cluster_def.CopyFrom(tf.train.ClusterSpec(CLUSTER).as_cluster_def())
    # A SPREAD placement group even on one node, to show it is removed afterwards.
    from ray_runtime import actors

    actors.set_placement_strategy(cluster_name, "SPREAD")
    seed = random.randrange(1 << 30)
    killer = Killer(ray_cluster, cluster_name, KILL_AFTER_STEPS, seed)
    steps = 0
    with tf.train.MonitoredTrainingSession(
            master=f"ray://auto?cluster={cluster_name}", config=config,
            checkpoint_dir=str(tmp_path), save_checkpoint_steps=10,
            save_summaries_steps=None, log_step_count_steps=0,
            hooks=[killer, tf.train.StopAtStepHook(last_step=LAST_STEP)]) as sess:
        killer.start()
        while not sess.should_stop():
            global_step = sess.run([train, step])[1]
            steps += 1
            # No kill in the last steps: the final checkpoint is saved when the
            # session closes, where TF recovers from nothing either.
            if global_step >= LAST_STEP - 5 and killer.is_alive():
                killer.stop.set()
                killer.join()
        recoveries = sess.recoveries
        final_step = int(sess.run(step))
        final = sess.run([w, b])
    elapsed = time.time() - started
    kills = len(killer.kills)
    assert kills >= (20 if LONG else MAX_KILLS), (seed, killer.kills)
    # Every kill that hit a live step made one recovery (a kill of an actor no step had
    # touched yet, or one landing during a recovery, may be absorbed by it).
    assert 1 <= recoveries <= kills, (seed, recoveries, killer.kills)
    assert final_step == LAST_STEP
    assert steps >= LAST_STEP
    ref_w, ref_b = _undisturbed()
    assert abs(_accuracy(*final) - _accuracy(ref_w, ref_b)) <= 0.01
    assert _accuracy(*final) > 0.9
    np.testing.assert_allclose(final[0], ref_w, rtol=1e-4, atol=1e-5)
    assert tf.train.latest_checkpoint(str(tmp_path)).endswith(f"model.ckpt-{LAST_STEP}")
    assert elapsed < (1800 if LONG else 60), elapsed
    # Nothing left behind: no task actor, no placement group, no object in the store.
    ray_runtime.shutdown_cluster(cluster_name, jobs=CLUSTER)
    prefix = f"graphcore/{cluster_name}/"
    deadline = time.time() + 10
    while True:
        named = [a["name"] for a in ray_cluster.util.list_named_actors(all_namespaces=True)
                 if a["name"].startswith(prefix)]
        groups = [t for t in ray_cluster.util.placement_group_table().values()
                  if t["name"] == f"graphcore/{cluster_name}" and t["state"] != "REMOVED"]
        store_after = _store_bytes_used(ray_cluster)
        if (not named and not groups and store_after <= store_before) or \
                time.time() > deadline:
            break
        time.sleep(0.2)
    assert named == [] and groups == []
    assert store_after <= store_before, (store_before, store_after)
