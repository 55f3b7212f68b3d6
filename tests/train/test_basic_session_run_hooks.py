"""The standard hooks (graphcore/train/basic_session_run_hooks.py) inside
MonitoredTrainingSession: timers, NaN checks, feeds, final ops, summaries and step rates
in the event file, checkpoint listeners, Chrome-trace profiles, the global-step waiter,
and the hooks MonitoredTrainingSession adds by default."""

import glob
import json
import os
import threading
import time

import numpy as np
import pytest

import graphcore as tf
from graphcore.summary.writer import FileWriterCache


@pytest.fixture(autouse=True)
def _fresh_writers():
    FileWriterCache.clear()
    yield
    FileWriterCache.clear()


def _model():
    x = tf.placeholder(tf.float32, [], name="x")
    w = tf.Variable(1.0, name="w")
    loss = tf.square(w * x - 2.0, name="objective")
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    return x, loss, train


def _events(logdir):
    out = []
    for path in sorted(glob.glob(os.path.join(logdir, "events.out.tfevents.*"))):
        out.extend(tf.train.summary_iterator(path))
    return out


def test_second_or_step_timer():
    timer = tf.train.SecondOrStepTimer(every_steps=3)
    assert timer.should_trigger_for_step(0)
    assert timer.update_last_triggered_step(0) == (None, None)
    assert [timer.should_trigger_for_step(s) for s in (0, 1, 2, 3)] == [False, False, False,
                                                                         True]
    elapsed_secs, elapsed_steps = timer.update_last_triggered_step(3)
    assert elapsed_steps == 3 and elapsed_secs >= 0
    assert timer.last_triggered_step() == 3
    with pytest.raises(ValueError, match="Either every_secs or every_steps should be provided"):
        tf.train.SecondOrStepTimer()
    with pytest.raises(ValueError, match="Can not provide both every_secs and every_steps"):
        tf.train.SecondOrStepTimer(every_secs=1, every_steps=1)


def test_nan_tensor_hook_raises_or_stops():
    with tf.Graph().as_default():
        x, loss, train = _model()
        nan_loss = loss * x
        with tf.train.MonitoredTrainingSession(
                hooks=[tf.train.NanTensorHook(nan_loss)]) as sess:
            sess.run(train, {x: 1.0})
            with pytest.raises(tf.train.NanLossDuringTrainingError,
                               match="NaN loss during training."):
                sess.run(train, {x: np.nan})
    with tf.Graph().as_default():
        x, loss, train = _model()
        with tf.train.MonitoredTrainingSession(
                hooks=[tf.train.NanTensorHook(loss * x, fail_on_nan_loss=False)]) as sess:
            sess.run(train, {x: np.nan})
            assert sess.should_stop()


def test_feed_fn_and_final_ops_hooks():
    with tf.Graph().as_default():
        x, loss, train = _model()
        w = tf.global_variables()[0]
        final = tf.train.FinalOpsHook(w * 10.0)
        feeds = [1.0, 2.0, 3.0]
        calls = []

        def feed_fn():
            calls.append(1)
            return {x: feeds[len(calls) - 1]}

        with tf.train.MonitoredTrainingSession(
                hooks=[tf.train.FeedFnHook(feed_fn), final]) as sess:
            for _ in range(3):
                sess.run(train)
        # w after steps with x = 1, 2, 3: w -= 0.1 * 2 * (w * x - 2) * x
        expected = 1.0
        for xv in feeds:
            expected -= 0.1 * 2 * (expected * xv - 2.0) * xv
        assert final.final_ops_values == pytest.approx(expected * 10.0, rel=1e-6)


def test_default_hooks_write_summaries_step_rate_and_checkpoints(tmp_path):
    logdir = str(tmp_path)
    with tf.Graph().as_default():
        x, loss, train = _model()
        tf.summary.scalar("loss", loss)
        with tf.train.MonitoredTrainingSession(
                checkpoint_dir=logdir, save_summaries_steps=2, log_step_count_steps=2,
                save_checkpoint_steps=3,
                hooks=[tf.train.StopAtStepHook(last_step=6)]) as sess:
            while not sess.should_stop():
                sess.run(train, {x: 1.0})
    FileWriterCache.clear()
    events = _events(logdir)
    loss_steps = [e.step for e in events for v in e.summary.value if v.tag == "loss"]
    assert loss_steps == [1, 3, 5]
    rate_steps = [e.step for e in events for v in e.summary.value
                  if v.tag == "global_step/sec"]
    assert rate_steps == [3, 5]
    assert [e.step for e in events if e.session_log.status == e.session_log.START] == [1]
    checkpoints = [e.step for e in events if e.session_log.status == e.session_log.CHECKPOINT]
    assert checkpoints == [0, 3, 6]
    assert any(e.graph_def for e in events) and any(e.meta_graph_def for e in events)
    assert os.path.exists(os.path.join(logdir, "graph.pbtxt"))
    assert tf.train.latest_checkpoint(logdir).endswith("model.ckpt-6")


class _Listener(tf.train.CheckpointSaverListener):
    def __init__(self):
        self.calls = []

    def begin(self):
        self.calls.append("begin")

    def before_save(self, session, global_step_value):
        self.calls.append(("before", global_step_value))

    def after_save(self, session, global_step_value):
        self.calls.append(("after", global_step_value))
        return global_step_value >= 2  # asks to stop

    def end(self, session, global_step_value):
        self.calls.append(("end", global_step_value))


def test_checkpoint_saver_listener_is_called_and_can_stop_training(tmp_path):
    listener = _Listener()
    with tf.Graph().as_default():
        x, loss, train = _model()
        tf.train.Saver()
        hook = tf.train.CheckpointSaverHook(str(tmp_path), save_steps=2, listeners=[listener])
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            n = 0
            while not sess.should_stop():
                sess.run(train, {x: 1.0})
                n += 1
    assert n == 2
    assert listener.calls == ["begin", ("before", 0), ("after", 0), ("before", 2),
                              ("after", 2), ("end", 2)]


def test_profiler_hook_writes_chrome_traces(tmp_path):
    with tf.Graph().as_default():
        x, loss, train = _model()
        hook = tf.train.ProfilerHook(save_steps=2, output_dir=str(tmp_path))
        with tf.train.MonitoredTrainingSession(hooks=[hook]) as sess:
            for _ in range(5):
                sess.run(train, {x: 1.0})
    FileWriterCache.clear()
    files = sorted(os.listdir(tmp_path))
    # As TF's: the first step is never traced; then every 2 steps, named by the step
    # after the traced run.
    assert [f for f in files if f.startswith("timeline")] == ["timeline-2.json",
                                                              "timeline-4.json"]
    trace = json.loads((tmp_path / "timeline-2.json").read_text())
    names = {e.get("args", {}).get("name") for e in trace["traceEvents"]}
    assert "GradientDescent/update_w/ApplyGradientDescent" in names
    tags = [e.tagged_run_metadata.tag for e in _events(str(tmp_path))
            if e.HasField("tagged_run_metadata")]
    assert tags == ["step_2", "step_4"]


def test_global_step_waiter_hook_waits_for_the_step():
    with tf.Graph().as_default():
        x, loss, train = _model()
        step = tf.train.get_global_step()
        bump = tf.assign(step, 3)
        late = tf.train.GlobalStepWaiterHook(wait_until_step=2)
        with tf.train.SingularMonitoredSession(hooks=[late]) as sess:
            timer = threading.Timer(0.2, lambda: sess.raw_session().run(bump))
            timer.start()
            start = time.time()
            sess.run(train, {x: 1.0})
            assert time.time() - start >= 0.2
            assert sess.run(step) == 4
            timer.join()


def test_logging_tensor_hook_logs_every_n_iter_and_at_end(caplog):
    caplog.set_level("INFO", logger="tensorflow")
    with tf.Graph().as_default():
        x, loss, train = _model()
        w = tf.global_variables()[0]
        hook = tf.train.LoggingTensorHook({"loss": w}, every_n_iter=2, at_end=True)
        with tf.train.MonitoredTrainingSession(hooks=[hook]) as sess:
            for _ in range(3):
                sess.run(train, {x: 1.0})
    messages = [r.getMessage() for r in caplog.records if r.getMessage().startswith("loss = ")]
    assert len(messages) == 3  # iterations 0 and 2, and the end
    with pytest.raises(ValueError, match="either at_end and/or exactly one of every_n_iter"):
        tf.train.LoggingTensorHook({"loss": 1}, every_n_iter=None)


def test_a_read_of_the_global_step_in_the_train_step_sees_the_value_before_it(tmp_path):
    """As TF's executor, which runs cheap ops as soon as they are ready: the hooks' read
    of the global step in the training step's own run gives the step before the update,
    so summaries every 10 steps land on steps 1, 11, 21 (TF's numbers)."""
    from graphcore.train import training_util

    with tf.Graph().as_default():
        x, loss, train = _model()
        read = training_util._get_or_create_global_step_read()
        tf.summary.scalar("loss", loss)
        with tf.train.MonitoredTrainingSession(
                checkpoint_dir=str(tmp_path), save_summaries_steps=10,
                log_step_count_steps=None, save_checkpoint_steps=None,
                hooks=[tf.train.StopAtStepHook(last_step=25)]) as sess:
            seen = []
            while not sess.should_stop():
                seen.append(sess.run([train, read], {x: 1.0})[1])
    FileWriterCache.clear()
    assert seen == list(range(25))
    loss_steps = [e.step for e in _events(str(tmp_path)) for v in e.summary.value
                  if v.tag == "loss"]
    assert loss_steps == [1, 11, 21]
