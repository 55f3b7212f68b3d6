"""The Ray engine: partitions on task actors, variables on ps actors (ray_runtime/)."""

import numpy as np
import pytest

import graphcore as tf
import ray_runtime
from graphcore import errors


def _ps_graph(cluster):
    with tf.device(tf.train.replica_device_setter(cluster=cluster)):
        v = tf.Variable(np.ones(3, np.float32), name="v")
        w = tf.Variable(2.0, name="w")
        x = tf.placeholder(tf.float32, [3], name="x")
        y = tf.add(tf.add(x, v), w, name="y")
        inc = tf.assign_add(v, [1.0, 1.0, 1.0])
    return v, w, x, y, inc


def test_ps_worker_partitions_and_values(cluster_name):
    cluster = {"ps": 2, "worker": 2}
    v, w, x, y, inc = _ps_graph(cluster)
    sess = ray_runtime.session("ray://auto", cluster=cluster, cluster_name=cluster_name)
    sess.run(tf.global_variables_initializer())
    np.testing.assert_array_equal(sess.run(y, {x: [1.0, 2.0, 3.0]}), [4.0, 5.0, 6.0])
    sess.run(inc)
    md = tf.RunMetadata()
    opts = tf.RunOptions(output_partition_graphs=True, trace_level=tf.RunOptions.FULL_TRACE)
    out = sess.run(y, {x: [1.0, 2.0, 3.0]}, options=opts, run_metadata=md)
    np.testing.assert_array_equal(out, [5.0, 6.0, 7.0])
    by_device = {g.node[0].device: g for g in md.partition_graphs}
    assert set(by_device) == {"/job:ps/replica:0/task:0/device:CPU:0",
                              "/job:ps/replica:0/task:1/device:CPU:0",
                              "/job:worker/replica:0/task:0/device:CPU:0"}
    ps0 = {n.op for n in by_device["/job:ps/replica:0/task:0/device:CPU:0"].node}
    assert "VariableV2" in ps0 and "AddV2" not in ps0
    worker = {n.op for n in by_device["/job:worker/replica:0/task:0/device:CPU:0"].node}
    assert "VariableV2" not in worker and "AddV2" in worker
    sends = {(n.attr["tensor_name"].s, n.attr["send_device"].s, n.attr["recv_device"].s)
             for g in md.partition_graphs for n in g.node if n.op == "_Send"}
    recvs = {(n.attr["tensor_name"].s, n.attr["send_device"].s, n.attr["recv_device"].s)
             for g in md.partition_graphs for n in g.node if n.op == "_Recv"}
    assert sends and sends == recvs
    # a DeviceStepStats per device that ran, plus each task's Ray spans and the client's
    devices = [ds.device for ds in md.step_stats.dev_stats]
    assert sorted(d for d in devices if d.endswith("CPU:0")) == sorted(by_device)
    assert sorted(d for d in devices if not d.endswith("CPU:0")) == sorted(
        ["/client"] + [d.replace("/device:CPU:0", "/ray") for d in by_device])
    sess.close()


def test_variables_shared_between_sessions_by_name(cluster_name):
    cluster = {"ps": 1, "worker": 1}
    v, w, x, y, inc = _ps_graph(cluster)
    a = ray_runtime.session("ray://auto", cluster=cluster, cluster_name=cluster_name)
    a.run(tf.global_variables_initializer())
    a.run(inc)
    g2 = tf.Graph()
    with g2.as_default():
        v2, _, _, _, _ = _ps_graph(cluster)
    b = ray_runtime.session("ray://auto", cluster=cluster, graph=g2, cluster_name=cluster_name)
    np.testing.assert_array_equal(b.run(v2), [2.0, 2.0, 2.0])


def test_errors_are_typed_and_actors_stay_usable(cluster_name):
    cluster = {"ps": 1, "worker": 1}
    with tf.device("/job:worker/task:0"):
        a = tf.placeholder(tf.float32, name="a")
        b = tf.placeholder(tf.float32, name="b")
        bad = tf.add(a, b, name="bad")
    with tf.device("/job:ps/task:0"):
        out = tf.add(bad, 1.0, name="out")
    sess = ray_runtime.session("ray://auto", cluster=cluster, cluster_name=cluster_name)
    with pytest.raises(errors.InvalidArgumentError, match="bad"):
        sess.run(out, {a: np.ones(2), b: np.ones(3)})
    np.testing.assert_array_equal(sess.run(out, {a: np.ones(2), b: np.ones(2)}), [3.0, 3.0])
    with tf.device("/job:chief/task:0"):
        missing = tf.constant(1.0, name="on_missing_job")
    with pytest.raises(errors.InvalidArgumentError, match="on_missing_job"):
        sess.run(missing)
    with tf.device("/job:ps/task:3"):
        missing_task = tf.constant(1.0, name="on_missing_task")
    with pytest.raises(errors.InvalidArgumentError, match="on_missing_task"):
        sess.run(missing_task)
    np.testing.assert_array_equal(sess.run(out, {a: np.ones(2), b: np.ones(2)}), [3.0, 3.0])


def test_dead_actor_is_unavailable_error_naming_the_task(cluster_name, ray_cluster):
    cluster = {"ps": 1, "worker": 1}
    v, w, x, y, inc = _ps_graph(cluster)
    sess = ray_runtime.session("ray://auto", cluster=cluster, cluster_name=cluster_name,
                               config=tf.ConfigProto(operation_timeout_in_ms=30000))
    sess.run(tf.global_variables_initializer())
    ps = ray_cluster.get_actor(f"graphcore/{cluster_name}/ps/0", namespace="graphcore")
    ray_cluster.kill(ps)
    with pytest.raises((errors.UnavailableError, errors.AbortedError), match="ps"):
        sess.run(y, {x: [1.0, 2.0, 3.0]})


def test_strings_and_cond_cross_actors(cluster_name):
    cluster = {"ps": 1, "worker": 1}
    with tf.device("/job:ps/task:0"):
        s = tf.constant(["a", "bc"], name="s")
        p = tf.placeholder(tf.bool, [], name="p")
        num = tf.constant([1.0, 2.0])
    with tf.device("/job:worker/task:0"):
        s2 = tf.identity(s)
        r = tf.cond(p, lambda: tf.add(num, 1.0), lambda: tf.add(num, 2.0))
    sess = ray_runtime.session("ray://auto", cluster=cluster, cluster_name=cluster_name)
    assert list(sess.run(s2)) == [b"a", b"bc"]
    np.testing.assert_array_equal(sess.run(r, {p: True}), [2.0, 3.0])
    np.testing.assert_array_equal(sess.run(r, {p: False}), [3.0, 4.0])


def test_job_resources_are_reserved_by_the_task_actors(cluster_name, ray_cluster):
    cluster = {"ps": 1, "worker": 1}
    v, w, x, y, inc = _ps_graph(cluster)
    sess = ray_runtime.session("ray://auto", cluster=cluster, cluster_name=cluster_name,
                               job_resources={"worker": {"num_cpus": 1}})
    sess.run(tf.global_variables_initializer())
    np.testing.assert_array_equal(sess.run(y, {x: [1.0, 2.0, 3.0]}), [4.0, 5.0, 6.0])

    def held(job):
        actor = ray_cluster.get_actor(f"graphcore/{cluster_name}/{job}/0", namespace="graphcore")
        return ray_cluster.get(actor.assigned_resources.remote())

    assert held("worker") == {"CPU": 1.0}
    assert held("ps").get("CPU", 0.0) == 0.0
    with pytest.raises(ValueError, match="unknown keys"):
        ray_runtime.session("ray://auto", cluster=cluster, cluster_name=cluster_name,
                            job_resources={"worker": {"cpus": 1}})
