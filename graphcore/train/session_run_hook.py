"""Session hooks (TF1's ``SessionRunHook`` API) and the standard hooks."""

from __future__ import annotations

import collections
import logging
import os
import time
from typing import Any

from graphcore.framework import ops as ops_lib

__all__ = ["SessionRunHook", "SessionRunArgs", "SessionRunContext", "SessionRunValues",
           "StopAtStepHook", "CheckpointSaverHook", "LoggingTensorHook"]

_log = logging.getLogger("graphcore.train")


class SessionRunArgs(collections.namedtuple("SessionRunArgs",
                                            ["fetches", "feed_dict", "options"])):
    """What a hook adds to a step: fetches, feeds and options."""

    def __new__(cls, fetches: Any, feed_dict: Any = None, options: Any = None):
        return super().__new__(cls, fetches, feed_dict, options)


SessionRunValues = collections.namedtuple("SessionRunValues",
                                          ["results", "options", "run_metadata"])


class SessionRunContext:
    """The step being run, as a hook sees it."""

    def __init__(self, original_args: Any, session: Any):
        self._original_args = original_args
        self._session = session
        self._stop_requested = False

    @property
    def original_args(self) -> Any:
        return self._original_args

    @property
    def session(self) -> Any:
        return self._session

    @property
    def stop_requested(self) -> bool:
        return self._stop_requested

    def request_stop(self) -> None:
        self._stop_requested = True


class SessionRunHook:
    """Callbacks around a monitored session's steps (all optional)."""

    def begin(self) -> None:
        pass

    def after_create_session(self, session: Any, coord: Any) -> None:
        pass

    def before_run(self, run_context: SessionRunContext) -> SessionRunArgs | None:
        return None

    def after_run(self, run_context: SessionRunContext, run_values: SessionRunValues) -> None:
        pass

    def end(self, session: Any) -> None:
        pass


def _global_step_tensor() -> Any:
    from graphcore.train import training_util

    step = training_util.get_global_step()
    if step is None:
        raise RuntimeError("Global step should be created to use this hook.")
    return step


class StopAtStepHook(SessionRunHook):
    """Requests a stop once the global step reaches ``last_step`` (or ``num_steps``
    after the session starts)."""

    def __init__(self, num_steps: int | None = None, last_step: int | None = None):
        if (num_steps is None) == (last_step is None):
            raise ValueError("One of num_steps or last_step must be specified.")
        self._num_steps = num_steps
        self._last_step = last_step

    def begin(self) -> None:
        self._global_step = _global_step_tensor()

    def after_create_session(self, session: Any, coord: Any) -> None:
        if self._last_step is None:
            self._last_step = int(session.run(self._global_step)) + self._num_steps

    def before_run(self, run_context: SessionRunContext) -> SessionRunArgs:
        return SessionRunArgs(self._global_step)

    def after_run(self, run_context: SessionRunContext, run_values: SessionRunValues) -> None:
        # The fetched value may have been read before this step's increment (TF checks
        # the latest value before stopping).
        if int(run_values.results) + 1 >= self._last_step:
            if int(run_context.session.run(self._global_step)) >= self._last_step:
                run_context.request_stop()


class CheckpointSaverHook(SessionRunHook):
    """Saves a checkpoint every ``save_steps`` steps or ``save_secs`` seconds, and at
    the end."""

    def __init__(self, checkpoint_dir: str, save_secs: float | None = None,
                 save_steps: int | None = None, saver: Any = None,
                 checkpoint_basename: str = "model.ckpt", scaffold: Any = None):
        if (save_secs is None) == (save_steps is None):
            raise ValueError("exactly one of save_secs or save_steps must be given")
        self._dir = checkpoint_dir
        self._save_secs = save_secs
        self._save_steps = save_steps
        self._saver = saver
        self._scaffold = scaffold
        self._path = os.path.join(checkpoint_dir, checkpoint_basename)
        self._last_time = time.time()
        self._last_step: int | None = None

    def begin(self) -> None:
        self._global_step = _global_step_tensor()

    def _get_saver(self) -> Any:
        if self._saver is not None:
            return self._saver
        if self._scaffold is not None and self._scaffold.saver is not None:
            return self._scaffold.saver
        savers = ops_lib.get_collection(ops_lib.GraphKeys.SAVERS)
        if not savers:
            raise RuntimeError("No saver: create a tf.train.Saver before the session")
        return savers[0]

    def after_create_session(self, session: Any, coord: Any) -> None:
        # As TF: the checkpoint saved here is the state at the session's first step
        # (so a recovery before the first periodic save restores this state).
        self._save(session, int(session.run(self._global_step)))

    def before_run(self, run_context: SessionRunContext) -> SessionRunArgs:
        return SessionRunArgs(self._global_step)

    def _due(self, step: int) -> bool:
        if self._last_step is not None and step <= self._last_step:
            return False
        if self._save_steps is not None:
            return self._last_step is None or step >= self._last_step + self._save_steps
        return time.time() - self._last_time >= self._save_secs

    def after_run(self, run_context: SessionRunContext, run_values: SessionRunValues) -> None:
        # results is the global step read during the step (maybe before its increment).
        if self._due(int(run_values.results) + 1):
            step = int(run_context.session.run(self._global_step))
            if self._due(step):
                self._save(run_context.session, step)

    def _save(self, session: Any, step: int) -> None:
        self._get_saver().save(session, self._path, global_step=step)
        self._last_step = step
        self._last_time = time.time()
        _log.info("Saved checkpoint for step %d", step)

    def end(self, session: Any) -> None:
        step = int(session.run(self._global_step))
        if step != self._last_step:
            self._save(session, step)


class LoggingTensorHook(SessionRunHook):
    """Logs the given tensors every ``every_n_iter`` steps."""

    def __init__(self, tensors: Any, every_n_iter: int = 100, formatter: Any = None):
        if isinstance(tensors, dict):
            self._tags, self._tensors = list(tensors), list(tensors.values())
        else:
            self._tensors = list(tensors)
            self._tags = [getattr(t, "name", str(t)) for t in self._tensors]
        self._every = every_n_iter
        self._formatter = formatter
        self._iter = 0

    def before_run(self, run_context: SessionRunContext) -> SessionRunArgs | None:
        if self._iter % self._every == 0:
            return SessionRunArgs(self._tensors)
        return None

    def after_run(self, run_context: SessionRunContext, run_values: SessionRunValues) -> None:
        if self._iter % self._every == 0 and run_values.results is not None:
            values = dict(zip(self._tags, run_values.results))
            text = self._formatter(values) if self._formatter else ", ".join(
                f"{k} = {v}" for k, v in values.items())
            _log.info(text)
        self._iter += 1
