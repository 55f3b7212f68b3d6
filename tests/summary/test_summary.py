"""tf.summary: summary ops, tag naming, merge_all, histograms, the event-file writer."""

import glob
import os
import struct
import sys
import time
import warnings

import numpy as np
import pytest

import graphcore as tf
import graphcore.kernels.summary_kernels as summary_kernels  # noqa: F401 - registrations
from graphcore.framework import errors
from graphcore.framework.gradient_registry import get_gradient_function
from graphcore.protobuf import config_pb2, event_pb2, graph_pb2, summary_pb2
from graphcore.summary import record_writer
from graphcore.summary.record_writer import masked_crc32c, tf_record_iterator

DBL_MAX = sys.float_info.max


def _run(fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict=feed_dict)


def _summary(data):
    assert isinstance(data, bytes)
    return summary_pb2.Summary.FromString(data)


# -- ops -----------------------------------------------------------------------------------


def test_scalar_summary_value_and_tag():
    s = tf.summary.scalar("loss", tf.constant(1.5))
    assert s.op.type == "ScalarSummary" and s.name == "loss:0"
    assert s.dtype == tf.string and s.shape.as_list() == []
    out = _summary(_run(s))
    assert [(v.tag, v.simple_value) for v in out.value] == [("loss", 1.5)]


@pytest.mark.parametrize("dtype", [tf.float64, tf.int32, tf.int64, tf.uint8, tf.float16])
def test_scalar_summary_casts_to_float(dtype):
    s = tf.summary.scalar("x", tf.constant(7, dtype=dtype))
    assert s.op.get_attr("T") == dtype
    assert _summary(_run(s)).value[0].simple_value == 7.0


def test_scalar_summary_op_with_vector_tags():
    from graphcore.framework.op_def_library import apply_op

    t = apply_op("ScalarSummary", tags=["a", "b"], values=[1.0, 2.5]).outputs[0]
    out = _summary(_run(t))
    assert [(v.tag, v.simple_value) for v in out.value] == [("a", 1.0), ("b", 2.5)]
    bad = apply_op("ScalarSummary", tags=["a", "b"], values=[1.0, 2.0, 3.0]).outputs[0]
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"tags and values are not the same shape: \[2\] != \[3\]"):
        _run(bad)


def test_scalar_summary_shape_mismatch_names_single_tag():
    s = tf.summary.scalar("v", tf.constant([1.0, 2.0]))
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"\[\] != \[2\] \(tag 'v'\)"):
        _run(s)


def test_scalar_from_placeholder_each_run():
    x = tf.placeholder(tf.float32, [])
    s = tf.summary.scalar("x", x)
    with tf.Session() as sess:
        vals = [_summary(sess.run(s, {x: v})).value[0].simple_value for v in (0.5, -2.0)]
    assert vals == [0.5, -2.0]


def test_tag_naming_in_scopes_and_families():
    with tf.name_scope("outer"):
        a = tf.summary.scalar("acc", tf.constant(1.0))
        b = tf.summary.scalar("acc", tf.constant(2.0))
        h = tf.summary.histogram("w", tf.constant([1.0]), family="fam")
    c = tf.summary.scalar("bad name!", tf.constant(1.0))
    d = tf.summary.scalar("/lead", tf.constant(1.0))
    e = tf.summary.scalar("x", tf.constant(1.0), family="train")
    assert [t.op.name for t in (a, b, h, c, d, e)] == [
        "outer/acc", "outer/acc_1", "outer/fam/w", "bad_name_", "lead", "train/x"]
    tags = [_summary(v).value[0].tag for v in _run([a, b, h, c, d, e])]
    assert tags == ["outer/acc", "outer/acc_1", "fam/outer/fam/w", "bad_name_", "lead",
                    "train/train/x"]
    # The tag input is a constant inside the summary's scope.
    assert a.op.inputs[0].op.name == "outer/acc/tags"


def test_histogram_default_name():
    h = tf.summary.histogram(None, tf.constant([1.0]))
    assert h.op.name == "HistogramSummary"
    assert _summary(_run(h)).value[0].tag == "HistogramSummary"


def test_collections_and_merge_all():
    assert tf.summary.merge_all() is None
    a = tf.summary.scalar("a", tf.constant(1.0))
    with tf.name_scope("sub"):
        b = tf.summary.histogram("b", tf.constant([1.0, 2.0]))
    c = tf.summary.scalar("c", tf.constant(3.0), collections=["mine"])
    d = tf.summary.scalar("d", tf.constant(4.0), collections=[])
    assert tf.get_collection(tf.GraphKeys.SUMMARIES) == [a, b]
    assert tf.get_collection("mine") == [c]
    assert d not in tf.get_collection(tf.GraphKeys.SUMMARIES)

    m = tf.summary.merge_all()
    assert m.op.type == "MergeSummary" and m.op.name == "Merge/MergeSummary"
    assert m.op.get_attr("N") == 2
    merged = _summary(_run(m))
    assert [v.tag for v in merged.value] == ["a", "sub/b"]
    assert merged.value[0].simple_value == 1.0
    assert merged.value[1].histo.num == 2

    sub = tf.summary.merge_all(scope="sub")
    assert [v.tag for v in _summary(_run(sub)).value] == ["sub/b"]
    mine = tf.summary.merge_all(key="mine", name="mm")
    assert mine.op.name == "mm/mm"
    assert tf.summary.merge_all(key="nothing") is None
    # merge() adds to no collection unless asked to.
    assert len(tf.get_collection(tf.GraphKeys.SUMMARIES)) == 2
    m2 = tf.summary.merge([a, c], collections=["merged"])
    assert tf.get_collection("merged") == [m2]
    assert m2.op.name == "Merge_2/MergeSummary"


def test_merge_rejects_duplicate_tags_and_garbage():
    a = tf.summary.scalar("a", tf.constant(1.0))
    with pytest.raises(errors.InvalidArgumentError, match="Duplicate tag a found"):
        _run(tf.summary.merge([a, a]))
    with pytest.raises(errors.InvalidArgumentError, match="Could not parse"):
        _run(tf.summary.merge([tf.constant(b"\xff\xff\xff")]))


def test_merge_of_string_vector_input():
    a = _run(tf.summary.scalar("a", tf.constant(1.0)))
    b = _run(tf.summary.scalar("b", tf.constant(2.0)))
    m = tf.summary.merge([tf.constant([a, b])])
    assert [v.tag for v in _summary(_run(m)).value] == ["a", "b"]


def test_summary_ops_are_not_differentiable():
    x = tf.constant(1.0)
    s = tf.summary.scalar("s", x)
    h = tf.summary.histogram("h", x)
    m = tf.summary.merge([s, h])
    for t in (s, h, m):
        assert get_gradient_function(t.op) is None


# -- histograms ----------------------------------------------------------------------------


def _reference_histogram(values):
    """TF's histogram.cc, transcribed literally (slow, for small inputs)."""
    limits = []
    v = 1.0e-12
    while v < 1.0e20:
        limits.append(v)
        v *= 1.1
    limits.append(DBL_MAX)
    limits = [-x for x in reversed(limits)] + [0.0] + limits
    buckets = [0.0] * len(limits)
    mn, mx, num, total, sq = limits[-1], -DBL_MAX, 0, 0.0, 0.0
    import bisect

    for x in values:
        x = float(x)
        buckets[bisect.bisect_right(limits, x)] += 1.0
        mn, mx = min(mn, x), max(mx, x)
        num += 1
        total += x
        sq += x * x
    bl, bc = [], []
    i = 0
    while i < len(buckets):
        end, count, j = limits[i], buckets[i], i + 1
        while count <= 0 and j < len(buckets) and buckets[j] <= 0:
            end, count = limits[j], buckets[j]
            j += 1
        bl.append(end)
        bc.append(count)
        i = j
    return mn, mx, num, total, sq, bl, bc


@pytest.mark.parametrize("values", [
    [1.0, 2.0],
    [0.0, 0.0, -0.0],
    [-3.5, 1e-13, 2e-12, 7.25, 7.25, 1e19, -1e21],
    list(np.random.default_rng(0).normal(size=500)),
    [],
])
def test_histogram_matches_tf_algorithm(values):
    h = tf.summary.histogram("h", tf.constant(np.array(values, dtype=np.float64)))
    proto = _summary(_run(h)).value[0].histo
    mn, mx, num, total, sq, bl, bc = _reference_histogram(values)
    assert (proto.min, proto.max, proto.num) == (mn, mx, num)
    assert proto.sum == total and proto.sum_squares == sq
    assert list(proto.bucket_limit) == bl
    assert list(proto.bucket) == bc


def test_histogram_stats_and_buckets():
    vals = np.array([1.0, 2.0, 2.0, -1.0], dtype=np.float32)
    proto = _summary(_run(tf.summary.histogram("h", tf.constant(vals)))).value[0].histo
    assert (proto.min, proto.max, proto.num, proto.sum, proto.sum_squares) == \
        (-1.0, 2.0, 4.0, 4.0, 10.0)
    assert sum(proto.bucket) == 4
    assert proto.bucket_limit[-1] == DBL_MAX
    assert list(proto.bucket_limit) == sorted(proto.bucket_limit)
    # Every non-empty bucket's limit is the first default limit above its values.
    limits = summary_kernels.DEFAULT_BUCKET_LIMITS
    assert len(limits) == 1551 and limits[775] == 0.0
    for lim, count in zip(proto.bucket_limit, proto.bucket):
        if count:
            i = int(np.searchsorted(limits, lim))
            inside = [v for v in vals if limits[i - 1] <= v < limits[i]]
            assert len(inside) == count


@pytest.mark.parametrize("dtype", [tf.int32, tf.int64, tf.float16, tf.uint8, tf.float64])
def test_histogram_of_other_dtypes(dtype):
    h = tf.summary.histogram("h", tf.constant([3, 1, 2], dtype=dtype))
    proto = _summary(_run(h)).value[0].histo
    assert (proto.min, proto.max, proto.num, proto.sum) == (1.0, 3.0, 3.0, 6.0)


def test_histogram_rejects_nan_and_inf():
    x = tf.placeholder(tf.float32, [None])
    h = tf.summary.histogram("h", x)
    with pytest.raises(errors.InvalidArgumentError, match="Nan in summary histogram for: h"):
        _run(h, {x: [1.0, np.nan]})
    with pytest.raises(errors.InvalidArgumentError, match="Infinity in Histogram for: h"):
        _run(h, {x: [np.inf]})


def test_tensor_summary_and_text():
    t = tf.summary.tensor_summary("t", tf.constant([[1, 2], [3, 4]]),
                                  summary_description="desc")
    txt = tf.summary.text("note", tf.constant("hello"))
    a, b = (_summary(v).value[0] for v in _run([t, txt]))
    assert a.tag == "t" and a.metadata.summary_description == "desc"
    assert tf.make_ndarray(a.tensor).tolist() == [[1, 2], [3, 4]]
    assert b.tag == "note" and b.metadata.plugin_data.plugin_name == "text"
    assert list(b.tensor.string_val) == [b"hello"]
    with pytest.raises(ValueError, match="to have dtype string"):
        tf.summary.text("bad", tf.constant(1.0))


# -- TFRecord framing ----------------------------------------------------------------------


def test_masked_crc_and_framing(tmp_path):
    # The masked CRC of b"" as TF computes it (crc32c(b"") == 0).
    assert masked_crc32c(b"") == 0xA282EAD8
    import crc32c

    crc = crc32c.crc32c(b"abc")
    assert masked_crc32c(b"abc") == ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF)
                                     + 0xA282EAD8) & 0xFFFFFFFF
    rec = record_writer.encode_record(b"hello")
    assert struct.unpack("<Q", rec[:8])[0] == 5
    assert struct.unpack("<I", rec[8:12])[0] == masked_crc32c(rec[:8])
    assert rec[12:17] == b"hello"
    assert struct.unpack("<I", rec[17:])[0] == masked_crc32c(b"hello")

    path = str(tmp_path / "r.tfrecord")
    with record_writer.RecordWriter(path) as w:
        for data in (b"", b"x", b"y" * 1000):
            w.write(data)
    assert list(tf_record_iterator(path)) == [b"", b"x", b"y" * 1000]

    raw = bytearray(open(path, "rb").read())
    raw[-1] ^= 1
    open(path, "wb").write(bytes(raw))
    with pytest.raises(errors.DataLossError, match="corrupted record"):
        list(tf_record_iterator(path))
    open(path, "wb").write(bytes(raw[:-3]))
    with pytest.raises(errors.DataLossError, match="truncated record"):
        list(tf_record_iterator(path))


# -- FileWriter ----------------------------------------------------------------------------


def _event_files(logdir):
    return sorted(glob.glob(os.path.join(str(logdir), "events.out.tfevents.*")))


def _events(logdir):
    out = []
    for path in _event_files(logdir):
        out.extend(event_pb2.Event.FromString(r) for r in tf_record_iterator(path))
    return out


def test_file_writer_graph_and_scalars(tmp_path):
    x = tf.placeholder(tf.float32, [], name="x")
    y = tf.add(x, x, name="y")
    s = tf.summary.scalar("y_value", y)
    merged = tf.summary.merge_all()
    before = time.time()
    with tf.summary.FileWriter(str(tmp_path), tf.get_default_graph(),
                               filename_suffix=".v1") as w:
        assert w.get_logdir() == str(tmp_path)
        with tf.Session() as sess:
            for step in range(5):
                w.add_summary(sess.run(merged, {x: float(step)}), global_step=step)
        w.add_summary(summary_pb2.Summary(value=[summary_pb2.Summary.Value(
            tag="direct", simple_value=9.0)]), 7)
    (path,) = _event_files(tmp_path)
    name = os.path.basename(path)
    stamp, host_suffix = name[len("events.out.tfevents."):].split(".", 1)
    assert len(stamp) == 10 and abs(int(stamp) - before) < 5
    assert host_suffix.endswith(".v1")

    events = _events(tmp_path)
    first = events[0]
    assert first.file_version == "brain.Event:2"
    assert first.wall_time == int(first.wall_time) > 0

    graph_event = events[1]
    assert graph_event.HasField("graph_def")
    gd = graph_pb2.GraphDef.FromString(graph_event.graph_def)
    expected = tf.get_default_graph().as_graph_def(add_shapes=True)
    assert gd == expected
    assert {n.name for n in gd.node} >= {"x", "y", s.op.name}

    scalars = [(e.step, v.tag, v.simple_value) for e in events[2:] for v in e.summary.value]
    assert scalars == [(i, "y_value", 2.0 * i) for i in range(5)] + [(7, "direct", 9.0)]
    for e in events[1:]:
        assert e.wall_time >= before
    assert not w.event_writer._worker.is_alive()


def test_file_writer_session_log_run_metadata_and_add_event(tmp_path):
    w = tf.summary.FileWriter(str(tmp_path))
    w.add_session_log(tf.SessionLog(status=tf.SessionLog.START), 1)
    md = config_pb2.RunMetadata()
    w.add_run_metadata(md, "step1", global_step=1)
    with pytest.raises(ValueError, match="already used"):
        w.add_run_metadata(md, "step1")
    w.add_event(event_pb2.Event(step=42, wall_time=1.0))
    gd = graph_pb2.GraphDef()
    gd.node.add(name="n", op="NoOp")
    w.add_graph(gd)
    with pytest.raises(TypeError, match="must be an instance of `Graph`"):
        w.add_graph(42)
    w.close()
    events = _events(tmp_path)[1:]
    assert events[0].session_log.status == tf.SessionLog.START and events[0].step == 1
    assert events[1].tagged_run_metadata.tag == "step1"
    assert config_pb2.RunMetadata.FromString(events[1].tagged_run_metadata.run_metadata) == md
    assert (events[2].step, events[2].wall_time) == (42, 1.0)
    assert graph_pb2.GraphDef.FromString(events[3].graph_def) == gd


def test_summary_metadata_written_once_per_tag(tmp_path):
    t = tf.summary.text("note", tf.constant("hi"))
    with tf.summary.FileWriter(str(tmp_path)) as w, tf.Session() as sess:
        for step in range(2):
            w.add_summary(sess.run(t), step)
    values = [e.summary.value[0] for e in _events(tmp_path) if e.HasField("summary")]
    assert values[0].HasField("metadata") and not values[1].HasField("metadata")


def test_flush_close_reopen(tmp_path):
    w = tf.summary.FileWriter(str(tmp_path), flush_secs=1000, max_queue=1000)
    w.add_summary(_run(tf.summary.scalar("a", tf.constant(1.0))), 0)
    w.add_summary(_run(tf.summary.scalar("b", tf.constant(2.0))), 1)
    w.flush()
    assert [e.step for e in _events(tmp_path) if e.HasField("summary")] == [0, 1]
    w.close()
    w.close()  # a no-op
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        w.add_summary(summary_pb2.Summary(), 5)  # dropped: the writer is closed
    assert any("closed FileWriter" in str(c.message) for c in caught)
    w.reopen()
    w.add_summary(summary_pb2.Summary(), 6)
    w.close()
    events = _events(tmp_path)
    assert [e.step for e in events if e.HasField("summary")] == [0, 1, 6]
    # A file_version record starts each opened file.
    assert sum(e.file_version == "brain.Event:2" for e in events) == 2


def test_writer_thread_flushes_by_max_queue(tmp_path):
    w = tf.summary.FileWriter(str(tmp_path), max_queue=3, flush_secs=1000)
    (path,) = _event_files(tmp_path)

    def written():
        return sum(1 for _ in tf_record_iterator(path))

    w.add_summary(summary_pb2.Summary(), 0)  # the first event is flushed at once
    deadline = time.time() + 5
    while written() < 2 and time.time() < deadline:
        time.sleep(0.01)
    assert written() == 2
    w.add_summary(summary_pb2.Summary(), 1)
    w.add_summary(summary_pb2.Summary(), 2)
    time.sleep(0.2)
    assert written() == 2  # two events wait in the buffer
    w.add_summary(summary_pb2.Summary(), 3)  # the third unflushed one triggers a flush
    deadline = time.time() + 5
    while written() < 5 and time.time() < deadline:
        time.sleep(0.01)
    assert written() == 5
    w.close()


def test_writer_thread_flushes_by_flush_secs(tmp_path):
    w = tf.summary.FileWriter(str(tmp_path), max_queue=100, flush_secs=0.3)
    (path,) = _event_files(tmp_path)
    w.add_summary(summary_pb2.Summary(), 0)
    w.add_summary(summary_pb2.Summary(), 1)
    deadline = time.time() + 5
    while sum(1 for _ in tf_record_iterator(path)) < 3 and time.time() < deadline:
        time.sleep(0.02)
    assert sum(1 for _ in tf_record_iterator(path)) == 3
    w.close()


def test_file_writer_cache(tmp_path):
    tf.summary.FileWriterCache.clear()
    a = tf.summary.FileWriterCache.get(str(tmp_path))
    assert tf.summary.FileWriterCache.get(str(tmp_path)) is a
    tf.summary.FileWriterCache.clear()
    events = _events(tmp_path)
    assert events[1].HasField("graph_def")


def test_summary_iterator(tmp_path):
    with tf.summary.FileWriter(str(tmp_path)) as w:
        w.add_session_log(tf.SessionLog(status=tf.SessionLog.STOP), 3)
    (path,) = _event_files(tmp_path)
    events = list(tf.summary.summary_iterator(path))
    assert events[0].file_version == "brain.Event:2"
    assert events[1].session_log.status == tf.SessionLog.STOP
