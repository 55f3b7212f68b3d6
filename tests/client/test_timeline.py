"""graphcore.client.timeline: Chrome Trace Event JSON from FULL_TRACE StepStats."""

import json

import numpy as np
import pytest

import graphcore as tf
from graphcore.client import timeline
from graphcore.protobuf import step_stats_pb2

CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"
CPU1 = "/job:localhost/replica:0/task:0/device:CPU:1"


def _traced_two_device_step(partition_graphs=False):
    with tf.device("/device:CPU:0"):
        x = tf.placeholder(tf.float32, [2], name="x")
        a = tf.add(x, 1.0, name="a")
    with tf.device("/device:CPU:1"):
        b = tf.add(a, a, name="b")
        c = tf.add(b, 2.0, name="c")
    with tf.device("/device:CPU:0"):
        d = tf.add(c, 1.0, name="d")
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE,
                             output_partition_graphs=partition_graphs)
        md = tf.RunMetadata()
        out = sess.run(d, {x: [1.0, 2.0]}, options=opts, run_metadata=md)
    np.testing.assert_array_equal(out, [7.0, 9.0])
    return md


def _events(trace_json):
    trace = json.loads(trace_json)
    assert set(trace) >= {"traceEvents"}
    return trace["traceEvents"]


def _pids(events):
    return {e["args"]["name"]: e["pid"] for e in events
            if e["ph"] == "M" and e["name"] == "process_name"}


def _flows(events):
    starts = {e["id"]: e for e in events if e["ph"] == "s"}
    ends = {e["id"]: e for e in events if e["ph"] == "t"}
    assert set(starts) == set(ends)
    return [(starts[i], ends[i]) for i in starts]


def test_one_process_per_device_and_an_op_event_per_node():
    md = _traced_two_device_step()
    events = _events(timeline.Timeline(md.step_stats).generate_chrome_trace_format())
    pids = _pids(events)
    assert set(pids) == {CPU0, CPU1}
    assert len(set(pids.values())) == 2

    ops = [e for e in events if e["ph"] == "X"]
    traced = {(ds.device, ns.node_name) for ds in md.step_stats.dev_stats
              for ns in ds.node_stats}
    by_pid = {v: k for k, v in pids.items()}
    assert {(by_pid[e["pid"]], e["args"]["name"]) for e in ops} == traced
    assert len(ops) == len(traced)
    for e in ops:
        assert e["ts"] >= 0 and e["dur"] >= 0
        assert isinstance(e["tid"], int)
    b = next(e for e in ops if e["args"]["name"] == "b")
    assert b["pid"] == pids[CPU1]
    assert b["name"] == b["args"]["op"] == "AddV2"
    assert b["args"]["input0"] == b["args"]["input1"]
    assert b["args"]["output0"] == "float[2] 8B"
    assert {"a", "b", "c", "d"} <= {e["args"]["name"] for e in ops}
    assert any(e["ph"] == "M" and e["name"] == "thread_name" for e in events)


@pytest.mark.parametrize("with_graph", [False, True])
def test_dataflow_links_cross_device_tensors(with_graph):
    md = _traced_two_device_step(partition_graphs=with_graph)
    graph = md.partition_graphs if with_graph else None
    events = _events(timeline.Timeline(md.step_stats, graph=graph).generate_chrome_trace_format())
    pids = _pids(events)
    flows = _flows(events)
    # a (CPU:0) feeds b (CPU:1); c (CPU:1) feeds d (CPU:0).
    links = {(s["pid"], t["pid"]) for s, t in flows}
    assert (pids[CPU0], pids[CPU1]) in links
    assert (pids[CPU1], pids[CPU0]) in links
    names = {s["name"] for s, _ in flows}
    if with_graph:
        assert names and all(n.startswith("edge_") or n in ("a", "c") for n in names)
    else:
        assert {"a", "c"} <= names
    ops = [e for e in events if e["ph"] == "X"]
    for s, t in flows:
        assert s["cat"] == t["cat"] == "DataFlow"
        assert (s["pid"], s["tid"]) != (t["pid"], t["tid"])
        # Each end of an arrow lies inside a slice on its thread.
        for end in (s, t):
            assert any(o["pid"] == end["pid"] and o["tid"] == end["tid"]
                       and o["ts"] <= end["ts"] <= o["ts"] + o["dur"] for o in ops)

    no_flow = _events(timeline.Timeline(md.step_stats).generate_chrome_trace_format(
        show_dataflow=False))
    assert not [e for e in no_flow if e["ph"] in "st"]


def test_memory_counters_per_device():
    md = _traced_two_device_step()
    tl = timeline.Timeline(md.step_stats)
    assert not [e for e in _events(tl.generate_chrome_trace_format()) if e["ph"] == "C"]
    events = _events(tl.generate_chrome_trace_format(show_memory=True))
    pids = _pids(events)
    counters = [e for e in events if e["ph"] == "C"]
    assert {e["pid"] for e in counters} == set(pids.values())
    for pid in pids.values():
        series = sorted((e for e in counters if e["pid"] == pid), key=lambda e: e["ts"])
        values = [e["args"]["cpu"] for e in series]
        assert all(v >= 0 for v in values)
        assert max(values) >= 8           # a float32[2] output is live at some point
        assert values[-1] == 0            # everything is freed by the end of the step


def test_hand_built_step_stats_memory_and_thread_flows():
    ss = step_stats_pb2.StepStats()
    ds = ss.dev_stats.add(device="/device:CPU:0")
    ds.thread_names[2] = "worker"

    def node(name, label, start, dur, tid, nbytes=0):
        ns = ds.node_stats.add(node_name=name, all_start_micros=start,
                               op_end_rel_micros=dur, all_end_rel_micros=dur,
                               thread_id=tid, timeline_label=label)
        if nbytes:
            out = ns.output.add(slot=0)
            out.tensor_description.allocation_description.requested_bytes = nbytes
            out.tensor_description.allocation_description.allocator_name = "cpu"

    node("x", "x = Const()", 100, 10, 1, nbytes=100)
    node("y", "y = Neg(x)", 120, 10, 2, nbytes=40)
    node("z", "z = Add(x, y)", 140, 10, 1, nbytes=40)
    events = _events(timeline.Timeline(ss).generate_chrome_trace_format(show_memory=True))
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
             if e["ph"] == "M" and e["name"] == "thread_name"}
    assert names[(0, 2)] == "worker"
    flows = _flows(events)
    assert {(s["name"], s["tid"], t["tid"]) for s, t in flows} == {("x", 1, 2), ("y", 2, 1)}
    counters = [(e["ts"], e["args"]["cpu"]) for e in events if e["ph"] == "C"]
    # x lives 100..150 (last read by z), y 120..150, z 140..150 (unread: to step end).
    assert counters == [(100, 100), (120, 140), (140, 180), (150, 0)]


def test_empty_step_stats_is_a_valid_trace():
    for source in (step_stats_pb2.StepStats(), None, b"", tf.RunMetadata()):
        tl = timeline.Timeline(source)
        for memory in (False, True):
            assert _events(tl.generate_chrome_trace_format(show_memory=memory)) == []
    with pytest.raises(TypeError):
        timeline.Timeline(42)


def test_accepts_run_metadata_and_bytes():
    md = _traced_two_device_step()
    expected = timeline.Timeline(md.step_stats).generate_chrome_trace_format()
    assert timeline.Timeline(md).generate_chrome_trace_format() == expected
    assert timeline.Timeline(
        md.step_stats.SerializeToString()).generate_chrome_trace_format() == expected
    assert json.loads(timeline.Timeline(md).generate_chrome_trace_format(pretty=True)) == \
        json.loads(expected)


def test_merge_step_stats():
    md1 = _traced_two_device_step()
    md2 = _traced_two_device_step()
    other = step_stats_pb2.StepStats()
    ds = other.dev_stats.add(device="/job:worker/replica:0/task:1/device:CPU:0")
    ds.node_stats.add(node_name="remote", all_start_micros=5, all_end_rel_micros=3,
                      timeline_label="remote = NoOp()")
    ds.thread_names[7] = "actor"

    merged = timeline.merge_step_stats(md1.step_stats, md2, [other.SerializeToString()])
    assert isinstance(merged, step_stats_pb2.StepStats)
    assert [d.device for d in merged.dev_stats] == [CPU0, CPU1, ds.device]
    for dev in (CPU0, CPU1):
        n = sum(len(d.node_stats) for m in (md1, md2) for d in m.step_stats.dev_stats
                if d.device == dev)
        got = next(d for d in merged.dev_stats if d.device == dev)
        assert len(got.node_stats) == n
    assert merged.dev_stats[2].thread_names[7] == "actor"
    # Inputs are untouched.
    assert len(md1.step_stats.dev_stats) == 2
    assert timeline.merge_step_stats() == step_stats_pb2.StepStats()

    events = _events(timeline.Timeline(merged).generate_chrome_trace_format(show_memory=True))
    assert set(_pids(events)) == {CPU0, CPU1, ds.device}
    assert sum(e["ph"] == "X" for e in events) == sum(len(d.node_stats)
                                                      for d in merged.dev_stats)


def test_import_paths():
    import graphcore.client

    assert graphcore.client.timeline is timeline
    assert timeline.Timeline.__init__.__code__.co_varnames[1:3] == ("step_stats", "graph")


def test_send_recv_paired_by_tensor_name_from_graph():
    from graphcore.protobuf import attr_value_pb2, graph_pb2

    ss = step_stats_pb2.StepStats()
    src = ss.dev_stats.add(device="/device:CPU:0")
    dst = ss.dev_stats.add(device="/device:CPU:1")
    src.node_stats.add(node_name="p", all_start_micros=10, all_end_rel_micros=5, thread_id=1,
                       timeline_label="p = Const()")
    src.node_stats.add(node_name="snd", all_start_micros=20, all_end_rel_micros=5, thread_id=1,
                       timeline_label="snd = _Send(p)")
    dst.node_stats.add(node_name="rcv", all_start_micros=15, all_end_rel_micros=20, thread_id=1,
                       timeline_label="rcv = _Recv()")
    dst.node_stats.add(node_name="q", all_start_micros=40, all_end_rel_micros=5, thread_id=1,
                       timeline_label="q = Neg(rcv)")
    # Without the graph the names say nothing: no arrow.
    assert _flows(_events(timeline.Timeline(ss).generate_chrome_trace_format())) == []

    def attrs(tensor_name):
        return {"tensor_name": attr_value_pb2.AttrValue(s=tensor_name),
                "send_device": attr_value_pb2.AttrValue(s=b"/device:CPU:0"),
                "recv_device": attr_value_pb2.AttrValue(s=b"/device:CPU:1")}

    g0 = graph_pb2.GraphDef()
    g0.node.add(name="snd", op="_Send", input=["p"], attr=attrs(b"edge_1_p"))
    g1 = graph_pb2.GraphDef()
    g1.node.add(name="rcv", op="_Recv", attr=attrs(b"edge_1_p"))
    g1.node.add(name="other", op="_Recv", attr=attrs(b"edge_9_z"))
    flows = _flows(_events(timeline.Timeline(ss, graph=[g0, g1]).generate_chrome_trace_format()))
    assert [(s["name"], s["pid"], s["ts"], t["pid"], t["ts"]) for s, t in flows] == \
        [("p", 0, 20, 1, 20)]
