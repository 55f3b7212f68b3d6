"""Reference tier: queues, readers and queue-runner input pipelines against TensorFlow's
compat.v1 — the same element sequences (multisets where shuffled), the same
OutOfRangeError at the end, node names / op types / attrs of the queue ops, TFRecord files
written by TF read by our readers, and a Coordinator-driven training loop that ends
cleanly. Skipped without TensorFlow."""

import importlib.util
import os
import threading
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
_spec = importlib.util.spec_from_file_location(
    "pipeline_values", Path(__file__).resolve().parent / "pipeline_values.py")
_values = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_values)
_plain = _values.plain
tf1 = tf_ref.compat.v1
tf1.disable_eager_execution()


def _drain(lib, build, tmp):
    """Every value ``build``'s fetch yields until OutOfRangeError, and that error's text."""
    with lib.Graph().as_default():
        setup, fetch = build(lib, tmp)
        with lib.Session() as sess:
            sess.run([lib.global_variables_initializer(), lib.local_variables_initializer()])
            coord = lib.train.Coordinator()
            threads = lib.train.start_queue_runners(sess=sess, coord=coord)
            for op in setup:
                sess.run(op)
            out = []
            try:
                for _ in range(200):
                    out.append(sess.run(fetch))
                message = None
            except lib.errors.OutOfRangeError as e:
                message = e.message
            coord.request_stop()
            coord.join(threads)
    return out, message


def _fifo(lib, tmp):
    q = lib.FIFOQueue(5, [lib.int32, lib.string], shapes=[[2], []])
    return [q.enqueue_many([[[1, 2], [3, 4], [5, 6]], [b"a", b"b", b"c"]]), q.close()], \
        q.dequeue()


def _fifo_many(lib, tmp):
    q = lib.FIFOQueue(10, [lib.float32], shapes=[[]])
    return [q.enqueue_many([np.arange(7, dtype=np.float32)]), q.close()], q.dequeue_many(3)


def _fifo_up_to(lib, tmp):
    q = lib.FIFOQueue(10, [lib.float32], shapes=[[]])
    return [q.enqueue_many([np.arange(7, dtype=np.float32)]), q.close()], q.dequeue_up_to(3)


def _padding(lib, tmp):
    q = lib.PaddingFIFOQueue(10, [lib.int32], shapes=[[None]])
    ops = [q.enqueue([[1]]), q.enqueue([[1, 2, 3]]), q.enqueue([[4, 5]]), q.close()]
    return ops, q.dequeue_many(2)


def _priority(lib, tmp):
    q = lib.PriorityQueue(10, [lib.string], shapes=[[]])
    ops = [q.enqueue_many([[3, 1, 2], [b"c", b"a", b"b"]]), q.close()]
    return ops, q.dequeue()


def _named(lib, tmp):
    q = lib.FIFOQueue(4, [lib.int32, lib.float32], shapes=[[], []], names=["i", "f"])
    return [q.enqueue({"i": 1, "f": 2.0}), q.close()], q.dequeue()


def _shuffle_queue(lib, tmp):
    q = lib.RandomShuffleQueue(20, 3, [lib.int64], shapes=[[]], seed=7)
    return [q.enqueue_many([np.arange(10)]), q.close()], q.dequeue()


def _range_producer(lib, tmp):
    return [], lib.train.range_input_producer(4, num_epochs=2, shuffle=False).dequeue()


def _slice_producer(lib, tmp):
    x, y = lib.train.slice_input_producer(
        [np.arange(3), np.array([b"x", b"y", b"z"])], num_epochs=2, shuffle=False)
    return [], [x, y]


def _string_producer_shuffled(lib, tmp):
    q = lib.train.string_input_producer(["a", "b", "c"], num_epochs=3, seed=4)
    return [], q.dequeue()


def _batch(lib, tmp):
    q = lib.train.range_input_producer(7, num_epochs=1, shuffle=False)
    return [], lib.train.batch([q.dequeue()], batch_size=3, allow_smaller_final_batch=True)


def _maybe_batch(lib, tmp):
    i = lib.train.range_input_producer(6, num_epochs=1, shuffle=False).dequeue()
    return [], lib.train.maybe_batch({"i": i}, lib.equal(i % 2, 0), 2,
                                     allow_smaller_final_batch=True)


def _maybe_batch_vector(lib, tmp):
    rows = lib.constant(np.arange(6))
    return [], lib.train.maybe_batch([rows], lib.equal(rows % 3, 0), 2, enqueue_many=True,
                                     allow_smaller_final_batch=True)


def _batch_dynamic_pad(lib, tmp):
    q = lib.train.range_input_producer(4, num_epochs=1, shuffle=False)
    i = q.dequeue()
    return [], lib.train.batch([lib.range(i)], batch_size=2, dynamic_pad=True)


def _batch_join(lib, tmp):
    a = lib.train.range_input_producer(3, num_epochs=1, shuffle=False).dequeue()
    b = lib.train.range_input_producer(3, num_epochs=1, shuffle=False).dequeue() + 10
    return [], lib.train.batch_join([[a], [b]], batch_size=2, allow_smaller_final_batch=True)


def _shuffle_batch(lib, tmp):
    i = lib.train.range_input_producer(9, num_epochs=2, shuffle=False).dequeue()
    return [], lib.train.shuffle_batch([i], batch_size=4, capacity=8, min_after_dequeue=2,
                                       seed=3, allow_smaller_final_batch=True)


def _shuffle_batch_join(lib, tmp):
    a = lib.train.range_input_producer(5, num_epochs=1, shuffle=False).dequeue()
    b = lib.train.range_input_producer(5, num_epochs=1, shuffle=False).dequeue() * 10
    return [], lib.train.shuffle_batch_join([[a], [b]], batch_size=3, capacity=6,
                                            min_after_dequeue=1,
                                            allow_smaller_final_batch=True)


def _text_lines(lib, tmp):
    q = lib.train.string_input_producer([str(tmp / "a.txt"), str(tmp / "b.txt")],
                                        num_epochs=1, shuffle=False)
    return [], lib.TextLineReader(skip_header_lines=1).read(q)


def _tf_records(lib, tmp):
    q = lib.train.string_input_producer([str(tmp / "r.tfrecord")], num_epochs=2,
                                        shuffle=False)
    return [], lib.TFRecordReader().read(q)


def _tf_records_gzip(lib, tmp):
    q = lib.train.string_input_producer([str(tmp / "r.tfrecord.gz")], num_epochs=1,
                                        shuffle=False)
    return [], lib.TFRecordReader(options="GZIP").read_up_to(q, 2)


def _fixed_length(lib, tmp):
    q = lib.train.string_input_producer([str(tmp / "f.bin")], num_epochs=1, shuffle=False)
    reader = lib.FixedLengthRecordReader(record_bytes=3, header_bytes=2, footer_bytes=1)
    return [], reader.read(q)


def _whole_file(lib, tmp):
    q = lib.train.string_input_producer([str(tmp / "a.txt"), str(tmp / "f.bin")],
                                        num_epochs=1, shuffle=False)
    return [], lib.WholeFileReader().read(q)


SEQUENCE_CASES = {
    "fifo": _fifo, "fifo_many": _fifo_many, "fifo_up_to": _fifo_up_to,
    "padding": _padding, "priority": _priority, "named": _named,
    "range_producer": _range_producer, "slice_producer": _slice_producer,
    "batch": _batch, "batch_dynamic_pad": _batch_dynamic_pad, "maybe_batch": _maybe_batch,
    "maybe_batch_vector": _maybe_batch_vector,
    "text_lines": _text_lines, "tf_records": _tf_records,
    "tf_records_gzip": _tf_records_gzip, "fixed_length": _fixed_length,
    "whole_file": _whole_file,
}

# Shuffled or multi-threaded pipelines: compare the multiset of elements.
MULTISET_CASES = {
    "shuffle_queue": _shuffle_queue, "string_producer_shuffled": _string_producer_shuffled,
    "batch_join": _batch_join, "shuffle_batch": _shuffle_batch,
    "shuffle_batch_join": _shuffle_batch_join,
}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("inputs")
    (tmp / "a.txt").write_bytes(b"header\nl1\nl2\r\n\nl4")
    (tmp / "b.txt").write_bytes(b"h\nm1\n")
    (tmp / "f.bin").write_bytes(b"HHabcdefgF")
    with tf_ref.io.TFRecordWriter(str(tmp / "r.tfrecord")) as w:
        for i in range(3):
            w.write(b"record %d" % i)
    with tf_ref.io.TFRecordWriter(str(tmp / "r.tfrecord.gz"), "GZIP") as w:
        for i in range(5):
            w.write(b"z" * i)
    return tmp


def _flat(values):
    out = []
    for v in values:
        if isinstance(v, list):
            out.extend(_flat(v))
        else:
            out.append(v)
    return out


@pytest.mark.parametrize("case", sorted(SEQUENCE_CASES) + sorted(MULTISET_CASES))
def test_sequences_match_tf(case, files):
    build = SEQUENCE_CASES.get(case) or MULTISET_CASES[case]
    want, want_err = _drain(tf1, build, files)
    got, got_err = _drain(tf, build, files)
    want, got = _plain(want), _plain(got)
    if case in SEQUENCE_CASES:
        assert got == want
    else:
        assert sorted(map(repr, _flat(got))) == sorted(map(repr, _flat(want)))
    assert (got_err is None) == (want_err is None)
    if want_err is not None:
        # TF's message carries the node's context around the kernel's line; the resource's
        # unique id may differ ("_3_fifo_queue").
        def strip(line):
            return line.split("'")[0] + line.split("'")[-1] if "'" in line else line

        assert strip(got_err.splitlines()[0]) in [strip(x) for x in want_err.splitlines()]


def _graph(lib):
    if lib is tf1:
        # TF1's ref variables (limit_epochs' CountUpTo), as graphcore's tf.Variable.
        enabled = tf1.resource_variables_enabled()
        tf1.disable_resource_variables()
        try:
            return _graph_nodes(lib)
        finally:
            if enabled:
                tf1.enable_resource_variables()
    return _graph_nodes(lib)


def _graph_nodes(lib):
    g = lib.Graph()
    with g.as_default():
        q = lib.FIFOQueue(10, [lib.float32], shapes=[[2]], name="q")
        q.enqueue([[1.0, 2.0]])
        q.enqueue_many([[[1.0, 2.0]]])
        q.dequeue()
        q.dequeue_many(2)
        q.dequeue_up_to(3)
        q.close(cancel_pending_enqueues=True)
        q.size()
        q.is_closed()
        lib.RandomShuffleQueue(10, 2, [lib.int32, lib.string], seed=3)
        lib.PaddingFIFOQueue(10, [lib.int32], shapes=[[None]])
        lib.PriorityQueue(10, [lib.int32], shapes=[[]])
        fq = lib.train.string_input_producer(["a"], num_epochs=1)
        key, value = lib.TFRecordReader().read(fq)
        lib.TextLineReader(skip_header_lines=1).read_up_to(fq, 4)
        lib.FixedLengthRecordReader(4, header_bytes=1).num_records_produced()
        lib.train.shuffle_batch([value], 4, capacity=10, min_after_dequeue=3)
        lib.train.batch([key], 4, dynamic_pad=True)
    out = {}
    for n in g.as_graph_def().node:
        attrs = {k: v.SerializeToString(deterministic=True) for k, v in n.attr.items()
                 if k not in ("value", "_class", "_has_manual_control_dependencies")}
        out[n.name] = (n.op, list(n.input), n.device, attrs)
    return out


def test_graph_def_matches_tf():
    got, want = _graph(tf), _graph(tf1)
    assert sorted(got) == sorted(want)
    for name in want:
        assert got[name] == want[name], name


def test_training_loop_stops_cleanly(tmp_path):
    """string_input_producer + TextLineReader + (decode_csv) + shuffle_batch + Coordinator
    over two epochs: every row twice, then OutOfRange, and no thread left behind."""
    paths = []
    for f in range(3):
        p = tmp_path / f"part{f}.csv"
        p.write_text("".join(f"{f * 10 + i},{(f * 10 + i) * 0.5}\n" for i in range(5)))
        paths.append(str(p))
    before = set(threading.enumerate())
    with tf.Graph().as_default():
        files_q = tf.train.string_input_producer(paths, num_epochs=2, seed=1)
        _, line = tf.TextLineReader().read(files_q)
        if hasattr(tf, "decode_csv"):
            x, y = tf.decode_csv(line, record_defaults=[[0], [0.0]])
        else:
            x, y = line, line
        bx, by = tf.train.shuffle_batch([x, y], batch_size=4, capacity=20,
                                        min_after_dequeue=5, num_threads=2,
                                        allow_smaller_final_batch=True)
        w = tf.Variable(0.0, name="w")
        step = tf.assign_add(w, tf.cast(tf.size(bx), tf.float32))
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            seen = []
            steps = 0
            try:
                while not coord.should_stop():
                    seen.extend(sess.run([bx, step])[0].tolist())
                    steps += 1
            except tf.errors.OutOfRangeError:
                pass
            finally:
                coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)
            total = sess.run(w)
    rows = [f * 10 + i for f in range(3) for i in range(5)]
    if hasattr(tf, "decode_csv"):
        assert sorted(seen) == sorted(rows * 2)
    else:
        assert sorted(int(s.split(b",")[0]) for s in seen) == sorted(rows * 2)
    assert steps == 8
    assert total == 30.0
    assert not [t for t in threading.enumerate() if t not in before and t.is_alive()]


def test_session_close_cancels_blocked_dequeue():
    """A dequeue blocked in another thread ends with CancelledError when the session
    closes, as TF's; the same for TF."""
    for lib in (tf1, tf):
        with lib.Graph().as_default():
            q = lib.FIFOQueue(2, [lib.float32])
            d = q.dequeue()
            sess = lib.Session()
            caught = []

            def wait(sess=sess, d=d, caught=caught, lib=lib):
                try:
                    sess.run(d)
                except lib.errors.CancelledError as e:
                    caught.append(type(e).__name__)

            t = threading.Thread(target=wait)
            t.start()
            t.join(0.3)
            sess.close()
            t.join(10)
            assert not t.is_alive()
            assert caught == ["CancelledError"]


# (graph seed, op seed): a RandomShuffleQueue's order for seeded queues is TF's.
SHUFFLE_QUEUE_SEEDS = [(None, 2), (4, None), (4, 9), (0, 0)]


def _shuffle_queue_order(lib, graph_seed, seed):
    """Elements enqueued at once, then dequeued one, several and up to n at a time (the
    queue closed, so min_after_dequeue no longer holds any back)."""
    with lib.Graph().as_default():
        if graph_seed is not None:
            lib.set_random_seed(graph_seed)
        q = lib.RandomShuffleQueue(30, 6, [lib.int32, lib.string], shapes=[[], []],
                                   seed=seed)
        values = np.arange(25, dtype=np.int32)
        enqueue = q.enqueue_many([values, values.astype(str).astype(bytes)])
        one, many, up_to = q.dequeue(), q.dequeue_many(4), q.dequeue_up_to(7)
        with lib.Session() as sess:
            sess.run(enqueue)
            out = [_plain(sess.run(one)), _plain(sess.run(many))]
            sess.run(q.close())
            out += [_plain(sess.run(one)) for _ in range(3)]
            out += [_plain(sess.run(up_to)) for _ in range(3)]
    return out


def test_random_shuffle_queue_order_matches_tf():
    """TF's generator (Philox, one uint32 per dequeued element, index = draw % size, the
    last element moved into the gap) from the same seeds gives the same order."""
    for graph_seed, seed in SHUFFLE_QUEUE_SEEDS:
        want = _shuffle_queue_order(tf1, graph_seed, seed)
        assert _shuffle_queue_order(tf, graph_seed, seed) == want, (graph_seed, seed)
