"""The trace of a distributed step: every task's devices, the Ray calls, one clock, one
Chrome trace with a process per task (ray_runtime/tracing.py, graphcore/client/timeline.py)."""

import json

import numpy as np

import graphcore as tf
import ray_runtime
from graphcore.client import timeline
from ray_runtime import tracing

PS = "/job:ps/replica:0/task:0"
W0 = "/job:worker/replica:0/task:0"


def _kinds(ds):
    return {ns.timeline_label.rsplit("= ", 1)[-1].rstrip("()") for ns in ds.node_stats}


def _check_one_clock(md, client_device):
    """Every span lies within the client's step (same machine: one wall clock)."""
    by_device = {ds.device: ds for ds in md.step_stats.dev_stats}
    step = next(ns for ns in by_device[client_device].node_stats
                if ns.timeline_label.endswith("ClientStep()"))
    lo, hi = step.all_start_micros, step.all_start_micros + step.all_end_rel_micros
    for ds in md.step_stats.dev_stats:
        for ns in ds.node_stats:
            assert lo - 1 <= ns.all_start_micros <= hi + 1, (ds.device, ns.node_name)


def _processes(trace):
    return {e["args"]["name"] for e in json.loads(trace)["traceEvents"]
            if e["ph"] == "M" and e["name"] == "process_name"}


def test_traced_steps_have_every_task_the_ray_calls_and_one_process_per_task(
        cluster_name):
    cluster = {"ps": 1, "worker": 1}
    # A driver's step: the ps and the worker partitions both run on their actors (run
    # calls; the ps delivers v to the worker actor by a deliver call).
    with tf.device(tf.train.replica_device_setter(cluster=cluster)):
        v = tf.Variable(np.ones(4, np.float32), name="v")
        x = tf.placeholder(tf.float32, [4], name="x")
        y = tf.reduce_sum(tf.multiply(x, v), name="y")
    sess = ray_runtime.session("ray://auto", cluster=cluster, cluster_name=cluster_name)
    try:
        sess.run(v.initializer)
        md = tf.RunMetadata()
        opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
        assert sess.run(y, {x: np.ones(4)}, options=opts, run_metadata=md) == 4.0
    finally:
        sess.close()
    by_device = {ds.device: ds for ds in md.step_stats.dev_stats}
    assert set(by_device) == {f"{PS}/device:CPU:0", f"{PS}/ray", f"{W0}/device:CPU:0",
                              f"{W0}/ray", "/client"}
    for task in (PS, W0):
        assert by_device[f"{task}/device:CPU:0"].node_stats, task
        assert {"RayCall", "Queue"} <= _kinds(by_device[f"{task}/ray"]), task
    assert {"Serialize", "RaySubmit"} <= _kinds(by_device[f"{PS}/ray"])  # v's deliver
    assert "Deserialize" in _kinds(by_device[f"{W0}/ray"])
    client = by_device["/client"]
    calls = [ns.node_name for ns in client.node_stats
             if ns.timeline_label.endswith("RayCall()")]
    assert sorted(calls) == sorted(f"run -> {t}" for t in (PS, W0))
    assert {"ClientStep", "RaySubmit", "RayWait"} <= _kinds(client)
    _check_one_clock(md, "/client")
    trace = timeline.Timeline(md.step_stats).generate_chrome_trace_format()
    assert _processes(trace) == {PS, W0, "client"}
    # TF's grouping (a process per device) stays available
    per_device = timeline.Timeline(md.step_stats, group_by="device")
    assert len(_processes(per_device.generate_chrome_trace_format())) == 5

    # The bench's step: a launched worker runs its partition in-process and the ps's by
    # run_begin/finish; the trace holds both tasks, their calls and the handoffs.
    def main(task_index):
        import graphcore as tf
        import ray_runtime as rr

        with tf.device(tf.train.replica_device_setter(
                cluster=cluster, worker_device=f"/job:worker/task:{task_index}")):
            w = tf.Variable(np.ones((4, 2), np.float32), name="w")
            x = tf.placeholder(tf.float32, [3, 4], name="x")
            loss = tf.reduce_sum(tf.square(tf.matmul(x, w)))
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        sess = rr.worker_session(cluster, task_index, cluster_name)
        sess.run(tf.global_variables_initializer())
        sess.run(train, {x: np.ones((3, 4))})
        md = tf.RunMetadata()
        sess.run(train, {x: np.ones((3, 4))},
                 options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=md)
        sess.close()
        return md.step_stats.SerializeToString()

    [data] = ray_runtime.launch(main, cluster, cluster_name=cluster_name)
    md = tf.RunMetadata()
    md.step_stats.ParseFromString(data)
    by_device = {ds.device: ds for ds in md.step_stats.dev_stats}
    assert set(by_device) == {f"{PS}/device:CPU:0", f"{PS}/ray", f"{W0}/device:CPU:0",
                              f"{W0}/ray", f"{W0}/client"}
    ps_calls = {ns.node_name for ns in by_device[f"{PS}/ray"].node_stats
                if ns.timeline_label.endswith("RayCall()")}
    assert "run_begin" in ps_calls
    assert {"Queue", "Handoff", "Serialize"} <= _kinds(by_device[f"{PS}/ray"])
    assert "Deserialize" in _kinds(by_device[f"{W0}/ray"])
    client_calls = {ns.node_name for ns in by_device[f"{W0}/client"].node_stats
                    if ns.timeline_label.endswith("RayCall()")}
    assert f"run_begin -> {PS}" in client_calls
    _check_one_clock(md, f"{W0}/client")
    trace = timeline.Timeline(md.step_stats).generate_chrome_trace_format()
    assert _processes(trace) == {PS, W0}


def test_clock_offset_estimate():
    # the actor's clock runs 5 ms ahead; each call takes 1 ms each way and 2 ms on it
    client = [(0, 4_000_000), (10_000_000, 14_000_000)]
    actor = [(6_000_000, 8_000_000), (16_000_000, 18_000_000)]
    assert tracing.clock_offset_us(client, actor) == 5000
    assert tracing.clock_offset_us([], []) == 0
