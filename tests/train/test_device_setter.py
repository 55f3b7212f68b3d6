"""replica_device_setter and ClusterSpec (graphcore/train/{device_setter,server_lib}.py)."""

import pytest

import graphcore as tf


def _build(tf_mod, setter):
    with tf_mod.device(setter):
        v1 = tf_mod.Variable(1.0, name="v1", use_resource=False)
        v2 = tf_mod.Variable(2.0, name="v2", use_resource=False)
        v3 = tf_mod.Variable(3.0, name="v3", use_resource=False)
        with tf_mod.device("/job:worker/task:1"):
            y = tf_mod.add(v1, v2, name="y")
        z = tf_mod.add(y, v3, name="z")
    return {op.name: op.device for op in tf_mod.get_default_graph().get_operations()}, \
        (v1, v2, v3, y, z)


def test_round_robin_and_worker_placement():
    cluster = tf.train.ClusterSpec({"ps": ["a:1", "b:2"], "worker": 2})
    devices, (v1, v2, v3, y, z) = _build(tf, tf.train.replica_device_setter(cluster=cluster))
    assert [v1.device, v2.device, v3.device] == ["/job:ps/task:0", "/job:ps/task:1",
                                                 "/job:ps/task:0"]
    assert v1.value().device == "/job:ps/task:0"  # read colocated with its variable
    assert devices["v1/initial_value"] == "/job:worker"
    assert y.device == "/job:worker/task:1" and z.device == "/job:worker"
    assert tf.train.replica_device_setter(ps_tasks=0) is None


def test_worker_device_and_custom_strategy():
    setter = tf.train.replica_device_setter(ps_tasks=3, worker_device="/job:worker/task:7",
                                            ps_strategy=lambda op: 2)
    with tf.device(setter):
        v = tf.Variable(1.0, name="v")
        c = tf.constant(1.0, name="c")
    assert v.device == "/job:ps/task:2"
    assert c.device == "/job:worker/task:7"
    with pytest.raises(TypeError):
        tf.train.replica_device_setter(ps_tasks=1, ps_strategy=3)


def test_cluster_spec_forms():
    a = tf.train.ClusterSpec({"ps": 2, "worker": ["w0:1", "w1:1"]})
    assert a.jobs == ["ps", "worker"]
    assert a.num_tasks("ps") == 2 and a.task_indices("worker") == [0, 1]
    assert a.task_address("worker", 1) == "w1:1"
    b = tf.train.ClusterSpec(a.as_cluster_def())
    assert b == a
    assert tf.train.ClusterSpec({"worker": {3: "x:1"}}).task_indices("worker") == [3]
    with pytest.raises(ValueError):
        a.num_tasks("chief")
    with pytest.raises(TypeError):
        tf.train.ClusterSpec(["ps"])


def test_matches_tensorflow_placement():
    tf_ref = pytest.importorskip("tensorflow")
    tf1 = tf_ref.compat.v1
    cluster = {"ps": ["a:1", "b:2"], "worker": ["w:1", "w:2"]}
    with tf_ref.Graph().as_default():
        theirs, _ = _build(tf1, tf1.train.replica_device_setter(cluster=cluster))
    ours, _ = _build(tf, tf.train.replica_device_setter(cluster=cluster))
    assert ours == theirs


def _devices_of(variables):
    return [int(v.device.rsplit(":", 1)[1]) for v in variables]


def test_balance_by_bytes_equals_round_robin_for_variables_of_one_size():
    with tf.Graph().as_default():
        with tf.device(tf.train.replica_device_setter(ps_tasks=3, balance_by_bytes=True)):
            vs = [tf.get_variable(f"v{i}", [4, 4]) for i in range(7)]
        assert _devices_of(vs) == [0, 1, 2, 0, 1, 2, 0]


def test_balance_by_bytes_spreads_big_variables_round_robin_stacks():
    """Three 1000x1000 kernels and their biases on 2 ps tasks: round robin puts every
    kernel on task 0; by bytes the kernels split 2/1. Then a 4-shard table on 4 tasks
    after a kernel and its bias: each task gets one big variable."""
    def mlp(**kwargs):
        with tf.Graph().as_default():
            with tf.device(tf.train.replica_device_setter(ps_tasks=2, **kwargs)):
                vs = []
                for i in range(3):
                    vs += [tf.get_variable(f"k{i}", [1000, 1000]),
                           tf.get_variable(f"b{i}", [1000])]
            return _devices_of(vs)

    assert mlp() == [0, 1, 0, 1, 0, 1]
    assert mlp(balance_by_bytes=True) == [0, 1, 1, 0, 0, 1]

    def table(**kwargs):
        with tf.Graph().as_default():
            with tf.device(tf.train.replica_device_setter(ps_tasks=4, **kwargs)):
                kernel = tf.get_variable("kernel", [300, 300])  # 360 KB
                bias = tf.get_variable("bias", [300])
                emb = tf.get_variable("emb", [40000, 16],  # 640 KB shards
                                      partitioner=tf.fixed_size_partitioner(4))
            return _devices_of([kernel, bias]), _devices_of(list(emb))

    assert table() == ([0, 1], [2, 3, 0, 1])  # task 0: the kernel and a shard
    assert table(balance_by_bytes=True) == ([0, 1], [2, 3, 1, 0])


def test_balance_by_bytes_excludes_ps_strategy():
    with pytest.raises(ValueError, match="not both"):
        tf.train.replica_device_setter(ps_tasks=2, balance_by_bytes=True,
                                       ps_strategy=lambda op: 0)
