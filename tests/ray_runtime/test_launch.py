"""Between-graph replication: every worker client runs the same script (ray_runtime/launch.py)."""

import numpy as np

import ray_runtime


def test_two_worker_clients_share_ps_variables(cluster_name):
    cluster = {"ps": 2, "worker": 2}

    def main(task_index):
        import graphcore as tf
        import ray_runtime as rr

        with tf.device(tf.train.replica_device_setter(
                cluster=cluster, worker_device=f"/job:worker/task:{task_index}")):
            counter = tf.Variable(0, name="counter")
            total = tf.Variable(np.zeros(3, np.float32), name="total")
            inc = tf.assign_add(counter, 1)
            acc = tf.assign_add(total, tf.add(tf.zeros_like(total) if hasattr(
                tf, "zeros_like") else tf.constant(np.zeros(3, np.float32)), 1.0))
        sess = rr.worker_session(cluster, task_index, cluster_name)
        if task_index == 0:
            sess.run(tf.global_variables_initializer())
        else:
            rr.wait_for_variables(sess, timeout=60)
        devices = {counter.device, total.device}
        for _ in range(10):
            sess.run([inc, acc])
        sess.close()
        return sorted(devices)

    results = ray_runtime.launch(main, cluster, cluster_name=cluster_name)
    assert results == [["/job:ps/task:0", "/job:ps/task:1"]] * 2

    import graphcore as tf

    with tf.device(tf.train.replica_device_setter(cluster=cluster)):
        counter = tf.Variable(0, name="counter")
        total = tf.Variable(np.zeros(3, np.float32), name="total")
    sess = ray_runtime.session("ray://auto", cluster=cluster, cluster_name=cluster_name)
    assert sess.run(counter) == 20
    np.testing.assert_array_equal(sess.run(total), [20.0, 20.0, 20.0])


def test_launch_cli_runs_main_in_every_worker_task(ray_cluster, cluster_name, tmp_path):
    import os
    import subprocess
    import sys

    script = tmp_path / "job.py"
    script.write_text(
        "import ray_runtime\n\n"
        "def main(task_index, scale):\n"
        "    cluster, name = ray_runtime.launched_cluster()\n"
        "    return (task_index * int(scale), cluster.num_tasks('ps'), name)\n")
    env = {**os.environ, "RAY_ADDRESS": ray_cluster.get_runtime_context().gcs_address}
    out = subprocess.run(
        [sys.executable, "-m", "ray_runtime.launch", str(script), "--ps", "2", "--workers",
         "3", "--cluster-name", cluster_name, "--", "10"],
        capture_output=True, text=True, timeout=240, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        f"worker {i}: ({10 * i}, 2, '{cluster_name}')" for i in range(3)]


def test_each_launch_starts_on_a_fresh_default_graph(cluster_name):
    """Ray reuses worker processes; a second launch must not see the first one's ops."""

    def main(task_index):
        import graphcore as tf

        tf.constant(1.0, name="c")
        return len(tf.get_default_graph().get_operations())

    first = ray_runtime.launch(main, {"worker": 2}, cluster_name=cluster_name)
    second = ray_runtime.launch(main, {"worker": 2}, cluster_name=cluster_name)
    assert first == second == [1, 1]


def test_launch_sizes_every_task_actor_with_job_resources(cluster_name):
    import ray

    from ray_runtime import actors

    def main(task_index):
        import ray

        return dict(ray.get_runtime_context().get_assigned_resources())

    got = ray_runtime.launch(main, {"ps": 1, "worker": 2}, cluster_name=cluster_name,
                             job_resources={"worker": {"num_cpus": 0.5},
                                            "ps": {"num_cpus": 0.25}})
    assert got == [{"CPU": 0.5}, {"CPU": 0.5}]
    ps = ray.get_actor(actors.actor_name(cluster_name, "ps", 0), namespace=actors.NAMESPACE)
    assert ray.get(ps.assigned_resources.remote()) == {"CPU": 0.25}


def test_a_launched_step_trades_with_the_ps_in_two_calls(cluster_name):
    """The ps partition needs the worker's x before it can send y, and the worker's z
    after: the worker starts it when x is ready, x rides in run_begin, y comes back in
    its answer (the ps then waits on the worker), and z rides in the finish call: no
    deliver calls."""
    cluster = {"ps": 1, "worker": 1}

    def main(task_index):
        import ray

        import graphcore as tf
        import ray_runtime as rr
        from ray_runtime import actors

        with tf.device("/job:ps/task:0"):
            total = tf.Variable(0.0, name="total")
        with tf.device("/job:worker/task:0"):
            a = tf.placeholder(tf.float32, [], name="a")
            x = a * 2.0
        with tf.device("/job:ps/task:0"):
            y = x + 1.0
        with tf.device("/job:worker/task:0"):
            z = y * 3.0
        with tf.device("/job:ps/task:0"):
            update = tf.assign_add(total, z)
            with tf.control_dependencies([tf.Assert(tf.less(y, 5.0), [y], name="y_small")]):
                bad = tf.identity(y)
        sess = rr.worker_session(cluster, task_index, cluster_name)
        sess.run(tf.global_variables_initializer())
        ps = ray.get_actor(actors.actor_name(cluster_name, "ps", 0), actors.NAMESPACE)
        before = ray.get(ps.call_counts.remote())
        results = [float(v) for v in (sess.run([update, z], {a: 1.0})[0],
                                      sess.run([update, z], {a: 2.0})[0])]
        after = ray.get(ps.call_counts.remote())
        try:
            sess.run(bad, {a: 2.0})
            error = None
        except tf.errors.InvalidArgumentError as e:
            error = e.message.splitlines()[0]
        results.append(float(sess.run(update, {a: 0.0})))
        sess.close()
        return results, {k: after[k] - before[k] for k in after}, error

    [(values, calls, error)] = ray_runtime.launch(main, cluster, cluster_name=cluster_name)
    # z = (2a + 1) * 3: 9 then 15; then 3 more.
    assert values == [9.0, 24.0, 27.0]
    # ... and the ps runs its partition on the calls' own threads (suspended while it
    # waits on the worker's z), never on a pool thread
    assert calls == {"run": 0, "run_begin": 2, "resume": 0, "finish": 2, "deliver": 0,
                     "open": 0, "pooled": 0}
    assert error is not None and "assertion failed" in error
