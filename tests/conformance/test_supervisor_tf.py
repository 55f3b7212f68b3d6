"""Reference tier: tf.train.Supervisor, SessionManager and basic_train_loop against TF's
compat.v1 — a chief trains with managed_session (default init, saver, summary op and
global step from the graph), saves, and a second Supervisor over the same logdir
restores; compared: trained values and steps, the files in logdir, the event file's
SessionLogs, the ops the Supervisor adds, and SessionManager's errors.
Skipped when TensorFlow is not installed."""

import glob
import os
import time

import numpy as np
import pytest

import graphcore as gc

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1


def _model(lib):
    x = lib.constant([[1.0, 2.0], [3.0, 4.0]])
    w = lib.Variable([[0.5], [-0.5]], name="w")
    loss = lib.reduce_mean(lib.square(lib.matmul(x, w) - 1.0), name="objective")
    step = lib.train.get_or_create_global_step()
    train = lib.train.GradientDescentOptimizer(0.05).minimize(loss, global_step=step)
    lib.summary.scalar("loss", loss)
    return w, step, train


def _supervise(lib, logdir, steps):
    graph = lib.Graph()
    with graph.as_default():
        w, step, train = _model(lib)
        # No service threads: TF 2 runs other threads eagerly, where they fail.
        sv = lib.train.Supervisor(logdir=logdir, save_summaries_secs=0, save_model_secs=0)
        added = sorted(k for k in ("init_op", "ready_op", "local_init_op", "summary_op",
                                   "global_step", "savers") if graph.get_collection(k))
        assert graph.finalized
        with sv.managed_session() as sess:
            start = int(sess.run(step))
            for _ in range(steps):
                if sv.should_stop():
                    break
                sess.run(train)
            sv.saver.save(sess, sv.save_path, global_step=sv.global_step)
            result = (start, int(sess.run(step)), sess.run(w))
        assert sv.should_stop()
    return result, added


def _events(lib, logdir):
    statuses, tags = [], set()
    for path in sorted(glob.glob(os.path.join(logdir, "events.out.tfevents.*"))):
        for e in lib.train.summary_iterator(path):
            if e.HasField("session_log"):
                statuses.append(e.session_log.status)
            tags.update(v.tag for v in e.summary.value)
    return statuses, tags


def test_supervisor_trains_saves_and_restores_like_tf(tmp_path):
    runs = {}
    tf1.disable_resource_variables()
    try:
        for name, lib in (("gc", gc), ("tf", tf1)):
            logdir = str(tmp_path / name)
            first = _supervise(lib, logdir, 4)
            # Event files are named by the second; a second writer in the same second
            # truncates TF's file, where graphcore's appends (nothing lost): keep them apart.
            time.sleep(1.1)
            second = _supervise(lib, logdir, 3)
            runs[name] = (first, second, sorted(os.path.basename(p) for p in
                                                glob.glob(os.path.join(logdir, "*"))
                                                if "tfevents" not in p),
                          _events(lib, logdir))
    finally:
        tf1.enable_resource_variables()
    (ours1, ours2, our_files, our_events), (ref1, ref2, ref_files, ref_events) = \
        runs["gc"], runs["tf"]
    assert ours1[1] == ref1[1] and ours2[1] == ref2[1]  # the collections it filled
    assert ours1[0][:2] == ref1[0][:2] == (0, 4)
    assert ours2[0][:2] == ref2[0][:2] == (4, 7)  # restored from model.ckpt-4
    np.testing.assert_allclose(ours2[0][2], ref2[0][2], rtol=1e-6)
    assert our_files == ref_files
    assert our_events == ref_events == ([1, 2, 1, 2], set())  # START, STOP per session


def test_session_manager_errors_match_tf():
    for lib in (gc, tf1):
        with lib.Graph().as_default():
            v = lib.Variable(1.0, name="v")
            sm = lib.train.SessionManager(ready_op=lib.report_uninitialized_variables())
            with pytest.raises(RuntimeError, match="Model is not initialized and no init_op "
                                                   "or init_fn or local_init_op was given"):
                sm.prepare_session("")
            with pytest.raises(RuntimeError, match="Init operations did not make model "
                                                   "ready.*Variables not initialized: v"):
                sm.prepare_session("", init_op=lib.no_op())
            sess = sm.prepare_session("", init_op=lib.global_variables_initializer())
            assert sess.run(v) == 1.0
            sess, restored = sm.recover_session("")
            assert restored is False
            sm = lib.train.SessionManager(ready_op=lib.report_uninitialized_variables(),
                                          recovery_wait_secs=0.1)
            with pytest.raises(lib.errors.DeadlineExceededError,
                               match="Session was not ready after waiting"):
                sm.wait_for_session("", max_wait_secs=0.2)
