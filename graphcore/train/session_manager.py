"""``tf.train.SessionManager``: creates sessions that are ready to run — initialized
(``init_op``/``init_fn``) or restored from a checkpoint, ``local_init_op`` run, and
``ready_op`` (the uninitialized-variable report) empty — or waits until another task
has made them so (TF's ``session_manager.py``)."""

from __future__ import annotations

import logging
import time
from typing import Any

from graphcore.client.session import Session
from graphcore.framework import errors
from graphcore.framework import ops as ops_lib
from graphcore.train import saver as saver_lib

__all__ = ["SessionManager"]

_log = logging.getLogger("tensorflow")  # tf.logging's logger, as TF logs


def _maybe_name(obj: Any) -> str:
    if obj is None:
        return "None"
    return obj.name if hasattr(obj, "name") else f"<no name for {obj}>"


def _ready(op: Any, sess: Session, msg: str) -> tuple[bool, str | None]:
    """(True, None) when ``op`` (a list of uninitialized variables' names) is empty."""
    if op is None:
        return True, None
    try:
        ready_value = sess.run(op)
    except errors.FailedPreconditionError as e:
        if "uninitialized" not in str(e):
            _log.warning("%s : error [%s]", msg, e)
            raise
        return False, str(e)
    if ready_value is None or ready_value.dtype == "int32" or ready_value.size == 0:
        return True, None
    names = ", ".join(i.decode("utf-8") for i in ready_value)
    return False, "Variables not initialized: " + names


class SessionManager:
    """Prepares (chief), recovers or waits for (other workers) a ready session."""

    def __init__(self, local_init_op: Any = None, ready_op: Any = None,
                 ready_for_local_init_op: Any = None, graph: ops_lib.Graph | None = None,
                 recovery_wait_secs: float = 30, local_init_run_options: Any = None,
                 local_init_feed_dict: Any = None):
        self._local_init_op = local_init_op
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._graph = graph if graph is not None else ops_lib.get_default_graph()
        self._recovery_wait_secs = recovery_wait_secs
        self._target = None
        self._local_init_run_options = local_init_run_options
        self._local_init_feed_dict = local_init_feed_dict
        if ready_for_local_init_op is not None and local_init_op is None:
            raise ValueError("If you pass a ready_for_local_init_op you must also pass a "
                             f"local_init_op , ready_for_local_init_op "
                             f"[{ready_for_local_init_op}]")

    def _restore_checkpoint(self, master: str, saver: Any = None,
                            checkpoint_dir: str | None = None,
                            checkpoint_filename_with_path: str | None = None,
                            wait_for_checkpoint: bool = False, max_wait_secs: float = 7200,
                            config: Any = None) -> tuple[Session, bool]:
        self._target = master
        sess = Session(self._target, graph=self._graph, config=config)
        if checkpoint_dir and checkpoint_filename_with_path:
            raise ValueError("Can not provide both checkpoint_dir and "
                             "checkpoint_filename_with_path.")
        if not saver or not (checkpoint_dir or checkpoint_filename_with_path):
            return sess, False
        if checkpoint_filename_with_path:
            saver.restore(sess, checkpoint_filename_with_path)
            return sess, True
        wait_time = 0
        ckpt = saver_lib.get_checkpoint_state(checkpoint_dir)
        while not ckpt or not ckpt.model_checkpoint_path:
            if wait_for_checkpoint and wait_time < max_wait_secs:
                _log.info("Waiting for checkpoint to be available.")
                time.sleep(self._recovery_wait_secs)
                wait_time += self._recovery_wait_secs
                ckpt = saver_lib.get_checkpoint_state(checkpoint_dir)
            else:
                return sess, False
        saver.restore(sess, ckpt.model_checkpoint_path)
        saver.recover_last_checkpoints(ckpt.all_model_checkpoint_paths)
        return sess, True

    def prepare_session(self, master: str, init_op: Any = None, saver: Any = None,
                        checkpoint_dir: str | None = None,
                        checkpoint_filename_with_path: str | None = None,
                        wait_for_checkpoint: bool = False, max_wait_secs: float = 7200,
                        config: Any = None, init_feed_dict: Any = None,
                        init_fn: Any = None) -> Session:
        """A session restored from the latest checkpoint of ``checkpoint_dir`` (or
        ``checkpoint_filename_with_path``), else initialized by ``init_op`` and
        ``init_fn``; raises RuntimeError if the model is then not ready."""
        sess, is_loaded_from_checkpoint = self._restore_checkpoint(
            master, saver, checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path,
            wait_for_checkpoint=wait_for_checkpoint, max_wait_secs=max_wait_secs,
            config=config)
        if not is_loaded_from_checkpoint:
            if init_op is None and not init_fn and self._local_init_op is None:
                raise RuntimeError("Model is not initialized and no init_op or init_fn or "
                                   "local_init_op was given")
            if init_op is not None:
                sess.run(init_op, feed_dict=init_feed_dict)
            if init_fn:
                init_fn(sess)
        local_init_success, msg = self._try_run_local_init_op(sess)
        if not local_init_success:
            raise RuntimeError("Init operations did not make model ready for local_init.  "
                               f"Init op: {_maybe_name(init_op)}, init fn: {init_fn}, "
                               f"error: {msg}")
        is_ready, msg = self._model_ready(sess)
        if not is_ready:
            raise RuntimeError("Init operations did not make model ready.  Init op: "
                               f"{_maybe_name(init_op)}, init fn: {init_fn}, local_init_op: "
                               f"{self._local_init_op}, error: {msg}")
        return sess

    def recover_session(self, master: str, saver: Any = None,
                        checkpoint_dir: str | None = None,
                        checkpoint_filename_with_path: str | None = None,
                        wait_for_checkpoint: bool = False, max_wait_secs: float = 7200,
                        config: Any = None) -> tuple[Session, bool]:
        """(session, True) when a checkpoint restored a ready model, else (session,
        False)."""
        sess, is_loaded_from_checkpoint = self._restore_checkpoint(
            master, saver, checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path,
            wait_for_checkpoint=wait_for_checkpoint, max_wait_secs=max_wait_secs,
            config=config)
        local_init_success, msg = self._try_run_local_init_op(sess)
        if not is_loaded_from_checkpoint:
            return sess, False
        restoring_file = checkpoint_dir or checkpoint_filename_with_path
        if not local_init_success:
            _log.info("Restoring model from %s did not make model ready for local init: %s",
                      restoring_file, msg)
            return sess, False
        is_ready, msg = self._model_ready(sess)
        if not is_ready:
            _log.info("Restoring model from %s did not make model ready: %s",
                      restoring_file, msg)
            return sess, False
        _log.info("Restored model from %s", restoring_file)
        return sess, True

    def wait_for_session(self, master: str, config: Any = None,
                         max_wait_secs: float | None = float("inf")) -> Session:
        """A session once the model is ready (another task initialized it), polling
        every ``recovery_wait_secs``; DeadlineExceededError after ``max_wait_secs``."""
        self._target = master
        if max_wait_secs is None:
            max_wait_secs = float("inf")
        deadline = time.time() + max_wait_secs
        while True:
            sess = Session(self._target, graph=self._graph, config=config)
            not_ready_msg = None
            local_init_success, not_ready_local_msg = self._try_run_local_init_op(sess)
            if local_init_success:
                is_ready, not_ready_msg = self._model_ready(sess)
                if is_ready:
                    return sess
            try:
                sess.close()
            except Exception:  # noqa: BLE001 - TF's _safe_close: the session is discarded
                pass
            if max(0.0, deadline - time.time()) - self._recovery_wait_secs < 0:
                raise errors.DeadlineExceededError(
                    None, None, f"Session was not ready after waiting {max_wait_secs} secs.")
            _log.info("Waiting for model to be ready.  Ready_for_local_init_op:  %s, "
                      "ready: %s", not_ready_local_msg, not_ready_msg)
            time.sleep(self._recovery_wait_secs)

    def _model_ready(self, sess: Session) -> tuple[bool, str | None]:
        return _ready(self._ready_op, sess, "Model not ready")

    def _model_ready_for_local_init(self, sess: Session) -> tuple[bool, str | None]:
        return _ready(self._ready_for_local_init_op, sess, "Model not ready for local init")

    def _try_run_local_init_op(self, sess: Session) -> tuple[bool, str | None]:
        if self._local_init_op is None:
            return True, None
        is_ready_for_local_init, msg = self._model_ready_for_local_init(sess)
        if not is_ready_for_local_init:
            return False, msg
        _log.info("Running local_init_op.")
        sess.run(self._local_init_op, feed_dict=self._local_init_feed_dict,
                 options=self._local_init_run_options)
        _log.info("Done running local_init_op.")
        return True, None
