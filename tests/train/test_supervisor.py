"""Supervisor (graphcore/train/supervisor.py) with its service threads, SessionManager
(session_manager.py), basic_train_loop (basic_loops.py), a user's SessionCreator in
MonitoredSession, and Variable.load."""

import glob
import os

import numpy as np
import pytest

import graphcore as tf


def _model():
    w = tf.Variable(1.0, name="w")
    step = tf.train.get_or_create_global_step()
    loss = tf.square(w - 3.0, name="objective")
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    tf.summary.scalar("loss", loss)
    return w, step, train


def test_supervisor_services_write_summaries_rates_and_checkpoints(tmp_path):
    logdir = str(tmp_path)
    with tf.Graph().as_default():
        w, step, train = _model()
        sv = tf.train.Supervisor(logdir=logdir, save_summaries_secs=0.05, save_model_secs=0.05)
        with sv.managed_session() as sess:
            for _ in range(20):
                sess.run(train)
                sv.coord.wait_for_stop(0.01)
        assert sv.should_stop()
    statuses, tags = [], set()
    for path in glob.glob(os.path.join(logdir, "events.out.tfevents.*")):
        for e in tf.train.summary_iterator(path):
            if e.HasField("session_log"):
                statuses.append(e.session_log.status)
            tags.update(v.tag for v in e.summary.value)
    assert statuses[0] == 1 and statuses[-1] == 2  # START ... STOP
    assert 3 in statuses  # CHECKPOINT
    assert tags == {"loss", "global_step/sec"}
    assert tf.train.latest_checkpoint(logdir) is not None
    assert os.path.exists(os.path.join(logdir, "graph.pbtxt"))


def test_managed_session_stops_quietly_on_out_of_range_and_reraises_others(tmp_path):
    with tf.Graph().as_default():
        _model()
        sv = tf.train.Supervisor(logdir=None)
        with sv.managed_session() as sess:
            raise tf.errors.OutOfRangeError(None, None, "done")
        assert sv.should_stop()
        with pytest.raises(ValueError, match="boom"):
            with sv.managed_session() as sess:
                del sess
                raise ValueError("boom")


def test_basic_train_loop_retries_after_aborted_error():
    with tf.Graph().as_default():
        w, step, train = _model()
        sv = tf.train.Supervisor(logdir=None)
        calls = []

        def train_step(sess, limit):
            calls.append(int(sess.run(step)))
            if len(calls) == 2:
                raise tf.errors.AbortedError(None, None, "aborted")
            sess.run(train)
            if len(calls) >= limit:
                sv.request_stop()

        tf.train.basic_train_loop(sv, train_step, args=(5,))
    # The second session starts afresh (no logdir to restore from).
    assert calls == [0, 1, 0, 1, 2]


def test_non_chief_supervisor_waits_for_the_chief():
    with tf.Graph().as_default():
        with tf.device("/job:localhost/replica:0/task:0/device:CPU:0"):
            w = tf.Variable(2.0, name="w")
        sm = tf.train.SessionManager(ready_op=tf.report_uninitialized_variables(),
                                     recovery_wait_secs=0.05)
        sv = tf.train.Supervisor(is_chief=False, session_manager=sm, init_op=w.initializer)
        with pytest.raises(tf.errors.DeadlineExceededError,
                           match="Session was not ready after waiting 0.2 secs."):
            sv.prepare_or_wait_for_session(max_wait_secs=0.2)
    with tf.Graph().as_default():
        tf.Variable(1.0, name="w")
        with pytest.raises(ValueError, match="When using replicas, all Variables must have "
                                             "their device set"):
            tf.train.Supervisor(is_chief=False)


class _Creator(tf.train.SessionCreator):
    def __init__(self, init):
        self.init = init
        self.created = 0

    def create_session(self):
        self.created += 1
        sess = tf.Session()
        sess.run(self.init)
        return sess


def test_monitored_session_uses_a_users_session_creator():
    with tf.Graph().as_default():
        w, step, train = _model()
        creator = _Creator(tf.global_variables_initializer())
        with tf.train.MonitoredSession(session_creator=creator,
                                       hooks=[tf.train.StopAtStepHook(last_step=3)]) as sess:
            while not sess.should_stop():
                sess.run(train)
            assert sess.run(step) == 3
        assert creator.created == 1
    with pytest.raises(NotImplementedError, match="create_session is not implemented"):
        tf.train.SessionCreator().create_session()


def test_builtin_session_creators_create_ready_sessions():
    with tf.Graph().as_default():
        w, step, train = _model()
        report = tf.report_uninitialized_variables()
        scaffold = tf.train.Scaffold()
        sess = tf.train.ChiefSessionCreator(scaffold=scaffold).create_session()
        assert sess.run(w) == 1.0
        assert tf.get_default_graph().finalized
        assert sess.run(report).size == 0
        # A local worker's session has its own variables: never ready.
        with pytest.raises(tf.errors.DeadlineExceededError,
                           match="Session was not ready after waiting 1 secs."):
            tf.train.WorkerSessionCreator(scaffold=scaffold, max_wait_secs=1).create_session()
        tf.get_default_graph()._unsafe_unfinalize()


def test_variable_load_feeds_the_initializer():
    for use_resource in (False, True):
        with tf.Graph().as_default():
            v = tf.Variable([1.0, 2.0], use_resource=use_resource)
            n_ops = len(tf.get_default_graph().get_operations())
            with tf.Session() as sess:
                v.load([5.0, 6.0], sess)
                np.testing.assert_array_equal(sess.run(v), [5.0, 6.0])
                with sess.as_default():
                    v.load([7.0, 8.0])
                    np.testing.assert_array_equal(v.eval(), [7.0, 8.0])
            assert len(tf.get_default_graph().get_operations()) == n_ops
            with pytest.raises(ValueError, match="Either session argument should be provided"):
                v.load([0.0, 0.0])


def test_supervisor_session_on_a_server_target(tmp_path):
    server = tf.train.Server.create_local_server()
    with tf.Graph().as_default():
        w, step, train = _model()
        sv = tf.train.Supervisor(logdir=str(tmp_path), save_model_secs=0,
                                 save_summaries_secs=0)
        with sv.managed_session(server.target) as sess:
            for _ in range(3):
                sess.run(train)
            assert sess.run(step) == 3
            assert sess.run(w) == pytest.approx(1.976, rel=1e-6)


def test_managed_session_starts_and_stops_the_graphs_queue_runners():
    with tf.Graph().as_default():
        queue = tf.FIFOQueue(10, tf.float32)
        counter = tf.Variable(0.0, name="counter")
        enqueue = queue.enqueue(tf.assign_add(counter, 1.0) * 1.0)
        tf.train.add_queue_runner(tf.train.QueueRunner(queue, [enqueue]))
        value = queue.dequeue()
        sv = tf.train.Supervisor(logdir=None)
        with sv.managed_session() as sess:
            got = [sess.run(value) for _ in range(5)]
        assert got == [1.0, 2.0, 3.0, 4.0, 5.0]
        assert sv.should_stop()
        assert not any(t.is_alive() for t in sv.coord._registered_threads)
