"""Bad input through the Ray path gives the local session's typed errors, and the task
actors stay usable afterwards (ray_runtime/master.py, ray_runtime/actors.py): wrong
feeds and fetch names fail in the client as locally, and kernel errors on a worker or
ps actor come back as the same graphcore.errors class with the node's name."""

import numpy as np

import graphcore as tf
import ray_runtime
from graphcore import errors

CLUSTER = {"ps": 1, "worker": 1}


def _wrong_shape_feed():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    return tf.reduce_sum(x, name="sum"), {x: np.ones((2, 3), np.float32)}


def _wrong_dtype_feed():
    x = tf.placeholder(tf.float32, [2], name="x")
    return tf.reduce_sum(x, name="sum"), {x: np.array([b"a", b"b"], dtype=object)}


def _unknown_fetch():
    tf.constant(1.0, name="c")
    return "no_such_tensor:0", None


def _unknown_op_in_graph_def():
    gd = tf.GraphDef()
    node = gd.node.add(name="mystery", op="NoSuchOpAnywhere")
    node.attr["T"].type = tf.float32.as_datatype_enum
    tf.import_graph_def(gd, name="imported")
    return "imported/mystery:0", None


def _gather_out_of_range():
    params = tf.constant([1.0, 2.0, 3.0], name="params")
    i = tf.placeholder(tf.int32, [1], name="i")
    return tf.gather(params, i, name="gather"), {i: np.array([7], np.int32)}


def _integer_division_by_zero():
    a = tf.constant(7, name="a")
    b = tf.placeholder(tf.int32, [], name="b")
    return tf.floordiv(a, b, name="div"), {b: 0}


def _huge_allocation():
    n = tf.placeholder(tf.int64, [], name="n")
    return tf.fill(tf.stack([n]), 1.0, name="huge"), {n: 1 << 40}  # 4 TiB of float32


def _ps_side_error():
    # A kernel error on the ps actor: the gather is colocated with its variable.
    v = tf.Variable([1.0, 2.0], name="v")
    i = tf.placeholder(tf.int32, [1], name="i")
    # read_value() made under the initializer's control edge: ``v`` itself converts to
    # its snapshot v/read, which (as in TF) may run before the initializer.
    with tf.control_dependencies([v.initializer]), tf.colocate_with(v):
        return tf.gather(v.read_value(), i, name="ps_gather"), {i: np.array([9], np.int32)}


CASES = {
    "wrong_shape_feed": _wrong_shape_feed,
    "wrong_dtype_feed": _wrong_dtype_feed,
    "unknown_fetch": _unknown_fetch,
    "unknown_op_in_graph_def": _unknown_op_in_graph_def,
    "gather_out_of_range": _gather_out_of_range,
    "integer_division_by_zero": _integer_division_by_zero,
    "huge_allocation": _huge_allocation,
    "ps_side_error": _ps_side_error,
}


def _outcome(build, make_session, device_setter):
    """(error class, message) of running the case's fetch, or of building it."""
    with tf.Graph().as_default():
        try:
            with tf.device(device_setter):
                fetch, feed = build()
            sess = make_session()
            sess.run(fetch, feed)
        except Exception as e:  # the error is what the case checks
            return type(e), getattr(e, "message", str(e))
    return None, None


def test_bad_input_gives_local_errors_and_actors_stay_usable(ray_cluster, cluster_name):
    setter = tf.train.replica_device_setter(cluster=CLUSTER)
    ray_session = lambda: ray_runtime.session(  # noqa: E731
        "ray://auto", cluster=CLUSTER, cluster_name=cluster_name,
        config=tf.ConfigProto(operation_timeout_in_ms=60000))
    ray_session().close()  # the task actors, started once
    actors = {t: ray_cluster.get_actor(f"graphcore/{cluster_name}/{t}", namespace="graphcore")
              for t in ("ps/0", "worker/0")}
    ids = {t: a._actor_id.hex() for t, a in actors.items()}
    table = {}
    for name, build in CASES.items():
        local = _outcome(build, tf.Session, None)
        remote = _outcome(build, ray_session, setter)
        table[name] = (local, remote)
    for name, ((local_cls, local_msg), (ray_cls, ray_msg)) in table.items():
        assert local_cls is not None, name
        assert ray_cls is local_cls, (name, local_cls, ray_cls, ray_msg)
        if issubclass(local_cls, errors.OpError):
            # TF's text and the node line, as locally.
            assert ray_msg.splitlines()[:2] == local_msg.splitlines()[:2], (name, ray_msg)
        else:
            assert ray_msg == local_msg, name
    assert table["huge_allocation"][1][0] is errors.ResourceExhaustedError
    assert "huge" in table["huge_allocation"][1][1]
    assert table["integer_division_by_zero"][1][0] is errors.InvalidArgumentError
    assert table["gather_out_of_range"][1][0] is errors.InvalidArgumentError
    assert "ps_gather" in table["ps_side_error"][1][1]
    # The same actors (none died or restarted) still run steps and hold variables.
    with tf.Graph().as_default():
        with tf.device(setter):
            v = tf.Variable([3.0, 4.0], name="v")
            y = tf.reduce_sum(v * 2.0)
        sess = ray_session()
        sess.run(v.initializer)
        assert sess.run(y) == 14.0
    for t, a in actors.items():
        assert ray_cluster.get_actor(f"graphcore/{cluster_name}/{t}",
                                     namespace="graphcore")._actor_id.hex() == ids[t]
        assert ray_cluster.get(a.ping.remote()) == "/job:{}/replica:0/task:{}".format(
            *t.split("/"))

