"""SyncReplicasOptimizer in a between-graph run on Ray: 2 worker clients, 2 ps actors,
replicas_to_aggregate=2 (graphcore/train/sync_replicas_optimizer.py).

Worker 1 also fetches a ps computation that runs after its gradients are in, so that the
run's read of ps tensors often comes after the chief's update: the replica must wait on
the step its gradients carry (a wait on the step it read stalled the run for good)."""

import numpy as np

import ray_runtime

CLUSTER = {"ps": 2, "worker": 2}
LR = 0.1
ROUNDS = 12
W0 = np.array([[1.0], [-1.0]], np.float32)
B0 = np.float32(0.5)


def _batch(round_, worker):
    rng = np.random.default_rng(100 * round_ + worker)
    x = rng.normal(size=(3, 2)).astype(np.float32)
    y = rng.normal(size=(3, 1)).astype(np.float32)
    return x, y


def _expected():
    """Each update applies the mean of the two workers' gradients at the same values."""
    w, b = W0.astype(np.float64), float(B0)
    for r in range(ROUNDS):
        gw, gb = 0.0, 0.0
        for i in range(2):
            x, y = _batch(r, i)
            err = x @ w + b - y
            gw = gw + 2.0 * x.T @ err / len(x)
            gb = gb + 2.0 * err.mean()
        w, b = w - LR * gw / 2, b - LR * gb / 2
    return w, b


def test_sync_replicas_between_graph(cluster_name):
    name = cluster_name

    def main(task_index):
        import graphcore as tf

        with tf.device(tf.train.replica_device_setter(
                cluster=CLUSTER, worker_device=f"/job:worker/task:{task_index}")):
            x = tf.placeholder(tf.float32, [None, 2], name="x")
            y = tf.placeholder(tf.float32, [None, 1], name="y")
            w = tf.Variable(W0, name="w")
            b = tf.Variable(B0, name="b")
            step = tf.train.get_or_create_global_step()
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
            opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(LR),
                                                 replicas_to_aggregate=2,
                                                 total_num_replicas=2)
            train = opt.minimize(loss, global_step=step)
        with tf.device("/job:ps/task:0"), tf.control_dependencies([train]):
            big = tf.random_uniform([400, 400], seed=task_index)
            after = tf.reduce_sum(tf.matmul(big, big))  # ~10 ms on the ps after the step
        fetches = [train, after] if task_index == 1 else train
        devices = sorted({w.device, b.device})
        config = tf.ConfigProto(operation_timeout_in_ms=60000)
        config.cluster_def.CopyFrom(tf.train.ClusterSpec(CLUSTER).as_cluster_def())
        hooks = [opt.make_session_run_hook(is_chief=task_index == 0, timeout_secs=30),
                 tf.train.StopAtStepHook(last_step=ROUNDS)]
        steps = []
        with tf.train.MonitoredTrainingSession(
                master=f"ray://auto?cluster={name}&task={task_index}",
                is_chief=task_index == 0, hooks=hooks, config=config,
                max_wait_secs=60) as sess:
            r = 0
            while not sess.should_stop():
                bx, by = _batch(r, task_index)
                sess.run(fetches, {x: bx, y: by})
                steps.append(int(sess.run(step)))
                r += 1
            final = sess.run([w, b])
        return steps, final, devices

    results = ray_runtime.launch(main, CLUSTER, cluster_name=name)
    want_w, want_b = _expected()
    for steps, (w, b), devices in results:
        # One update per round of 2 contributions: each worker sees the global step
        # advance by exactly one after each of its steps.
        assert steps == list(range(1, ROUNDS + 1))
        np.testing.assert_allclose(w, want_w, rtol=1e-5)
        np.testing.assert_allclose(b, want_b, rtol=1e-5)
        assert devices == ["/job:ps/task:0", "/job:ps/task:1"]
