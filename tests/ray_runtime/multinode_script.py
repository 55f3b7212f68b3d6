"""Run by test_multinode.py in a subprocess of its own (a ray.cluster_utils.Cluster
cannot share a process with the test session's Ray cluster).

Starts 3 simulated nodes, runs a ps/worker step over them, records on which node each
task actor runs, removes the node of one task, and checks that the next step raises
UnavailableError naming it.  Prints one JSON line: ``RESULT {...}``.
"""

import json
import sys
import time

import numpy as np


def main():
    import ray
    from ray.cluster_utils import Cluster

    import graphcore as tf
    import ray_runtime
    from graphcore import errors

    t0 = time.time()
    fast_failure = {"health_check_initial_delay_ms": 0, "health_check_period_ms": 500,
                    "health_check_failure_threshold": 3}
    cluster = Cluster(initialize_head=True, head_node_args=dict(
        num_cpus=1, object_store_memory=80 * 1024 * 1024, include_dashboard=False,
        _system_config=fast_failure))
    nodes = [cluster.add_node(num_cpus=1, object_store_memory=80 * 1024 * 1024)
             for _ in range(2)]
    out = {"start_secs": time.time() - t0}
    try:
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, namespace="graphcore", log_to_driver=False)
        spec = {"ps": 1, "worker": 2}
        with tf.device(tf.train.replica_device_setter(cluster=spec)):
            w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), name="w")
        ys = []
        for i in range(2):
            with tf.device(f"/job:worker/task:{i}"):
                x = tf.constant(np.full((1, 3), i + 1.0, np.float32), name=f"x{i}")
                ys.append(tf.matmul(x, w, name=f"y{i}"))
        with tf.device("/job:worker/task:0"):
            total = tf.add(ys[0], ys[1], name="total")
        sess = ray_runtime.session("ray://auto", cluster=spec, cluster_name="multinode",
                                   config=tf.ConfigProto(operation_timeout_in_ms=60000))
        out["session_secs"] = time.time() - t0
        sess.run(w.initializer)
        out["total"] = sess.run(total).tolist()
        handles = {t: ray.get_actor(f"graphcore/multinode/{t}", namespace="graphcore")
                   for t in ("ps/0", "worker/0", "worker/1")}
        out["nodes"] = {t: ray.get(h.node_id.remote()) for t, h in handles.items()}
        out["node_count"] = len([n for n in ray.nodes() if n["Alive"]])
        from ray.util import get_placement_group

        pg = get_placement_group("graphcore/multinode")
        out["strategy"] = ray.util.placement_group_table(pg)["strategy"]
        # Remove the (non-head) node of one task; its actor dies with it.
        by_id = {n.node_id: n for n in nodes}
        victim = next(t for t in ("ps/0", "worker/1", "worker/0")
                      if out["nodes"][t] in by_id)
        out["victim"] = victim
        cluster.remove_node(by_id[out["nodes"][victim]])
        start = time.time()
        try:
            sess.run(total)
            out["error"] = None
        except errors.OpError as e:
            out["error"] = [type(e).__name__, e.message]
        out["error_secs"] = time.time() - start
        sess.close()
        ray_runtime.shutdown_cluster("multinode")
    finally:
        ray.shutdown()
        cluster.shutdown()
    out["total_secs"] = time.time() - t0
    print("RESULT " + json.dumps(out), flush=True)


if __name__ == "__main__":
    sys.exit(main())
