"""Queues, readers, QueueRunner and Coordinator without TensorFlow: blocking and closing
semantics, error classes and messages, counters."""

import threading
import time

import numpy as np
import pytest

import graphcore as tf


def _blocked_enqueue(cancel):
    """An enqueue blocked on a full queue, then a close: with ``cancel`` the enqueue is
    cancelled; without, it stays pending (TF's) until the session closes."""
    with tf.Graph().as_default():
        q = tf.FIFOQueue(1, [tf.int32], shapes=[[]])
        enq = q.enqueue(7)
        close = q.close(cancel_pending_enqueues=cancel)
        deq = q.dequeue()
        sess = tf.Session()
        sess.run(enq)
        result = []

        def run():
            try:
                sess.run(enq)
                result.append("done")
            except tf.errors.CancelledError as e:
                result.append(e.message.splitlines()[0])

        t = threading.Thread(target=run)
        t.start()
        time.sleep(0.1)
        sess.run(close)
        values = [sess.run(deq)]
        t.join(0.2)
        pending = t.is_alive()
        sess.close()
        t.join(5)
        return result, values, pending


@pytest.mark.parametrize("cancel,want", [
    (True, (["Enqueue operation was cancelled"], [7], False)),
    (False, (["Enqueue operation was cancelled"], [7], True)),
])
def test_close_and_pending_enqueue(cancel, want):
    assert _blocked_enqueue(cancel) == want


def _run(build):
    with tf.Graph().as_default():
        fetch = build()
        with tf.Session() as sess:
            return sess.run(fetch)


def _error_case(build, error, text):
    with pytest.raises(error) as info:
        _run(build)
    assert text in info.value.message


def _timeout():
    q = tf.FIFOQueue(1, [tf.int32])
    from graphcore.framework.op_def_library import apply_op
    return apply_op("QueueDequeueV2", handle=q.queue_ref, component_types=[tf.int32],
                    timeout_ms=20).outputs[0]


def _shapeless_many():
    q = tf.FIFOQueue(3, [tf.int32])
    return q.dequeue_many(2)


def _bad_shape():
    q = tf.FIFOQueue(3, [tf.int32], shapes=[[2]])
    x = tf.placeholder_with_default(np.array([1, 2, 3], np.int32), shape=None)
    return q.enqueue([x])


@pytest.mark.parametrize("build,error,text", [
    (_timeout, tf.errors.DeadlineExceededError, "Timed out waiting for notification"),
    (_shapeless_many, tf.errors.InvalidArgumentError,
     "FIFOQueue's DequeueMany and DequeueUpTo require the components to have specified "
     "shapes."),
    (_bad_shape, tf.errors.InvalidArgumentError,
     "Shape mismatch in tuple component 0. Expected [2], got [3]"),
])
def test_run_errors(build, error, text):
    _error_case(build, error, text)


@pytest.mark.parametrize("build,error,text", [
    (lambda: tf.FIFOQueue(3, [tf.int32], shapes=[[None]]), ValueError,
     "All shapes must be fully defined"),
    (lambda: tf.PaddingFIFOQueue(3, [tf.int32], shapes=None), ValueError,
     "When providing partial shapes, a list of shapes must be provided."),
    (lambda: tf.FIFOQueue(3, [tf.int32], names=["a"]).enqueue(1), ValueError,
     "You must enqueue a dictionary in a Queue with names"),
    (lambda: tf.train.shuffle_batch([1], 2, capacity=2, min_after_dequeue=2), ValueError,
     "capacity 2 must be bigger than min_after_dequeue 2."),
    (lambda: tf.train.string_input_producer([]), ValueError,
     "string_input_producer requires a non-null input tensor"),
    (lambda: tf.train.limit_epochs(tf.constant(1), 0), ValueError,
     "num_epochs must be > 0 not 0."),
])
def test_build_errors(build, error, text):
    with tf.Graph().as_default(), pytest.raises(error, match=text.replace("(", r"\(")
                                                .replace(")", r"\)").replace("[", r"\[")):
        build()


def test_queue_runner_without_coordinator_closes_queue():
    """Without a coordinator, the runner thread ends when the epochs are done and closes
    the queue, so the consumer drains it and then gets OutOfRangeError."""
    with tf.Graph().as_default():
        q = tf.train.range_input_producer(3, num_epochs=1, shuffle=False, capacity=2)
        d = q.dequeue()
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            threads = tf.train.start_queue_runners(sess)
            got = [sess.run(d) for _ in range(3)]
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(d)
            for t in threads:
                t.join(5)
    assert got == [0, 1, 2]
    assert not any(t.is_alive() for t in threads)


def test_coordinator_reports_exception():
    coord = tf.train.Coordinator()

    def worker():
        with coord.stop_on_exception():
            raise RuntimeError("boom")

    t = threading.Thread(target=worker)
    t.start()
    with pytest.raises(RuntimeError, match="boom"):
        coord.join([t])
    assert coord.should_stop() and coord.joined
    clean = tf.train.Coordinator()
    clean.request_stop(tf.errors.OutOfRangeError(None, None, "end"))
    clean.raise_requested_exception()  # a clean-stop error is not re-raised
    assert clean.should_stop()


def test_reader_counters_and_reset(tmp_path):
    path = tmp_path / "x.txt"
    path.write_text("a\nb\nc\n")
    with tf.Graph().as_default():
        q = tf.FIFOQueue(4, [tf.string])
        reader = tf.TextLineReader()
        key, value = reader.read(q)
        with tf.Session() as sess:
            sess.run(q.enqueue_many([[str(path), str(path)]]))
            values = [sess.run(value) for _ in range(4)]
            counts = sess.run([reader.num_records_produced(),
                               reader.num_work_units_completed()])
            sess.run(reader.reset())
            after = sess.run(reader.num_records_produced())
    assert values == [b"a", b"b", b"c", b"a"]
    assert counts == [4, 1] and after == 0


def test_match_filenames_once_feeds_a_producer(tmp_path):
    for name in ("b.txt", "a.txt", "c.csv"):
        (tmp_path / name).write_text(name)
    with tf.Graph().as_default():
        names = tf.train.match_filenames_once(str(tmp_path / "*.txt"))
        # graphcore gives a validate_shape=False variable an unknown rank (TF: [None]).
        q = tf.train.string_input_producer(tf.reshape(names, [-1]), num_epochs=1,
                                           shuffle=False)
        key, value = tf.WholeFileReader().read(q)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            threads = tf.train.start_queue_runners(sess)
            got = [sess.run(value) for _ in range(2)]
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(value)
            for t in threads:
                t.join(5)
    assert names.name == "matching_filenames:0"
    assert got == [b"a.txt", b"b.txt"]
