"""tf.train.MonitoredTrainingSession, MonitoredSession and the standard hooks, locally
(graphcore/train/monitored_session.py, graphcore/train/session_run_hook.py)."""

import os

import numpy as np
import pytest

import graphcore as tf
from graphcore import errors


def _model(w0=(1.0, 2.0)):
    """A linear least-squares model trained by gradient descent with a global step."""
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.Variable(np.array(w0, np.float32).reshape(2, 1), name="w")
    step = tf.train.get_or_create_global_step()
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    return x, w, step, train


X = np.array([[1.0, 0.5], [0.2, 1.0], [0.3, 0.3]], np.float32)


class RecordingHook(tf.train.SessionRunHook):
    def __init__(self, fetches=None, feed_dict=None):
        self.events = []
        self.results = []
        self._fetches = fetches
        self._feed_dict = feed_dict

    def begin(self):
        self.events.append("begin")

    def after_create_session(self, session, coord):
        self.events.append("after_create_session")

    def before_run(self, run_context):
        self.events.append("before_run")
        assert run_context.original_args.fetches is not None
        if self._fetches is None and self._feed_dict is None:
            return None
        return tf.train.SessionRunArgs(self._fetches, feed_dict=self._feed_dict)

    def after_run(self, run_context, run_values):
        self.events.append("after_run")
        self.results.append(run_values.results)

    def end(self, session):
        self.events.append("end")


def test_hooks_run_around_steps_with_their_fetches_and_feeds():
    x, w, step, train = _model()
    scale = tf.placeholder_with_default(1.0, [], name="scale")
    scaled = tf.multiply(scale, tf.reduce_sum(w))
    hook = RecordingHook(fetches={"w": w}, feed_dict={scale: 10.0})
    with tf.train.MonitoredTrainingSession(hooks=[hook]) as sess:
        out = sess.run(scaled)
        assert out == pytest.approx(30.0)  # the hook's feed reached the caller's fetch
        sess.run(train, {x: X})
        assert not sess.should_stop()
    assert hook.events == ["begin", "after_create_session", "before_run", "after_run",
                           "before_run", "after_run", "end"]
    np.testing.assert_array_equal(hook.results[0]["w"], [[1.0], [2.0]])
    assert tf.get_default_graph().finalized is False  # unfinalized again after close


def test_stop_at_step_hook_stops_at_last_step():
    x, w, step, train = _model()
    runs = 0
    with tf.train.MonitoredTrainingSession(hooks=[tf.train.StopAtStepHook(last_step=5)]) as sess:
        while not sess.should_stop():
            sess.run(train, {x: X})
            runs += 1
        assert sess.run(step) == 5
    assert runs == 5
    with pytest.raises(ValueError):
        tf.train.StopAtStepHook(num_steps=1, last_step=2)


def test_checkpoint_saver_hook_writes_checkpoints(tmp_path):
    x, w, step, train = _model()
    ckpt = str(tmp_path)
    with tf.train.MonitoredTrainingSession(checkpoint_dir=ckpt, save_checkpoint_steps=2,
                                           hooks=[tf.train.StopAtStepHook(last_step=5)]) as sess:
        while not sess.should_stop():
            sess.run(train, {x: X})
        final_w = sess.run(w)
    state = tf.train.get_checkpoint_state(ckpt)
    names = [os.path.basename(p) for p in state.all_model_checkpoint_paths]
    # At session creation (step 0), every 2 steps, and at the end (TF's schedule).
    assert names == ["model.ckpt-0", "model.ckpt-2", "model.ckpt-4", "model.ckpt-5"]
    assert tf.train.latest_checkpoint(ckpt).endswith("model.ckpt-5")
    for n in names:
        assert os.path.exists(os.path.join(ckpt, n + ".index"))
    reader = tf.train.load_checkpoint(ckpt)
    np.testing.assert_array_equal(reader.get_tensor("w"), final_w)
    assert reader.get_tensor("global_step") == 5
    assert not np.array_equal(tf.train.load_variable(os.path.join(ckpt, "model.ckpt-0"), "w"),
                              final_w)


def test_restores_from_checkpoint_dir_in_a_new_session(tmp_path):
    ckpt = str(tmp_path)
    x, w, step, train = _model()
    with tf.train.MonitoredTrainingSession(checkpoint_dir=ckpt, save_checkpoint_steps=100,
                                           hooks=[tf.train.StopAtStepHook(last_step=4)]) as sess:
        while not sess.should_stop():
            sess.run(train, {x: X})
        trained = sess.run(w)
    with tf.Graph().as_default():
        x, w, step, train = _model(w0=(-7.0, -7.0))  # other initial values
        with tf.train.MonitoredTrainingSession(
                checkpoint_dir=ckpt, hooks=[tf.train.StopAtStepHook(num_steps=3)]) as sess:
            assert sess.run(step) == 4
            np.testing.assert_array_equal(sess.run(w), trained)
            n = 0
            while not sess.should_stop():
                sess.run(train, {x: X})
                n += 1
            assert n == 3 and sess.run(step) == 7
    assert tf.train.latest_checkpoint(ckpt).endswith("model.ckpt-7")


def test_chief_and_non_chief(tmp_path):
    x, w, step, train = _model()
    counter = tf.Variable(0, name="local_counter", trainable=False,
                          collections=[tf.GraphKeys.LOCAL_VARIABLES])
    chief_hook = RecordingHook()
    # A non-chief never initializes: it waits (bounded) until the variables are ready,
    # and says what it waited for.
    with pytest.raises(errors.DeadlineExceededError,
                       match="not ready .* waited for the chief to initialize the "
                             "variables w, global_step"):
        tf.train.MonitoredTrainingSession(is_chief=False, checkpoint_dir=str(tmp_path / "nc"),
                                          chief_only_hooks=[chief_hook], max_wait_secs=0.3)
    assert chief_hook.events == ["begin"] or chief_hook.events == []
    assert not os.path.exists(tmp_path / "nc")
    # Ready (as a ps-shared cluster would be once the chief ran): a non-chief runs its
    # local init only, and neither chief-only hooks nor checkpoint saving.
    chief_hook = RecordingHook()
    scaffold = tf.train.Scaffold(ready_op=tf.constant([], tf.string, name="always_ready"))
    with tf.train.MonitoredTrainingSession(is_chief=False, checkpoint_dir=str(tmp_path / "nc"),
                                           save_checkpoint_steps=1, scaffold=scaffold,
                                           chief_only_hooks=[chief_hook]) as sess:
        assert sess.run(counter) == 0
        with pytest.raises(errors.FailedPreconditionError):
            sess.run(w)
    assert chief_hook.events == []
    assert not os.path.exists(tmp_path / "nc")
    # The chief initializes, runs its chief-only hooks and saves.
    with tf.train.MonitoredTrainingSession(is_chief=True, checkpoint_dir=str(tmp_path / "c"),
                                           save_checkpoint_steps=1,
                                           chief_only_hooks=[chief_hook]) as sess:
        sess.run(train, {x: X})
        assert sess.run(counter) == 0
    assert chief_hook.events[:2] == ["begin", "after_create_session"]
    assert chief_hook.events[-1] == "end"
    assert tf.train.latest_checkpoint(str(tmp_path / "c")).endswith("model.ckpt-1")


class AbortOnceHook(tf.train.SessionRunHook):
    """Raises AbortedError after the step that takes the global step to ``at``, once."""

    def __init__(self, at):
        self.at = at
        self.fired = False
        self.created = []

    def begin(self):
        self._step = tf.train.get_global_step()
        self._w = tf.get_default_graph().get_tensor_by_name("w:0")

    def after_create_session(self, session, coord):
        self.created.append((int(session.run(self._step)), session.run(self._w)))

    def after_run(self, run_context, run_values):
        if not self.fired and run_context.session.run(self._step) == self.at:
            self.fired = True
            raise errors.AbortedError(None, None, "lost a task")


def test_recovers_from_aborted_error_by_restoring_the_last_checkpoint(tmp_path):
    ckpt = str(tmp_path)
    x, w, step, train = _model()
    abort = AbortOnceHook(at=3)
    seen = []
    with tf.train.MonitoredTrainingSession(checkpoint_dir=ckpt, save_checkpoint_steps=2,
                                           hooks=[abort, tf.train.StopAtStepHook(last_step=6)]
                                           ) as sess:
        while not sess.should_stop():
            sess.run(train, {x: X})
            seen.append(int(sess.run(step)))
        assert sess.recoveries == 1
        final = sess.run(w)
    # The aborted step (2 -> 3) is run again on the state restored from model.ckpt-2.
    assert seen == [1, 2, 3, 4, 5, 6]
    assert abort.fired and len(abort.created) == 2
    restored_step, restored_w = abort.created[1]
    assert restored_step == 2
    np.testing.assert_array_equal(
        restored_w, tf.train.load_variable(os.path.join(ckpt, "model.ckpt-2"), "w"))
    # The same six steps without a fault give the same weights.
    with tf.Graph().as_default():
        x2, w2, step2, train2 = _model()
        with tf.train.MonitoredTrainingSession(
                hooks=[tf.train.StopAtStepHook(last_step=6)]) as sess:
            while not sess.should_stop():
                sess.run(train2, {x2: X})
            np.testing.assert_allclose(sess.run(w2), final, rtol=1e-6)


def test_recovery_gives_up_after_max_recoveries():
    x, w, step, train = _model()

    class AlwaysAbort(tf.train.SessionRunHook):
        def before_run(self, run_context):
            raise errors.UnavailableError(None, None, "task gone")

    sess = tf.train.MonitoredSession(hooks=[AlwaysAbort()], max_recoveries=2)
    with pytest.raises(errors.UnavailableError, match="task gone"):
        sess.run(train, {x: X})
    assert sess.recoveries == 3
    sess.close()


def test_tf_session_creator_form(tmp_path):
    """MonitoredSession(session_creator=ChiefSessionCreator/WorkerSessionCreator), as TF
    scripts write it, and SingularMonitoredSession with TF's signature."""
    x, w, step, train = _model()
    ckpt = str(tmp_path)
    with tf.train.MonitoredTrainingSession(checkpoint_dir=ckpt,
                                           save_checkpoint_steps=1) as sess:
        for _ in range(3):
            sess.run(train, {x: X})
        trained = sess.run(w)
    creator = tf.train.ChiefSessionCreator(checkpoint_dir=ckpt)
    with tf.train.MonitoredSession(session_creator=creator,
                                   hooks=[tf.train.StopAtStepHook(last_step=5)]) as sess:
        assert sess.run(step) == 3
        np.testing.assert_array_equal(sess.run(w), trained)
        while not sess.should_stop():
            sess.run(train, {x: X})
        assert sess.run(step) == 5
    ckpt3 = os.path.join(ckpt, "model.ckpt-3")
    with tf.train.SingularMonitoredSession(checkpoint_filename_with_path=ckpt3) as sess:
        assert sess.run(step) == 3
        assert isinstance(sess.raw_session(), tf.Session)
    worker = tf.train.WorkerSessionCreator(max_wait_secs=0.2)
    with pytest.raises(errors.DeadlineExceededError, match="not ready"):
        tf.train.MonitoredSession(session_creator=worker)
