"""A ps actor SIGKILLed in the middle of a sharded ``Saver.save`` (each ps writes its
own shard with SaveV2 in its own process, the last merges them with
MergeV2Checkpoints): the save fails with UnavailableError naming the task, and the
previous checkpoint and the ``checkpoint`` state file stay valid and restorable
(graphcore/lib/io/checkpoint_format.py, graphcore/train/saver.py)."""

import os
import random
import signal
import threading
import time

import numpy as np

import graphcore as tf
import ray_runtime
from graphcore import errors

CLUSTER = {"ps": 2}  # no worker: ps/0 runs the unpinned ops
N = 256 * 1024  # 1 MiB per ps shard


def _model():
    gen = tf.placeholder(tf.int64, [], name="gen_in")
    big = []
    for i in range(2):
        with tf.device(f"/job:ps/task:{i}"):
            big.append(tf.Variable(tf.zeros([N]), name=f"big{i}"))
    with tf.device("/job:ps/task:0"):
        counter = tf.Variable(tf.constant(0, tf.int64), name="gen")
    fill = tf.fill([N], tf.cast(gen, tf.float32))
    assign = tf.group(*[b.assign(fill) for b in big], counter.assign(gen))
    return gen, assign


def _pid(ray, cluster_name, task):
    actor = ray.get_actor(f"graphcore/{cluster_name}/{task}", namespace="graphcore")
    return ray.get(actor.__ray_call__.remote(lambda self: os.getpid()))


def test_sigkill_of_a_ps_during_a_sharded_save(ray_cluster, cluster_name, tmp_path):
    directory = str(tmp_path)
    gen, assign = _model()
    saver = tf.train.Saver(sharded=True, max_to_keep=2)
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    # ps/1 writes its shard and then merges both (it holds the last device).
    victim = "ps/1"
    sess = ray_runtime.session("ray://auto", cluster=CLUSTER, cluster_name=cluster_name,
                               config=tf.ConfigProto(operation_timeout_in_ms=60000))
    sess.run(tf.global_variables_initializer())
    pid = _pid(ray_cluster, cluster_name, victim)
    log = {"done": [], "error": None, "save_secs": None}

    def save_loop():
        g = 1
        try:
            while True:
                sess.run(assign, {gen: g})
                start = time.time()
                saver.save(sess, os.path.join(directory, "model.ckpt"), global_step=g)
                log["save_secs"] = time.time() - start
                log["done"].append(g)
                g += 1
        except errors.OpError as e:
            log["error"] = e

    thread = threading.Thread(target=save_loop)
    thread.start()
    while len(log["done"]) < 2 and thread.is_alive():
        time.sleep(0.005)
    time.sleep(rng.uniform(0, log["save_secs"]))
    os.kill(pid, signal.SIGKILL)
    killed_at = time.time()
    thread.join(30)
    assert not thread.is_alive(), "the save hung after its ps was killed"
    assert time.time() - killed_at < 15
    task = "/job:{}/replica:0/task:{}".format(*victim.split("/"))
    assert isinstance(log["error"], errors.UnavailableError), (seed, log["error"])
    assert task in log["error"].message
    sess.close()
    latest = tf.train.latest_checkpoint(directory)
    g = int(latest.rsplit("-", 1)[1])
    assert log["done"][-1] <= g <= log["done"][-1] + 1, (seed, g, log["done"])
    for path in tf.train.get_checkpoint_state(directory).all_model_checkpoint_paths:
        step = int(path.rsplit("-", 1)[1])
        assert tf.train.load_variable(path, "gen") == step
        for name in ("big0", "big1"):
            np.testing.assert_array_equal(tf.train.load_variable(path, name),
                                          np.full(N, step, np.float32))
    # A fresh session restores the latest checkpoint through the recreated ps actor.
    sess = ray_runtime.session("ray://auto", cluster=CLUSTER, cluster_name=cluster_name)
    saver.restore(sess, latest)
    assert sess.run("gen:0") == g
