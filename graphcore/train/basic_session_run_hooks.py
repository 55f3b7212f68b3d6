"""The standard session hooks of TF1 (TF's ``basic_session_run_hooks.py``): timers,
stopping, logging, checkpoints (with listeners), step rates, summaries, NaN checks,
waiting for the global step, final ops, feeds and Chrome-trace profiles.

Hooks that read the global step fetch ``global_step/add:0`` (one read per step, see
``training_util._get_or_create_global_step_read``); the value fetched with a step may
precede the step's own increment, so hooks that act on a step number read it again
before acting, as TF's do.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

import numpy as np

from graphcore.framework import errors
from graphcore.framework import ops as ops_lib
from graphcore.protobuf import config_pb2, event_pb2, summary_pb2
from graphcore.summary.writer import FileWriterCache
from graphcore.train import training_util
from graphcore.train.session_run_hook import SessionRunArgs, SessionRunHook

__all__ = ["CheckpointSaverHook", "CheckpointSaverListener", "FeedFnHook", "FinalOpsHook",
           "GlobalStepWaiterHook", "LoggingTensorHook", "NanLossDuringTrainingError",
           "NanTensorHook", "ProfilerHook", "SecondOrStepTimer", "StepCounterHook",
           "StopAtStepHook", "SummarySaverHook"]

_log = logging.getLogger("tensorflow")  # tf.logging's logger, as TF logs


def _global_step_read(hook_name: str) -> Any:
    step = training_util._get_or_create_global_step_read()
    if step is None:
        raise RuntimeError(f"Global step should be created to use {hook_name}.")
    return step


class SecondOrStepTimer:
    """Triggers every ``every_secs`` seconds or every ``every_steps`` steps (exactly one
    of them), and always the first time."""

    def __init__(self, every_secs: float | None = None, every_steps: int | None = None):
        self.reset()
        self._every_secs = every_secs
        self._every_steps = every_steps
        if every_secs is None and every_steps is None:
            raise ValueError("Either every_secs or every_steps should be provided.")
        if every_secs is not None and every_steps is not None:
            raise ValueError("Can not provide both every_secs and every_steps.")

    def reset(self) -> None:
        self._last_triggered_step: int | None = None
        self._last_triggered_time: float | None = None

    def should_trigger_for_step(self, step: int) -> bool:
        if self._last_triggered_step is None:
            return True
        if self._last_triggered_step == step:
            return False
        if self._every_secs is not None and \
                time.time() >= self._last_triggered_time + self._every_secs:
            return True
        return self._every_steps is not None and \
            step >= self._last_triggered_step + self._every_steps

    def update_last_triggered_step(self, step: int) -> tuple:
        """Records a trigger at ``step``; (seconds, steps) since the previous one, or
        (None, None) the first time."""
        now = time.time()
        if self._last_triggered_time is None:
            elapsed = (None, None)
        else:
            elapsed = (now - self._last_triggered_time, step - self._last_triggered_step)
        self._last_triggered_time = now
        self._last_triggered_step = step
        return elapsed

    def last_triggered_step(self) -> int | None:
        return self._last_triggered_step


class _NeverTriggerTimer(SecondOrStepTimer):
    def __init__(self) -> None:
        self.reset()

    def should_trigger_for_step(self, step: int) -> bool:
        return False

    def update_last_triggered_step(self, step: int) -> tuple:
        return (None, None)


def _as_graph_element(obj: Any) -> Any:
    """``obj`` (a Tensor or Operation of the default graph, or the name of one)."""
    graph = ops_lib.get_default_graph()
    if not isinstance(obj, str):
        if getattr(obj, "graph", None) is not graph:
            raise ValueError(f"Passed {obj} should have graph attribute that is equal to "
                             f"current graph {graph}.")
        return obj
    if ":" in obj:
        return graph.as_graph_element(obj)
    element = graph.as_graph_element(obj + ":0")
    try:
        graph.as_graph_element(obj + ":1")
    except (KeyError, ValueError):
        return element
    raise ValueError(f"Name {obj} is ambiguous, as this `Operation` has multiple outputs "
                     "(at least 2).")


class LoggingTensorHook(SessionRunHook):
    """Logs ``tensors`` (a list, or a dict tag -> tensor, logged in sorted tag order)
    every ``every_n_iter`` steps or ``every_n_secs`` seconds, and/or ``at_end``."""

    def __init__(self, tensors: Any, every_n_iter: int | None = None,
                 every_n_secs: float | None = None, at_end: bool = False,
                 formatter: Any = None):
        only_log_at_end = at_end and every_n_iter is None and every_n_secs is None
        if not only_log_at_end and (every_n_iter is None) == (every_n_secs is None):
            raise ValueError("either at_end and/or exactly one of every_n_iter and "
                             "every_n_secs must be provided.")
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        if not isinstance(tensors, dict):
            self._tag_order = list(tensors)
            tensors = {item: item for item in tensors}
        else:
            self._tag_order = sorted(tensors.keys())
        self._tensors = tensors
        self._formatter = formatter
        self._timer = _NeverTriggerTimer() if only_log_at_end else SecondOrStepTimer(
            every_secs=every_n_secs, every_steps=every_n_iter)
        self._log_at_end = at_end

    def begin(self) -> None:
        self._timer.reset()
        self._iter_count = 0
        self._current_tensors = {tag: _as_graph_element(t) for tag, t in self._tensors.items()}

    def before_run(self, run_context: Any) -> SessionRunArgs | None:
        self._should_trigger = self._timer.should_trigger_for_step(self._iter_count)
        return SessionRunArgs(self._current_tensors) if self._should_trigger else None

    def _log_tensors(self, tensor_values: dict) -> None:
        original = np.get_printoptions()
        np.set_printoptions(suppress=True)
        try:
            elapsed_secs, _ = self._timer.update_last_triggered_step(self._iter_count)
            if self._formatter:
                _log.info(self._formatter(tensor_values))
                return
            stats = ", ".join(f"{tag} = {tensor_values[tag]}" for tag in self._tag_order)
            if elapsed_secs is not None:
                _log.info("%s (%.3f sec)", stats, elapsed_secs)
            else:
                _log.info("%s", stats)
        finally:
            np.set_printoptions(**original)

    def after_run(self, run_context: Any, run_values: Any) -> None:
        if self._should_trigger:
            self._log_tensors(run_values.results)
        self._iter_count += 1

    def end(self, session: Any) -> None:
        if self._log_at_end:
            self._log_tensors(session.run(self._current_tensors))


class StopAtStepHook(SessionRunHook):
    """Requests a stop once the global step reaches ``last_step`` (or ``num_steps``
    after the session starts)."""

    def __init__(self, num_steps: int | None = None, last_step: int | None = None):
        if num_steps is None and last_step is None:
            raise ValueError("One of num_steps or last_step must be specified.")
        if num_steps is not None and last_step is not None:
            raise ValueError("Only one of num_steps or last_step can be specified.")
        self._num_steps = num_steps
        self._last_step = last_step

    def begin(self) -> None:
        self._global_step_tensor = _global_step_read("StopAtStepHook")

    def after_create_session(self, session: Any, coord: Any) -> None:
        if self._last_step is None:
            self._last_step = int(session.run(self._global_step_tensor)) + self._num_steps

    def before_run(self, run_context: Any) -> SessionRunArgs:
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context: Any, run_values: Any) -> None:
        if run_values.results + 1 >= self._last_step:
            if run_context.session.run(self._global_step_tensor) >= self._last_step:
                run_context.request_stop()


class CheckpointSaverListener:
    """Callbacks around the checkpoints a CheckpointSaverHook saves; ``after_save``
    returning True requests a stop."""

    def begin(self) -> None:
        pass

    def before_save(self, session: Any, global_step_value: int) -> None:
        pass

    def after_save(self, session: Any, global_step_value: int) -> Any:
        pass

    def end(self, session: Any, global_step_value: int) -> None:
        pass


class CheckpointSaverHook(SessionRunHook):
    """Saves a checkpoint when the session starts, every ``save_steps`` steps or
    ``save_secs`` seconds, and at the end; writes graph.pbtxt and the graph and a
    CHECKPOINT SessionLog to the checkpoint directory's event file."""

    def __init__(self, checkpoint_dir: str, save_secs: float | None = None,
                 save_steps: int | None = None, saver: Any = None,
                 checkpoint_basename: str = "model.ckpt", scaffold: Any = None,
                 listeners: list | None = None, save_graph_def: bool = True):
        _log.info("Create CheckpointSaverHook.")
        if saver is not None and scaffold is not None:
            raise ValueError("You cannot provide both saver and scaffold.")
        self._saver = saver
        self._checkpoint_dir = checkpoint_dir
        self._save_path = os.path.join(checkpoint_dir, checkpoint_basename)
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._listeners = listeners or []
        self._save_graph_def = save_graph_def

    def begin(self) -> None:
        self._summary_writer = FileWriterCache.get(self._checkpoint_dir)
        self._global_step_tensor = _global_step_read("CheckpointSaverHook")
        for listener in self._listeners:
            listener.begin()

    def after_create_session(self, session: Any, coord: Any) -> None:
        from graphcore.framework import graph_io
        from graphcore.train import meta_graph

        global_step = int(session.run(self._global_step_tensor))
        graph = ops_lib.get_default_graph()
        if self._save_graph_def:
            graph_io.write_graph(graph.as_graph_def(add_shapes=True), self._checkpoint_dir,
                                 "graph.pbtxt")
        self._summary_writer.add_graph(graph)
        self._summary_writer.add_meta_graph(meta_graph.export_meta_graph(
            graph=graph, saver_def=self._get_saver().saver_def))
        self._save(session, global_step)
        self._timer.update_last_triggered_step(global_step)

    def before_run(self, run_context: Any) -> SessionRunArgs:
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context: Any, run_values: Any) -> None:
        if self._timer.should_trigger_for_step(run_values.results + 1):
            global_step = int(run_context.session.run(self._global_step_tensor))
            if self._timer.should_trigger_for_step(global_step):
                self._timer.update_last_triggered_step(global_step)
                if self._save(run_context.session, global_step):
                    run_context.request_stop()

    def end(self, session: Any) -> None:
        last_step = int(session.run(self._global_step_tensor))
        if last_step != self._timer.last_triggered_step():
            self._save(session, last_step)
        for listener in self._listeners:
            listener.end(session, last_step)

    def _save(self, session: Any, step: int) -> bool:
        """Saves; True when a listener asks to stop."""
        _log.info("Calling checkpoint listeners before saving checkpoint %d...", step)
        for listener in self._listeners:
            listener.before_save(session, step)
        _log.info("Saving checkpoints for %d into %s.", step, self._save_path)
        self._get_saver().save(session, self._save_path, global_step=step,
                               write_meta_graph=self._save_graph_def)
        self._summary_writer.add_session_log(
            event_pb2.SessionLog(status=event_pb2.SessionLog.CHECKPOINT,
                                 checkpoint_path=self._save_path), step)
        _log.info("Calling checkpoint listeners after saving checkpoint %d...", step)
        should_stop = False
        for listener in self._listeners:
            if listener.after_save(session, step):
                _log.info("A CheckpointSaverListener requested that training be stopped. "
                          "listener: %s", listener)
                should_stop = True
        return should_stop

    def _get_saver(self) -> Any:
        if self._saver is not None:
            return self._saver
        if self._scaffold is not None:
            return self._scaffold.saver
        savers = ops_lib.get_collection(ops_lib.GraphKeys.SAVERS)
        if not savers:
            raise RuntimeError(f"No items in collection {ops_lib.GraphKeys.SAVERS}. Please add "
                               "a saver to the collection or provide a saver or scaffold.")
        if len(savers) > 1:
            raise RuntimeError(f"More than one item in collection {ops_lib.GraphKeys.SAVERS}. "
                               "Please indicate which one to use by passing it to the "
                               "constructor.")
        self._saver = savers[0]
        return savers[0]


class StepCounterHook(SessionRunHook):
    """Logs (and writes as the summary ``<global step>/sec``) the steps per second every
    ``every_n_steps`` steps or ``every_n_secs`` seconds."""

    def __init__(self, every_n_steps: int | None = 100, every_n_secs: float | None = None,
                 output_dir: str | None = None, summary_writer: Any = None):
        if (every_n_steps is None) == (every_n_secs is None):
            raise ValueError("exactly one of every_n_steps and every_n_secs should be "
                             "provided.")
        self._timer = SecondOrStepTimer(every_steps=every_n_steps, every_secs=every_n_secs)
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._last_global_step = None
        self._steps_per_run = 1
        self._warnings_left = 5

    def begin(self) -> None:
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = FileWriterCache.get(self._output_dir)
        self._global_step_tensor = _global_step_read("StepCounterHook")
        self._summary_tag = training_util.get_global_step().op.name + "/sec"

    def before_run(self, run_context: Any) -> SessionRunArgs:
        return SessionRunArgs(self._global_step_tensor)

    def _log_and_record(self, elapsed_steps: int, elapsed_time: float, global_step: int) -> None:
        steps_per_sec = elapsed_steps / elapsed_time
        if self._summary_writer is not None:
            summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(
                tag=self._summary_tag, simple_value=steps_per_sec)])
            self._summary_writer.add_summary(summary, global_step)
        _log.info("%s: %g", self._summary_tag, steps_per_sec)

    def after_run(self, run_context: Any, run_values: Any) -> None:
        stale_global_step = run_values.results
        if self._timer.should_trigger_for_step(stale_global_step + self._steps_per_run):
            global_step = int(run_context.session.run(self._global_step_tensor))
            if self._timer.should_trigger_for_step(global_step):
                elapsed_time, elapsed_steps = self._timer.update_last_triggered_step(
                    global_step)
                if elapsed_time is not None:
                    self._log_and_record(elapsed_steps, elapsed_time, global_step)
        if stale_global_step == self._last_global_step and self._warnings_left > 0:
            self._warnings_left -= 1  # TF logs the first 5
            _log.warning("It seems that global step (tf.train.get_global_step) has not been "
                         "increased. Current value (could be stable): %s vs previous value: "
                         "%s. You could increase the global step by passing "
                         "tf.train.get_global_step() to Optimizer.apply_gradients or "
                         "Optimizer.minimize.", stale_global_step, self._last_global_step)
        self._last_global_step = stale_global_step


class NanLossDuringTrainingError(RuntimeError):
    def __str__(self) -> str:
        return "NaN loss during training."


class NanTensorHook(SessionRunHook):
    """Raises NanLossDuringTrainingError (or, with ``fail_on_nan_loss=False``, requests a
    stop) when ``loss_tensor`` is NaN."""

    def __init__(self, loss_tensor: Any, fail_on_nan_loss: bool = True):
        self._loss_tensor = loss_tensor
        self._fail_on_nan_loss = fail_on_nan_loss

    def before_run(self, run_context: Any) -> SessionRunArgs:
        return SessionRunArgs(self._loss_tensor)

    def after_run(self, run_context: Any, run_values: Any) -> None:
        if np.isnan(run_values.results):
            failure_message = "Model diverged with loss = NaN."
            if self._fail_on_nan_loss:
                _log.error(failure_message)
                raise NanLossDuringTrainingError
            _log.warning(failure_message)
            run_context.request_stop()


class SummarySaverHook(SessionRunHook):
    """Writes the summaries of ``summary_op`` (or the scaffold's) every ``save_steps``
    steps or ``save_secs`` seconds, and a START SessionLog at the first step."""

    def __init__(self, save_steps: int | None = None, save_secs: float | None = None,
                 output_dir: str | None = None, summary_writer: Any = None,
                 scaffold: Any = None, summary_op: Any = None):
        if (scaffold is None) == (summary_op is None):
            raise ValueError("Exactly one of scaffold or summary_op must be provided.")
        self._summary_op = summary_op
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self) -> None:
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = FileWriterCache.get(self._output_dir)
        self._next_step = None
        self._global_step_tensor = _global_step_read("SummarySaverHook")

    def before_run(self, run_context: Any) -> SessionRunArgs:
        self._request_summary = (self._next_step is None
                                 or self._timer.should_trigger_for_step(self._next_step))
        requests = {"global_step": self._global_step_tensor}
        if self._request_summary and self._get_summary_op() is not None:
            requests["summary"] = self._get_summary_op()
        return SessionRunArgs(requests)

    def after_run(self, run_context: Any, run_values: Any) -> None:
        if not self._summary_writer:
            return
        global_step = run_values.results["global_step"] + 1
        if self._next_step is None or self._request_summary:
            global_step = int(run_context.session.run(self._global_step_tensor))
        if self._next_step is None:
            self._summary_writer.add_session_log(
                event_pb2.SessionLog(status=event_pb2.SessionLog.START), global_step)
        if self._request_summary:
            self._timer.update_last_triggered_step(global_step)
            for summary in run_values.results.get("summary", []):
                self._summary_writer.add_summary(summary, global_step)
        self._next_step = global_step + 1

    def end(self, session: Any = None) -> None:
        if self._summary_writer:
            self._summary_writer.flush()

    def _get_summary_op(self) -> list | None:
        summary_op = self._summary_op
        if summary_op is None:
            summary_op = self._scaffold.summary_op
        if summary_op is None:
            return None
        return summary_op if isinstance(summary_op, list) else [summary_op]


class GlobalStepWaiterHook(SessionRunHook):
    """Holds the first step until the global step reaches ``wait_until_step`` (a worker
    starting after others have trained a while)."""

    def __init__(self, wait_until_step: int):
        self._wait_until_step = wait_until_step

    def begin(self) -> None:
        self._worker_is_started = False
        self._global_step_tensor = _global_step_read("_GlobalStepWaiterHook")

    def before_run(self, run_context: Any) -> None:
        if self._worker_is_started:
            return None
        if self._wait_until_step <= 0:
            self._worker_is_started = True
            return None
        _log.info("Waiting for global step %d before starting training.",
                  self._wait_until_step)
        last_logged_step = 0
        while True:
            current_step = run_context.session.run(self._global_step_tensor)
            if current_step >= self._wait_until_step:
                self._worker_is_started = True
                return None
            if current_step - last_logged_step > 1000:
                _log.info("Waiting for global step %d before starting training. Current "
                          "step is %d.", self._wait_until_step, current_step)
                last_logged_step = current_step
            time.sleep(0.5)


class FinalOpsHook(SessionRunHook):
    """Runs ``final_ops`` when the session ends; their values in ``final_ops_values``."""

    def __init__(self, final_ops: Any, final_ops_feed_dict: Any = None):
        self._final_ops = final_ops
        self._final_ops_feed_dict = final_ops_feed_dict
        self._final_ops_values = None

    @property
    def final_ops_values(self) -> Any:
        return self._final_ops_values

    def end(self, session: Any) -> None:
        if self._final_ops is None:
            return
        try:
            self._final_ops_values = session.run(self._final_ops,
                                                 feed_dict=self._final_ops_feed_dict)
        except (errors.OutOfRangeError, StopIteration):
            _log.warning("An OutOfRangeError or StopIteration exception is raised by the "
                         "code in FinalOpsHook. This typically means the Ops running by the "
                         "FinalOpsHook have a dependency back to some input source, which "
                         "should not happen.")
            raise


class FeedFnHook(SessionRunHook):
    """Feeds ``feed_fn()`` (a dict) into every step."""

    def __init__(self, feed_fn: Any):
        self.feed_fn = feed_fn

    def before_run(self, run_context: Any) -> SessionRunArgs:
        return SessionRunArgs(fetches=None, feed_dict=self.feed_fn())


class ProfilerHook(SessionRunHook):
    """Traces a step every ``save_steps`` steps or ``save_secs`` seconds (not the first)
    and writes its Chrome trace to ``<output_dir>/timeline-<step>.json`` and its
    RunMetadata to the event file."""

    def __init__(self, save_steps: int | None = None, save_secs: float | None = None,
                 output_dir: str = "", show_dataflow: bool = True, show_memory: bool = False):
        self._output_file = os.path.join(output_dir, "timeline-{}.json")
        self._file_writer = FileWriterCache.get(output_dir)
        self._show_dataflow = show_dataflow
        self._show_memory = show_memory
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self) -> None:
        self._next_step = None
        self._global_step_tensor = _global_step_read("ProfilerHook")

    def before_run(self, run_context: Any) -> SessionRunArgs:
        self._request_summary = (self._next_step is not None
                                 and self._timer.should_trigger_for_step(self._next_step))
        opts = config_pb2.RunOptions(trace_level=config_pb2.RunOptions.FULL_TRACE) \
            if self._request_summary else None
        return SessionRunArgs({"global_step": self._global_step_tensor}, options=opts)

    def after_run(self, run_context: Any, run_values: Any) -> None:
        stale_global_step = run_values.results["global_step"]
        if self._next_step is None:
            self._timer.update_last_triggered_step(stale_global_step)
        global_step = stale_global_step + 1
        if self._request_summary:
            global_step = int(run_context.session.run(self._global_step_tensor))
            self._timer.update_last_triggered_step(global_step)
            self._save(global_step, self._output_file.format(global_step),
                       run_values.run_metadata.step_stats)
            self._file_writer.add_run_metadata(run_values.run_metadata,
                                               f"step_{global_step}")
        self._next_step = global_step + 1

    def _save(self, step: int, save_path: str, step_stats: Any) -> None:
        from graphcore.client import timeline

        _log.info("Saving timeline for %d into '%s'.", step, save_path)
        trace = timeline.Timeline(step_stats).generate_chrome_trace_format(
            show_dataflow=self._show_dataflow, show_memory=self._show_memory)
        with open(save_path, "w") as f:
            f.write(trace)
