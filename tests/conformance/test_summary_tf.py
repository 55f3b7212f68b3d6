"""Reference tier for tf.summary: TensorFlow's summary ops and TensorBoard's loaders.

a. Summary op outputs (scalar, histogram, merge, tensor/text) are byte-identical to
   TensorFlow's for the same tags and values; error messages match.
b. TensorBoard's EventAccumulator / EventFileLoader read graphcore's event files: the
   graph, every scalar step, histograms, run metadata.
c. TensorFlow's own record reader reads graphcore's files and graphcore's reader reads
   TensorFlow's (same framing, same first event).

Skipped when TensorFlow / TensorBoard are not installed.
"""

import glob
import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402
import graphcore.kernels.summary_kernels  # noqa: E402, F401 - kernel registrations
from graphcore.framework import errors  # noqa: E402
from graphcore.protobuf import config_pb2, event_pb2, graph_pb2, summary_pb2  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1
pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing import (  # noqa: E402
    event_accumulator,
    event_file_loader,
)


def _tf_run(build):
    with tf_ref.Graph().as_default():
        fetches = build(tf1)
        with tf1.Session() as sess:
            return sess.run(fetches)


def _gc_run(build):
    with tf.Graph().as_default():
        fetches = build(tf)
        with tf.Session() as sess:
            return sess.run(fetches)


def _both(build):
    return _tf_run(build), _gc_run(build)


# -- a. op outputs -------------------------------------------------------------------------


@pytest.mark.parametrize("dtype,value", [
    ("float32", 1.5), ("float64", 1.0 / 3.0), ("int32", -7), ("int64", 2**40 + 1),
    ("uint8", 200), ("float16", 0.1), ("bfloat16", 3.14159),
])
def test_scalar_summary_bytes_equal_tf(dtype, value):
    def build(lib):
        with lib.name_scope("scope"):
            return [lib.summary.scalar("loss", lib.constant(value, dtype=getattr(lib, dtype))),
                    lib.summary.scalar("loss", lib.constant(value, dtype=getattr(lib, dtype)),
                                       family="fam")]

    theirs, ours = _both(build)
    assert ours == theirs


def test_scalar_summary_vector_tags_equal_tf():
    def build(lib):
        from_tf = lib is tf1
        if from_tf:
            op = tf1.raw_ops.ScalarSummary
        else:
            from graphcore.framework.op_def_library import apply_op

            def op(tags, values):
                return apply_op("ScalarSummary", tags=tags, values=values).outputs[0]
        return op(tags=lib.constant(["a", "b/c", "d"]), values=lib.constant([1.0, -2.0, 3.5]))

    theirs, ours = _both(build)
    assert ours == theirs


def _histogram_fields(data):
    (value,) = summary_pb2.Summary.FromString(data).value
    h = value.histo
    return (value.tag, h.min, h.max, h.num, h.sum, h.sum_squares, list(h.bucket_limit),
            list(h.bucket))


_RNG = np.random.default_rng(1234)


@pytest.mark.parametrize("values,dtype", [
    ([1.0, 2.0], "float32"),
    ([0.0, -0.0, 0.0], "float32"),
    ([], "float32"),
    ([-3.5, 1e-13, 2e-12, 7.25, 7.25, 1e19, -1e21, 1e300], "float64"),
    (_RNG.normal(scale=3.0, size=2000).tolist(), "float32"),
    (_RNG.normal(scale=1e-6, size=(40, 50)).tolist(), "float64"),
    (_RNG.integers(-1000, 1000, size=300).tolist(), "int32"),
    (_RNG.integers(0, 255, size=300).tolist(), "uint8"),
    (_RNG.integers(-2**50, 2**50, size=100).tolist(), "int64"),
    (_RNG.normal(size=100).tolist(), "float16"),
])
def test_histogram_matches_tf(values, dtype):
    def build(lib):
        with lib.name_scope("layer"):
            return lib.summary.histogram("weights", lib.constant(
                np.array(values, dtype=np.float64).astype(dtype), dtype=getattr(lib, dtype)))

    theirs, ours = _both(build)
    assert _histogram_fields(ours) == _histogram_fields(theirs)
    assert ours == theirs


def test_merge_and_merge_all_bytes_equal_tf():
    def build(lib):
        a = lib.summary.scalar("a", lib.constant(1.0))
        with lib.name_scope("sub"):
            lib.summary.histogram("h", lib.constant([1.0, 5.0, 5.0]))
        lib.summary.scalar("c", lib.constant(2), collections=["other"])
        merged = lib.summary.merge_all()
        other = lib.summary.merge([a, lib.summary.merge_all(key="other")], name="both")
        return [merged, other, merged.op.name, other.op.name]

    theirs, ours = _both(build)
    assert ours == theirs


def test_tensor_summary_and_text_bytes_equal_tf():
    def build(lib):
        return [lib.summary.tensor_summary("t", lib.constant([[1, 2], [3, 4]]),
                                           summary_description="desc"),
                lib.summary.tensor_summary("f", lib.constant([1.5, 2.5], dtype=lib.float64),
                                           display_name="F"),
                lib.summary.text("note", lib.constant(["hello", "world"])),
                lib.summary.text("scalar_note", lib.constant("hi"))]

    theirs, ours = _both(build)
    assert ours == theirs


def test_summary_graph_nodes_match_tf():
    def build(lib):
        x = lib.placeholder(lib.float32, [None], name="x")
        m = lib.placeholder(lib.float32, [], name="m")
        with lib.name_scope("outer"):
            lib.summary.scalar("mean", m, family="stats")
            lib.summary.histogram("x", x)
            lib.summary.histogram(None, x)
        lib.summary.scalar("bad name", lib.constant(1))
        lib.summary.tensor_summary("t", x)
        lib.summary.merge_all()
        lib.summary.merge_all(name="again")

    def nodes(graph):
        gd = graph_pb2.GraphDef.FromString(graph.as_graph_def().SerializeToString())
        return [(n.name, n.op, list(n.input), sorted(n.attr),
                 {k: n.attr[k].SerializeToString() for k in ("T", "N", "dtype") if k in n.attr})
                for n in gd.node]

    with tf_ref.Graph().as_default() as tg:
        build(tf1)
    with tf.Graph().as_default() as g:
        build(tf)
    assert nodes(g) == nodes(tg)


def _error_message(run, build):
    try:
        run(build)
    except Exception as e:  # noqa: BLE001 - comparing TF's and our error text
        return type(e).__name__, getattr(e, "message", str(e))
    return None


@pytest.mark.parametrize("case", ["shape", "nan", "inf", "dup"])
def test_summary_errors_match_tf(case):
    def build(lib):
        if case == "shape":
            return lib.summary.scalar("v", lib.constant([1.0, 2.0]))
        if case in ("nan", "inf"):
            bad = np.nan if case == "nan" else np.inf
            return lib.summary.histogram("h", lib.constant([1.0, bad]))
        a = lib.summary.scalar("a", lib.constant(1.0))
        return lib.summary.merge([a, a])

    theirs = _error_message(_tf_run, build)
    ours = _error_message(_gc_run, build)
    assert theirs is not None and ours is not None
    assert ours[0] == theirs[0] == "InvalidArgumentError"
    # TF's message: "Graph execution error: ... Node: 'v'\n<kernel message>\n\t [[...]]".
    kernel_line = theirs[1].split("\nNode: ", 1)[1].splitlines()[1]
    assert kernel_line in ours[1].splitlines()
    assert isinstance(errors.InvalidArgumentError(None, None, ""), tf.errors.OpError)


# -- b. TensorBoard reads graphcore's event files ------------------------------------------


def _write_run(logdir, steps=20):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        w = tf.placeholder(tf.float32, [None], name="w")
        tf.summary.scalar("loss", x)
        with tf.name_scope("train"):
            tf.summary.scalar("lr", tf.add(x, x))
        tf.summary.histogram("weights", w)
        merged = tf.summary.merge_all()
        rng = np.random.default_rng(0)
        with tf.summary.FileWriter(logdir, g, max_queue=4, flush_secs=5) as writer, \
                tf.Session() as sess:
            weights = []
            for step in range(steps):
                wv = rng.normal(size=50).astype(np.float32)
                weights.append(wv)
                writer.add_summary(sess.run(merged, {x: 0.5 * step, w: wv}), step)
            md = config_pb2.RunMetadata()
            md.step_stats.dev_stats.add(device="/job:localhost/replica:0/task:0/device:CPU:0")
            writer.add_run_metadata(md, "step_final", steps)
    return g, weights, md


def test_event_accumulator_reads_graph_and_every_scalar_step(tmp_path):
    logdir = str(tmp_path)
    g, weights, md = _write_run(logdir)
    acc = event_accumulator.EventAccumulator(
        logdir, size_guidance={event_accumulator.SCALARS: 0,
                               event_accumulator.HISTOGRAMS: 0,
                               event_accumulator.GRAPH: 1})
    acc.Reload()
    tags = acc.Tags()
    assert set(tags["scalars"]) == {"loss", "train/lr"}
    assert tags["histograms"] == ["weights"]
    assert tags["graph"] is True
    assert tags["run_metadata"] == ["step_final"]

    loss = acc.Scalars("loss")
    assert [e.step for e in loss] == list(range(20))
    assert [e.value for e in loss] == [np.float32(0.5 * s) for s in range(20)]
    assert [e.value for e in acc.Scalars("train/lr")] == [float(s) for s in range(20)]
    assert all(e.wall_time > 0 for e in loss)

    graph = acc.Graph()
    ours = g.as_graph_def(add_shapes=True)
    # (Equal as messages: attr maps may serialize in another order.)
    assert graph_pb2.GraphDef.FromString(graph.SerializeToString()) == ours
    assert {n.name for n in graph.node} >= {"x", "w", "loss", "train/lr", "weights"}

    hists = acc.Histograms("weights")
    assert [h.step for h in hists] == list(range(20))
    for h, wv in zip(hists, weights):
        assert h.histogram_value.num == 50
        assert h.histogram_value.min == float(wv.min())
        assert h.histogram_value.max == float(wv.max())

    run_md = acc.RunMetadata("step_final")
    assert run_md.SerializeToString() == md.SerializeToString()


def test_event_file_loader_reads_every_event(tmp_path):
    logdir = str(tmp_path)
    _write_run(logdir, steps=7)
    (path,) = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
    # The raw loaders yield the records (and TF-proto Events) graphcore wrote, in order.
    raw = list(event_file_loader.RawEventFileLoader(path).Load())
    assert raw == list(tf.summary.tf_record_iterator(path))
    legacy = list(event_file_loader.LegacyEventFileLoader(path).Load())
    assert [e.SerializeToString() for e in legacy] == raw
    assert legacy[0].file_version == "brain.Event:2"
    assert legacy[1].HasField("graph_def")
    assert [e.step for e in legacy if e.HasField("summary")] == list(range(7))
    # The migrating loader turns each value into an event of its own.
    migrated = list(event_file_loader.EventFileLoader(path).Load())
    by_tag = {}
    for e in migrated:
        for v in e.summary.value:
            by_tag.setdefault(v.tag, []).append(e.step)
    expected = {t: list(range(7)) for t in ("loss", "train/lr", "weights")}
    # The graph and the run metadata become summaries too.
    expected.update({"__run_graph__": [0], "step_final": [7]})
    assert by_tag == expected


def test_event_accumulator_honours_session_log_restart(tmp_path):
    logdir = str(tmp_path)
    with tf.summary.FileWriter(logdir) as w:
        for step in range(5):
            w.add_summary(summary_pb2.Summary(value=[summary_pb2.Summary.Value(
                tag="s", simple_value=float(step))]), step)
        w.add_session_log(event_pb2.SessionLog(status=event_pb2.SessionLog.START), 2)
        w.add_summary(summary_pb2.Summary(value=[summary_pb2.Summary.Value(
            tag="s", simple_value=99.0)]), 3)
    acc = event_accumulator.EventAccumulator(logdir)
    acc.Reload()
    assert [(e.step, e.value) for e in acc.Scalars("s")] == [(0, 0.0), (1, 1.0), (3, 99.0)]


# -- c. framing, both ways -----------------------------------------------------------------


def test_tf_record_iterator_reads_graphcore_files(tmp_path):
    logdir = str(tmp_path / "gc")
    with tf.summary.FileWriter(logdir, filename_suffix=".x") as w:
        w.add_summary(summary_pb2.Summary(value=[summary_pb2.Summary.Value(
            tag="t", simple_value=1.0)]), 4)
    (path,) = glob.glob(os.path.join(logdir, "events.out.tfevents.*.x"))
    records = list(tf1.io.tf_record_iterator(path))
    assert records == list(tf.summary.tf_record_iterator(path))
    first = tf1.Event.FromString(records[0])
    assert first.file_version == "brain.Event:2" and first.wall_time == int(first.wall_time)
    assert tf1.Event.FromString(records[1]).summary.value[0].tag == "t"


def test_graphcore_reads_tf_file_writer_output(tmp_path):
    logdir = str(tmp_path / "tf")
    with tf_ref.Graph().as_default() as g:
        s = tf1.summary.scalar("v", tf1.constant(2.0))
        with tf1.Session() as sess, tf1.summary.FileWriter(logdir, g) as w:
            w.add_summary(sess.run(s), 1)
    (path,) = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
    events = list(tf.summary.summary_iterator(path))
    # Their first event is what ours writes (source_metadata included).
    ours_first = event_pb2.Event(wall_time=events[0].wall_time, file_version="brain.Event:2")
    ours_first.source_metadata.writer = "tensorflow.core.util.events_writer"
    assert events[0] == ours_first
    assert graph_pb2.GraphDef.FromString(events[1].graph_def).node
    (summary,) = [e for e in events if e.HasField("summary")]
    assert (summary.step, summary.summary.value[0].simple_value) == (1, 2.0)
