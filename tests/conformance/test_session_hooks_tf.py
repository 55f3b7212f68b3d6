"""Reference tier: MonitoredTrainingSession with its default hooks (StepCounterHook,
SummarySaverHook, CheckpointSaverHook) and ProfilerHook, StopAtStepHook and a
CheckpointSaverListener, against TF's compat.v1: the files written, the event files'
summaries and session logs by step (read with each library's summary_iterator), the
listener's calls and the timelines' steps. Skipped when TensorFlow is not installed."""

import glob
import os

import pytest

import graphcore as gc

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1


def _train(lib, logdir):
    calls = []

    class Listener(lib.train.CheckpointSaverListener):
        def before_save(self, session, step):
            calls.append(("before", int(step)))

        def after_save(self, session, step):
            calls.append(("after", int(step)))

        def end(self, session, step):
            calls.append(("end", int(step)))

    graph = lib.Graph()
    with graph.as_default():
        x = lib.placeholder(lib.float32, [], name="x")
        w = lib.Variable(1.0, name="w")
        loss = lib.square(w * x - 2.0, name="objective")
        step = lib.train.get_or_create_global_step()
        train = lib.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
        lib.summary.scalar("loss", loss)
        lib.train.Saver()
        hooks = [lib.train.StopAtStepHook(last_step=7),
                 lib.train.ProfilerHook(save_steps=3, output_dir=os.path.join(logdir, "prof")),
                 lib.train.CheckpointSaverHook(os.path.join(logdir, "extra"), save_steps=4,
                                               listeners=[Listener()])]
        with lib.train.MonitoredTrainingSession(
                checkpoint_dir=logdir, save_summaries_steps=2, log_step_count_steps=3,
                save_checkpoint_steps=5, hooks=hooks) as sess:
            while not sess.should_stop():
                sess.run(train, {x: 1.5})
    lib.summary.FileWriterCache.clear()
    events = []
    for path in sorted(glob.glob(os.path.join(logdir, "events.out.tfevents.*"))):
        for e in lib.train.summary_iterator(path):
            if e.summary.value:
                events.append((e.step, [v.tag for v in e.summary.value]))
            elif e.HasField("session_log"):
                events.append((e.step, e.session_log.status))
    files = {d: sorted(f for f in os.listdir(os.path.join(logdir, d))
                       if not f.startswith("events.out"))
             for d in ("", "prof", "extra")}
    return events, files, calls


def test_monitored_training_session_hooks_write_what_tf_writes(tmp_path):
    tf1.disable_resource_variables()
    try:
        theirs = _train(tf1, str(tmp_path / "tf"))
    finally:
        tf1.enable_resource_variables()
    ours = _train(gc, str(tmp_path / "gc"))
    # Which steps are traced depends on whether each step's read of the global step ran
    # before or after its increment (unordered in both executors): the first timeline is
    # step 3 when the reads see the old value and step 4 when they see the new one.
    first_traced = ("timeline-3.json", "timeline-4.json")
    assert ours[1].pop("prof")[0] in first_traced
    assert theirs[1].pop("prof")[0] in first_traced
    assert ours == theirs

