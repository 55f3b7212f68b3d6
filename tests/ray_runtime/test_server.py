"""tf.train.Server on Ray (ray_runtime/server.py): a task is a named actor, its target a
Ray session, join() returns when the job is over; an mnist_replica-style script run by
processes started by hand, as with TF."""

import os
import subprocess
import sys

import numpy as np
import pytest

import graphcore as tf
from graphcore.runtime import engines
from ray_runtime import actors
from ray_runtime import server as server_lib

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "replica_script.py")


def _named_actors(ray, prefix):
    return sorted(a["name"] for a in ray.util.list_named_actors(all_namespaces=True)
                  if a["name"].startswith(prefix))


def test_server_backend_registry_and_in_process_fallback(ray_cluster, monkeypatch):
    assert "ray" in engines.server_backend_names()
    # A driver that only called ray.init keeps its servers in process...
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.delenv("GRAPHCORE_SERVER", raising=False)
    local = tf.train.Server({"local": ["localhost:2400"]})
    assert local._backend is None
    # ...and so does any process with GRAPHCORE_SERVER=local.
    monkeypatch.setenv("GRAPHCORE_SERVER", "local")
    assert engines.make_server_backend(local.server_def) is None
    # The cluster name is a hash of the ClusterDef: the same hosts meet, others do not.
    a = tf.train.ClusterSpec({"ps": ["h:1"], "worker": ["h:2", "h:3"]})
    b = tf.train.ClusterSpec({"worker": {1: "h:3", 0: "h:2"}, "ps": ["h:1"]})
    c = tf.train.ClusterSpec({"ps": ["h:1"], "worker": ["h:2", "h:4"]})
    assert server_lib.cluster_name_for(a) == server_lib.cluster_name_for(b)
    assert server_lib.cluster_name_for(a) != server_lib.cluster_name_for(c)
    assert server_lib.cluster_name_for(a).startswith("tf-")
    monkeypatch.setenv("GRAPHCORE_CLUSTER", "mine")
    assert server_lib.cluster_name_for(a) == "mine"
    # In a launched task, the launcher's name goes with the launcher's ClusterSpec only.
    monkeypatch.setenv("GRAPHCORE_CLUSTER_SPEC", repr(b.as_dict()))
    assert server_lib.cluster_name_for(a) == "mine"
    assert server_lib.cluster_name_for(c).startswith("tf-")


def test_ray_server_task_actor_session_and_join(ray_cluster, cluster_name, monkeypatch):
    monkeypatch.setenv("GRAPHCORE_SERVER", "ray")
    monkeypatch.setenv("GRAPHCORE_CLUSTER", cluster_name)
    cluster = {"ps": ["localhost:2500"], "worker": ["localhost:2501"]}
    ps = tf.train.Server(cluster, job_name="ps", task_index=0)
    worker = tf.train.Server(cluster, job_name="worker", task_index=0)
    assert isinstance(worker._backend, server_lib.RayServer)
    assert worker.target == "grpc://localhost:2501"
    prefix = f"graphcore/{cluster_name}/"
    assert _named_actors(ray_cluster, prefix) == [prefix + "ps/0", prefix + "worker/0"]
    with tf.Graph().as_default():
        with tf.device(tf.train.replica_device_setter(cluster=cluster)):
            v = tf.Variable(np.ones(3, np.float32), name="v")
            out = v * 2.0
        with tf.Session(worker.target) as sess:
            sess.run(v.initializer)
            np.testing.assert_array_equal(sess.run(out), [2.0, 2.0, 2.0])
    ps_actor = ray_cluster.get_actor(prefix + "ps/0", namespace=actors.NAMESPACE)
    ps.join()  # the worker's session closed: the job is over, and the ps cleans up
    assert _named_actors(ray_cluster, prefix) == []
    with pytest.raises(ray_cluster.exceptions.RayActorError):
        ray_cluster.get(ps_actor.ping.remote(), timeout=30)


@pytest.mark.parametrize("mode", ["session", "monitored"])
def test_hand_started_processes_run_the_unmodified_script(ray_cluster, tmp_path, mode):
    """The command lines one uses with TF, plus RAY_ADDRESS: the tasks meet by the hash
    of their --ps_hosts/--worker_hosts, train, the ps exits by itself, nothing is left."""
    port = 2600 if mode == "session" else 2610
    hosts = [f"--ps_hosts=localhost:{port}",
             f"--worker_hosts=localhost:{port + 1},localhost:{port + 2}"]
    spec = tf.train.ClusterSpec({"ps": [f"localhost:{port}"],
                                 "worker": [f"localhost:{port + 1}", f"localhost:{port + 2}"]})
    if mode == "monitored":
        hosts += ["--monitored", f"--checkpoint_dir={tmp_path}"]
    name = server_lib.cluster_name_for(spec) if "GRAPHCORE_CLUSTER" not in os.environ \
        else pytest.skip("GRAPHCORE_CLUSTER is set")
    env = {**os.environ, "RAY_ADDRESS": ray_cluster.get_runtime_context().gcs_address}
    env.pop("GRAPHCORE_SERVER", None)
    tasks = [("ps", 0), ("worker", 0), ("worker", 1)]
    procs = [subprocess.Popen([sys.executable, SCRIPT, f"--job_name={job}",
                               f"--task_index={i}", "--train_steps=150", *hosts],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              env=env, cwd=HERE) for job, i in tasks]
    try:
        outs = [p.communicate(timeout=90)[0] for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
        leftover = _named_actors(ray_cluster, f"graphcore/{name}/")
        from ray_runtime import shutdown_cluster

        shutdown_cluster(name, jobs={"ps": 1, "worker": 2})
    assert [p.returncode for p in procs] == [0, 0, 0], outs
    assert "ps: job over" in outs[0]
    # Under MonitoredTrainingSession the non-chief may join only at the end (it waits
    # for the chief's initialization): the chief's loss is what must fall there.
    for out in outs[1:] if mode == "session" else outs[1:2]:
        assert "RESULT loss_decreased=True" in out, out
    steps = sum(int(line.split(" steps,")[0].split()[-1]) for out in outs[1:]
                for line in out.splitlines() if " steps, loss " in line)
    assert 150 <= steps <= 152  # the workers share one global step
    assert leftover == []  # the ps's join() removed them
