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
