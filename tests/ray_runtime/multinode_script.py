"""Run by test_multinode.py in a subprocess of its own (a ray.cluster_utils.Cluster
cannot share a process with the test session's Ray cluster).

Starts 4 simulated nodes with custom resources: the head and one more node offer
``worker_host``, two nodes offer ``ps_host``.  Then:

1. placement: a ps/worker cluster whose job_resources ask for those resources, in a
   STRICT_SPREAD placement group: each task on a node of its own that offers what its
   job asks for; a step across the nodes;
2. object store pressure: a step moving a tensor larger than a node's whole object
   store from the ps's node to a worker's node;
3. node loss under MonitoredTrainingSession (SPREAD): the ps's node is removed, later a
   worker's node; each time the next step raises UnavailableError naming the task,
   the session is recreated on the nodes left and restored from the last checkpoint,
   and training ends at the same global step with the values of an undisturbed run.

Prints one JSON line: ``RESULT {...}``.
"""

import json
import logging
import os
import sys
import tempfile
import time

import numpy as np

STORE = 80 * 1024 * 1024
SPEC = {"ps": 1, "worker": 2}
RESOURCES = {"ps": {"resources": {"ps_host": 0.01}},
             "worker": {"resources": {"worker_host": 0.01}}}
X = np.array([[1.0, 0.5], [0.2, 1.0], [0.3, 0.3], [0.7, -0.2]], np.float32)
LAST_STEP = 12


def _model(tf, spec):
    """w, b on the ps; each worker computes the loss of half the batch (and, with
    colocate_gradients_with_ops, its gradients); worker/0 applies them."""
    setter = tf.train.replica_device_setter(cluster=spec) if spec else None
    with tf.device(setter):
        w = tf.Variable(np.array([[1.0], [2.0]], np.float32), name="w")
        b = tf.Variable(0.5, name="b")
        step = tf.train.get_or_create_global_step()
    losses = []
    for i in range(2):
        with tf.device(f"/job:worker/task:{i}" if spec else None):
            x = tf.constant(X[2 * i:2 * i + 2], name=f"x{i}")
            losses.append(tf.reduce_mean(tf.square(tf.matmul(x, w) + b - 1.0)))
    with tf.device("/job:worker/task:0" if spec else None):
        loss = tf.add_n(losses) / 2.0
        train = tf.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=step, colocate_gradients_with_ops=True)
    return w, b, step, train


def _node_of(ray, cluster_name, task):
    actor = ray.get_actor(f"graphcore/{cluster_name}/{task}", namespace="graphcore")
    return ray.get(actor.node_id.remote())


def placement(out, tf, ray, ray_runtime):
    """Phase 1: STRICT_SPREAD over the nodes the job resources ask for."""
    with tf.Graph().as_default():
        with tf.device(tf.train.replica_device_setter(cluster=SPEC)):
            w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), name="w")
        ys = []
        for i in range(2):
            with tf.device(f"/job:worker/task:{i}"):
                x = tf.constant(np.full((1, 3), i + 1.0, np.float32), name=f"x{i}")
                ys.append(tf.matmul(x, w, name=f"y{i}"))
        with tf.device("/job:worker/task:0"):
            total = tf.add(ys[0], ys[1], name="total")
        sess = ray_runtime.session("ray://auto", cluster=SPEC, cluster_name="strict",
                                   job_resources=RESOURCES, placement_strategy="STRICT_SPREAD",
                                   config=tf.ConfigProto(operation_timeout_in_ms=60000))
        sess.run(w.initializer)
        out["total"] = sess.run(total).tolist()
        pressure(out, tf, sess)
        tasks = ("ps/0", "worker/0", "worker/1")
        out["strict_nodes"] = {t: _node_of(ray, "strict", t) for t in tasks}
        handles = {t: ray.get_actor(f"graphcore/strict/{t}", namespace="graphcore")
                   for t in tasks}
        out["assigned"] = {t: ray.get(h.assigned_resources.remote())
                           for t, h in handles.items()}
        from ray.util import get_placement_group

        pg = get_placement_group("graphcore/strict")
        out["strategy"] = ray.util.placement_group_table(pg)["strategy"]
        sess.close()
    ray_runtime.shutdown_cluster("strict")


def pressure(out, tf, sess):
    """Phase 2: one step moves 1.5 object stores' worth from the ps to a worker (on
    nodes of their own)."""
    n = STORE * 3 // 2 // 4
    with tf.device("/job:ps/task:0"):
        big = tf.Variable(tf.fill([n], 2.0), name="big")
    with tf.device("/job:worker/task:1"):
        big_total = tf.reduce_sum(big, name="big_total")
    sess.run(big.initializer)
    start = time.time()
    try:
        out["pressure_total"] = float(sess.run(big_total))
        out["pressure_error"] = None
    except tf.errors.OpError as e:
        out["pressure_error"] = [type(e).__name__, e.message]
    out["pressure_secs"] = time.time() - start
    out["pressure_bytes"] = n * 4


def node_loss(out, tf, ray, ray_runtime, cluster, nodes):
    """Phase 3: the ps's node, then a worker's node, removed mid-training."""
    records = []

    class Warnings(logging.Handler):
        def emit(self, record):
            records.append((time.time(), record.getMessage()))

    logging.getLogger("tensorflow").addHandler(Warnings(logging.WARNING))
    removals = []
    created = []
    by_id = {n.node_id: n for n in nodes}

    class RemoveNodeHook(tf.train.SessionRunHook):
        """After the step that takes the global step to a key of ``plan``, removes the
        node of that task."""

        def __init__(self, plan):
            self.plan = dict(plan)

        def begin(self):
            self._step = tf.train.get_global_step()

        def after_create_session(self, session, coord):
            created.append((time.time(), int(session.run(self._step))))

        def after_run(self, run_context, run_values):
            at = int(run_context.session.run(self._step))
            victim = self.plan.pop(at, None)
            if victim is not None:
                node = by_id[_node_of(ray, "mts", victim)]
                cluster.remove_node(node)
                removals.append((time.time(), at, victim))

    with tf.Graph().as_default():
        w, b, step, train = _model(tf, SPEC)
        config = tf.ConfigProto(operation_timeout_in_ms=60000)
        config.cluster_def.CopyFrom(tf.train.ClusterSpec(SPEC).as_cluster_def())
        from ray_runtime import actors

        actors.set_job_resources("mts", RESOURCES)
        ckpt = tempfile.mkdtemp(prefix="graphcore-multinode-")
        steps = []
        hook = RemoveNodeHook({5: "ps/0", 8: None})
        with tf.train.MonitoredTrainingSession(
                master="ray://auto?cluster=mts", config=config, checkpoint_dir=ckpt,
                save_checkpoint_steps=3, save_summaries_steps=None,
                hooks=[hook, tf.train.StopAtStepHook(last_step=LAST_STEP)]) as sess:
            out["mts_nodes_before"] = {t: _node_of(ray, "mts", t)
                                       for t in ("ps/0", "worker/0", "worker/1")}
            # The worker whose node goes second: one not on the head (which stays).
            head = ray.get_runtime_context().get_node_id()
            hook.plan[8] = next(t for t in ("worker/1", "worker/0")
                                if out["mts_nodes_before"][t] != head)
            while not sess.should_stop():
                sess.run(train)
                steps.append(int(sess.run(step)))
            out["recoveries"] = sess.recoveries
            out["final"] = [v.tolist() for v in sess.run([w, b])]
            out["final_step"] = int(sess.run(step))
            out["mts_nodes_after"] = {t: _node_of(ray, "mts", t)
                                      for t in ("ps/0", "worker/0", "worker/1")}
        out["steps"] = steps
        out["latest"] = os.path.basename(tf.train.latest_checkpoint(ckpt))
    out["removals"] = [[at, victim] for _, at, victim in removals]
    out["warnings"] = [m for _, m in records if "Error" in m]
    # Seconds from each removal to the warning of its UnavailableError, and to the new
    # session (restored, hooks called) on the nodes left; the global step it restored.
    errs = [t for t, m in records if "UnavailableError" in m]
    out["error_secs"] = [e - r for (r, _, _), e in zip(removals, errs)]
    out["recovered"] = [[c - r, s] for (r, _, _), (c, s) in zip(removals, created[1:])]
    out["alive_nodes"] = sorted(n["NodeID"] for n in ray.nodes() if n["Alive"])
    with tf.Graph().as_default():
        w, b, step, train = _model(tf, None)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(LAST_STEP):
                sess.run(train)
            out["reference"] = [v.tolist() for v in sess.run([w, b])]
    ray_runtime.shutdown_cluster("mts", jobs=SPEC)


def main():
    import ray
    from ray.cluster_utils import Cluster

    import graphcore as tf
    import ray_runtime

    t0 = time.time()
    fast_failure = {"health_check_initial_delay_ms": 0, "health_check_period_ms": 500,
                    "health_check_failure_threshold": 3}
    cluster = Cluster(initialize_head=True, head_node_args=dict(
        num_cpus=1, object_store_memory=STORE, include_dashboard=False,
        resources={"worker_host": 1}, _system_config=fast_failure))
    nodes = [cluster.add_node(num_cpus=1, object_store_memory=STORE, resources=res)
             for res in ({"ps_host": 1}, {"ps_host": 1}, {"worker_host": 1})]
    out = {"start_secs": time.time() - t0}
    try:
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, namespace="graphcore", log_to_driver=False)
        out["node_resources"] = {n["NodeID"]: sorted(k for k in n["Resources"]
                                                     if k.endswith("_host"))
                                 for n in ray.nodes() if n["Alive"]}
        begin = time.time()
        placement(out, tf, ray, ray_runtime)
        out["placement_secs"] = time.time() - begin
        begin = time.time()
        node_loss(out, tf, ray, ray_runtime, cluster, nodes)
        out["node_loss_secs"] = time.time() - begin
        from ray.util import placement_group_table

        out["placement_groups_left"] = [
            t["name"] for t in placement_group_table().values() if t["state"] != "REMOVED"]
        out["actors_left"] = sorted(a["name"] for a in ray.util.list_named_actors(
            all_namespaces=True))
    finally:
        ray.shutdown()
        cluster.shutdown()
    out["total_secs"] = time.time() - t0
    print("RESULT " + json.dumps(out), flush=True)


if __name__ == "__main__":
    sys.exit(main())
