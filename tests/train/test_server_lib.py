"""tf.train.Server in process (graphcore/train/server_lib.py): grpc:// targets of the
servers a process starts, shared variables, join, and errors."""

import threading

import pytest

import graphcore as tf
from graphcore.framework import errors


def test_local_server_sessions_share_variables_and_run_on_its_task():
    server = tf.train.Server.create_local_server()
    assert server.target.startswith("grpc://localhost:")
    assert (server.server_def.job_name, server.server_def.task_index) == ("local", 0)
    v = tf.Variable(1.0, name="v")
    inc = tf.assign_add(v, 1.0)
    with tf.Session(server.target) as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(inc) == 2.0
        assert [d.name for d in sess.list_devices()] == [
            "/job:local/replica:0/task:0/device:CPU:0"]
    with tf.Session(server.target) as sess:  # a new session sees the server's variables
        assert sess.run(v) == 2.0


def test_two_local_servers_have_their_own_targets_and_variables():
    a, b = tf.train.Server.create_local_server(), tf.train.Server.create_local_server()
    assert a.target != b.target
    v = tf.Variable(3.0, name="v")
    with tf.Session(a.target) as sess:
        sess.run(v.initializer)
    with tf.Session(b.target) as sess, pytest.raises(errors.FailedPreconditionError):
        sess.run(v)


def test_server_from_cluster_spec_uses_its_address_and_task():
    cluster = tf.train.ClusterSpec({"worker": ["localhost:52221", "localhost:52222"]})
    server = tf.train.Server(cluster, job_name="worker", task_index=1)
    assert server.target == "grpc://localhost:52222"
    with tf.Session(server.target) as sess:
        assert sess.list_devices()[0].name == "/job:worker/replica:0/task:1/device:CPU:0"
        assert sess.run(tf.constant(2) * 3) == 6


def test_job_and_task_must_be_explicit_when_the_cluster_has_a_choice():
    with pytest.raises(ValueError, match="Must specify an explicit `job_name`"):
        tf.train.Server({"ps": ["a:1"], "worker": ["b:1"]}, start=False)
    with pytest.raises(ValueError, match="Must specify an explicit `task_index`"):
        tf.train.Server({"worker": ["a:1", "b:1"]}, job_name="worker", start=False)


def test_a_target_served_twice_is_an_error():
    tf.train.Server({"w": ["localhost:52231"]})
    with pytest.raises(errors.UnknownError, match="already served"):
        tf.train.Server({"w": ["localhost:52231"]})


def test_join_returns_when_every_session_has_closed():
    server = tf.train.Server.create_local_server()
    sess = tf.Session(server.target)
    joined = threading.Event()
    waiter = threading.Thread(target=lambda: (server.join(), joined.set()), daemon=True)
    waiter.start()
    assert not joined.wait(0.2)
    sess.close()
    assert joined.wait(5)


def test_a_grpc_target_no_server_serves_is_unavailable():
    tf.constant(1.0)
    with pytest.raises(errors.UnavailableError, match="No tf.train.Server serves "
                                                      "grpc://nowhere:1"):
        tf.Session("grpc://nowhere:1")
