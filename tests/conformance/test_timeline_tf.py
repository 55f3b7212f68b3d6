"""Reference tier: TensorFlow's own timeline accepts graphcore's StepStats."""

import json

import pytest

import graphcore as gc
from graphcore.client import timeline as gc_timeline

pytest.importorskip("tensorflow")
tf_step_stats_pb2 = pytest.importorskip("tensorflow.core.framework.step_stats_pb2")
tf_timeline = pytest.importorskip("tensorflow.python.client.timeline")


def _traced_step():
    with gc.device("/device:CPU:0"):
        x = gc.placeholder(gc.float32, [2], name="x")
        a = gc.add(x, 1.0, name="a")
    with gc.device("/device:CPU:1"):
        b = gc.add(a, a, name="b")
        w = gc.Variable([1.0, 1.0], name="w")
        c = gc.add(b, w, name="c")
    with gc.device("/device:CPU:0"):
        d = gc.add(c, 1.0, name="d")
    with gc.Session(config=gc.ConfigProto(device_count={"CPU": 2})) as sess:
        sess.run(w.initializer)
        md = gc.RunMetadata()
        sess.run(d, {x: [1.0, 2.0]}, options=gc.RunOptions(trace_level=gc.RunOptions.FULL_TRACE),
                 run_metadata=md)
    return md


def _op_nodes(trace_json):
    events = json.loads(trace_json)["traceEvents"]
    return {e["args"]["name"] for e in events if e["ph"] == "X"}, events


@pytest.mark.parametrize("show_memory", [False, True])
def test_tf_timeline_reads_graphcore_step_stats(show_memory):
    md = _traced_step()
    tf_stats = tf_step_stats_pb2.StepStats.FromString(md.step_stats.SerializeToString())
    assert [d.device for d in tf_stats.dev_stats] == [d.device for d in md.step_stats.dev_stats]

    theirs, tf_events = _op_nodes(tf_timeline.Timeline(tf_stats).generate_chrome_trace_format(
        show_dataflow=True, show_memory=show_memory))
    ours, gc_events = _op_nodes(gc_timeline.Timeline(md.step_stats).generate_chrome_trace_format(
        show_dataflow=True, show_memory=show_memory))
    assert ours == theirs
    assert {"a", "b", "c", "d", "w"} <= ours

    # Same op types and times per node (TF numbers threads by lanes it packs; we keep thread ids).
    def ops(events):
        return {e["args"]["name"]: (e["name"], e["args"]["op"], e["ts"], e["dur"])
                for e in events if e["ph"] == "X"}

    assert ops(gc_events) == ops(tf_events)

    # TF names its compute processes after the devices too.
    def processes(events):
        return {e["args"]["name"] for e in events
                if e["ph"] == "M" and e["name"] == "process_name"}

    for device in (d.device for d in md.step_stats.dev_stats):
        assert device in processes(gc_events)
        assert any(p.startswith(device) for p in processes(tf_events))


def test_tf_step_stats_feed_our_timeline_and_merge():
    md = _traced_step()
    tf_stats = tf_step_stats_pb2.StepStats.FromString(md.step_stats.SerializeToString())
    ours, _ = _op_nodes(gc_timeline.Timeline(tf_stats).generate_chrome_trace_format())
    assert ours == {ns.node_name for d in md.step_stats.dev_stats for ns in d.node_stats}
    merged = gc_timeline.merge_step_stats(tf_stats)
    assert merged.SerializeToString() == md.step_stats.SerializeToString()
