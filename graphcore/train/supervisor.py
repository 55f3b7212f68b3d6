"""``tf.train.Supervisor`` (TF1's pre-MonitoredSession training helper, TF's
``supervisor.py``): gathers the init/ready/local-init ops, Saver, summary op and global
step of a graph (from its collections or by default), finalizes it, and hands out a
session that the chief initializes or restores from ``logdir`` and other workers wait
for. The chief's standard services are threads on the Supervisor's Coordinator: a
summary writer every ``save_summaries_secs`` (with the step rate) and a checkpoint every
``save_model_secs``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Iterator
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.protobuf import event_pb2, summary_pb2
from graphcore.train import coordinator, meta_graph, training_util
from graphcore.train import saver as saver_mod
from graphcore.train.session_manager import SessionManager

__all__ = ["Supervisor"]

_log = logging.getLogger("tensorflow")  # tf.logging's logger, as TF logs


class Supervisor:
    """TF1's Supervisor; see the module docstring."""

    USE_DEFAULT = 0

    def __init__(self, graph: ops_lib.Graph | None = None, ready_op: Any = USE_DEFAULT,
                 ready_for_local_init_op: Any = USE_DEFAULT, is_chief: bool = True,
                 init_op: Any = USE_DEFAULT, init_feed_dict: Any = None,
                 local_init_op: Any = USE_DEFAULT, logdir: str | None = None,
                 summary_op: Any = USE_DEFAULT, saver: Any = USE_DEFAULT,
                 global_step: Any = USE_DEFAULT, save_summaries_secs: float = 120,
                 save_model_secs: float = 600, recovery_wait_secs: float = 30,
                 stop_grace_secs: float = 120, checkpoint_basename: str = "model.ckpt",
                 session_manager: SessionManager | None = None,
                 summary_writer: Any = USE_DEFAULT, init_fn: Any = None,
                 local_init_run_options: Any = None):
        if graph is None:
            graph = ops_lib.get_default_graph()
        with graph.as_default():
            self._init_ready_op(ready_op, ready_for_local_init_op)
            self._init_init_op(init_op, init_feed_dict)
            self._init_local_init_op(local_init_op)
            self._init_saver(saver)
            self._init_summary_op(summary_op)
            self._init_global_step(global_step)
        self._graph = graph
        self._meta_graph_def = meta_graph.export_meta_graph(
            graph=graph, graph_def=graph.as_graph_def(add_shapes=True),
            saver_def=self._saver.saver_def if self._saver else None)
        self._is_chief = is_chief
        self._coord = coordinator.Coordinator()
        self._recovery_wait_secs = recovery_wait_secs
        self._stop_grace_secs = stop_grace_secs
        self._init_fn = init_fn
        self._local_init_run_options = local_init_run_options
        self._logdir = None
        self._save_summaries_secs = None
        self._save_model_secs = None
        self._save_path = None
        self._summary_writer = None
        if self._is_chief:
            self._logdir = logdir
            self._save_summaries_secs = save_summaries_secs
            self._save_model_secs = save_model_secs
            if self._logdir:
                self._save_path = os.path.join(self._logdir, checkpoint_basename)
            if summary_writer is Supervisor.USE_DEFAULT:
                if self._logdir:
                    from graphcore.summary.writer import FileWriter

                    self._summary_writer = FileWriter(self._logdir)
            else:
                self._summary_writer = summary_writer
            self._graph_added_to_summary = False
        if session_manager is None:
            session_manager = SessionManager(
                local_init_op=self._local_init_op, ready_op=self._ready_op,
                ready_for_local_init_op=self._ready_for_local_init_op, graph=self._graph,
                recovery_wait_secs=self._recovery_wait_secs,
                local_init_run_options=self._local_init_run_options)
        self._session_manager = session_manager
        self._verify_setup()
        graph.finalize()

    # -- the graph's standard ops ----------------------------------------------------
    def _get_first_op_from_collection(self, key: str) -> Any:
        op_list = ops_lib.get_collection(key)
        if len(op_list) > 1:
            _log.info("Found %d %s operations. Returning the first one.", len(op_list), key)
        return op_list[0] if op_list else None

    def _op_or_default(self, value: Any, key: str, make: Any) -> Any:
        """TF's USE_DEFAULT rule: ``value`` when given, else the first item of collection
        ``key``, else ``make()``, added to that collection (unless None)."""
        if value is not Supervisor.USE_DEFAULT:
            return value
        value = self._get_first_op_from_collection(key)
        if value is None:
            value = make()
            if value is not None:
                ops_lib.add_to_collection(key, value)
        return value

    def _init_ready_op(self, ready_op: Any, ready_for_local_init_op: Any) -> None:
        from graphcore.ops import variables

        self._ready_op = self._op_or_default(ready_op, ops_lib.GraphKeys.READY_OP,
                                             variables.report_uninitialized_variables)
        self._ready_for_local_init_op = self._op_or_default(
            ready_for_local_init_op, ops_lib.GraphKeys.READY_FOR_LOCAL_INIT_OP, lambda: None)

    def _init_init_op(self, init_op: Any, init_feed_dict: Any) -> None:
        from graphcore.ops import variables

        self._init_op = self._op_or_default(init_op, ops_lib.GraphKeys.INIT_OP,
                                            variables.global_variables_initializer)
        self._init_feed_dict = init_feed_dict

    def _init_local_init_op(self, local_init_op: Any) -> None:
        from graphcore.ops import control_flow_ops, lookup_ops, variables

        self._local_init_op = self._op_or_default(
            local_init_op, ops_lib.GraphKeys.LOCAL_INIT_OP,
            lambda: control_flow_ops.group(variables.local_variables_initializer(),
                                           lookup_ops.tables_initializer()))

    def _init_saver(self, saver: Any) -> None:
        from graphcore.ops import variables

        self._saver = self._op_or_default(
            saver, ops_lib.GraphKeys.SAVERS,
            lambda: saver_mod.Saver() if variables.global_variables() else None)

    def _init_summary_op(self, summary_op: Any) -> None:
        from graphcore.summary import summary_ops

        self._summary_op = self._op_or_default(summary_op, ops_lib.GraphKeys.SUMMARY_OP,
                                               summary_ops.merge_all)

    def _init_global_step(self, global_step: Any) -> None:
        self._global_step = self._op_or_default(global_step, ops_lib.GraphKeys.GLOBAL_STEP,
                                                self._default_global_step_tensor)

    def _default_global_step_tensor(self) -> Any:
        try:
            gs = ops_lib.get_default_graph().get_tensor_by_name("global_step:0")
        except (KeyError, ValueError):
            return None
        if gs.dtype.base_dtype in (dtypes_lib.int32, dtypes_lib.int64):
            return gs
        _log.warning("Found 'global_step' is not an int type: %s", gs.dtype)
        return None

    def _verify_setup(self) -> None:
        if not self._is_chief:
            for op in self._graph.get_operations():
                if op.type in ("Variable", "VariableV2") and not op.device:
                    raise ValueError("When using replicas, all Variables must have their "
                                     f"device set: {op.node_def}")

    # -- properties ------------------------------------------------------------------
    is_chief = property(lambda self: self._is_chief)
    session_manager = property(lambda self: self._session_manager)
    coord = property(lambda self: self._coord)
    init_op = property(lambda self: self._init_op)
    init_feed_dict = property(lambda self: self._init_feed_dict)
    ready_op = property(lambda self: self._ready_op)
    ready_for_local_init_op = property(lambda self: self._ready_for_local_init_op)
    summary_writer = property(lambda self: self._summary_writer)
    summary_op = property(lambda self: self._summary_op)
    save_summaries_secs = property(lambda self: self._save_summaries_secs)
    global_step = property(lambda self: self._global_step)
    saver = property(lambda self: self._saver)
    save_model_secs = property(lambda self: self._save_model_secs)
    save_path = property(lambda self: self._save_path)

    # -- sessions and services -------------------------------------------------------
    def _write_graph(self) -> None:
        from graphcore.framework import graph_io

        if self._logdir:
            graph_io.write_graph(self._graph.as_graph_def(add_shapes=True), self._logdir,
                                 "graph.pbtxt")
        if self._summary_writer and not self._graph_added_to_summary:
            self._summary_writer.add_graph(self._graph)
            self._summary_writer.add_meta_graph(self._meta_graph_def)
            self._graph_added_to_summary = True

    def start_standard_services(self, sess: Any) -> list:
        """Starts the chief's summary, step-counter and checkpoint threads."""
        if not self._is_chief:
            raise RuntimeError("Only chief supervisor can start standard services. Because "
                               "only chief supervisors can write events.")
        if not self._logdir:
            _log.warning("Standard services need a 'logdir' passed to the SessionManager")
            return []
        if self._global_step is not None and self._summary_writer:
            current_step = training_util.global_step(sess, self._global_step)
            self._summary_writer.add_session_log(
                event_pb2.SessionLog(status=event_pb2.SessionLog.START), current_step)
        threads: list = []
        if self._save_summaries_secs and self._summary_writer:
            if self._summary_op is not None:
                threads.append(SVSummaryThread(self, sess))
            if self._global_step is not None:
                threads.append(SVStepCounterThread(self, sess))
        if self.saver and self._save_model_secs:
            threads.append(SVTimerCheckpointThread(self, sess))
        for t in threads:
            t.start()
        return threads

    def prepare_or_wait_for_session(self, master: str = "", config: Any = None,
                                    wait_for_checkpoint: bool = False,
                                    max_wait_secs: float = 7200,
                                    start_standard_services: bool = True) -> Any:
        """The chief's initialized or restored session (services started), or, on other
        workers, one once the chief has initialized the model."""
        self._coord.clear_stop()
        if self._summary_writer:
            self._summary_writer.reopen()
        if self._is_chief:
            sess = self._session_manager.prepare_session(
                master, init_op=self.init_op, saver=self.saver, checkpoint_dir=self._logdir,
                wait_for_checkpoint=wait_for_checkpoint, max_wait_secs=max_wait_secs,
                config=config, init_feed_dict=self._init_feed_dict, init_fn=self._init_fn)
            self._write_graph()
            if start_standard_services:
                _log.info("Starting standard services.")
                self.start_standard_services(sess)
        else:
            sess = self._session_manager.wait_for_session(master, config=config,
                                                          max_wait_secs=max_wait_secs)
        if start_standard_services:
            _log.info("Starting queue runners.")
            self.start_queue_runners(sess)
        return sess

    def start_queue_runners(self, sess: Any, queue_runners: list | None = None) -> list:
        """Starts the threads of ``queue_runners`` (default: the graph's) on the
        Supervisor's coordinator."""
        if queue_runners is None:
            queue_runners = self._graph.get_collection(ops_lib.GraphKeys.QUEUE_RUNNERS)
        threads = []
        for qr in queue_runners:
            threads.extend(qr.create_threads(sess, coord=self._coord, daemon=True, start=True))
        return threads

    def loop(self, timer_interval_secs: float, target: Any, args: Any = None,
             kwargs: Any = None) -> coordinator.LooperThread:
        """Starts a thread calling ``target`` every ``timer_interval_secs``."""
        looper = coordinator.LooperThread(self._coord, timer_interval_secs, target=target,
                                          args=args, kwargs=kwargs)
        looper.start()
        return looper

    def stop(self, threads: list | None = None, close_summary_writer: bool = True,
             ignore_live_threads: bool = False) -> None:
        """Stops the services and joins their threads (and ``threads``); writes a STOP
        SessionLog and closes the summary writer."""
        self._coord.request_stop()
        try:
            self._coord.join(threads, stop_grace_period_secs=self._stop_grace_secs,
                             ignore_live_threads=ignore_live_threads)
        finally:
            if close_summary_writer and self._summary_writer:
                self._summary_writer.add_session_log(
                    event_pb2.SessionLog(status=event_pb2.SessionLog.STOP))
                self._summary_writer.close()
                self._graph_added_to_summary = False

    def request_stop(self, ex: Any = None) -> None:
        self._coord.request_stop(ex=ex)

    def should_stop(self) -> bool:
        return self._coord.should_stop()

    def stop_on_exception(self) -> Any:
        return self._coord.stop_on_exception()

    def wait_for_stop(self) -> None:
        self._coord.wait_for_stop()

    def summary_computed(self, sess: Any, summary: Any, global_step: Any = None) -> None:
        """Writes ``summary`` (at the current global step by default)."""
        if not self._summary_writer:
            raise RuntimeError("Writing a summary requires a summary writer.")
        if global_step is None and self.global_step is not None:
            global_step = training_util.global_step(sess, self.global_step)
        self._summary_writer.add_summary(summary, global_step)

    @contextlib.contextmanager
    def managed_session(self, master: str = "", config: Any = None,
                        start_standard_services: bool = True,
                        close_summary_writer: bool = True) -> Iterator[Any]:
        """A session for a ``with`` block; an exception in the block stops the
        services and is re-raised by ``stop`` (OutOfRangeError ends it quietly)."""
        sess = None
        try:
            sess = self.prepare_or_wait_for_session(
                master=master, config=config, start_standard_services=start_standard_services)
            yield sess
        except Exception as e:  # noqa: BLE001 - the coordinator re-raises it in stop()
            self.request_stop(e)
        finally:
            try:
                self.stop(close_summary_writer=close_summary_writer)
            finally:
                if sess is not None:
                    sess.close()

    PrepareSession = prepare_or_wait_for_session
    StartQueueRunners = start_queue_runners
    StartStandardServices = start_standard_services
    Stop = stop
    RequestStop = request_stop
    Loop = loop
    ShouldStop = should_stop
    StopOnException = stop_on_exception
    WaitForStop = wait_for_stop
    SummaryComputed = summary_computed


class SVSummaryThread(coordinator.LooperThread):
    """Writes the summary op's value every ``save_summaries_secs``."""

    def __init__(self, sv: Supervisor, sess: Any):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv = sv
        self._sess = sess

    def run_loop(self) -> None:
        if self._sv.global_step is not None:
            summary_strs, global_step = self._sess.run([self._sv.summary_op,
                                                        self._sv.global_step])
        else:
            summary_strs = self._sess.run(self._sv.summary_op)
            global_step = None
        if self._sv.summary_writer:
            _log.info("Recording summary at step %s.", global_step)
            self._sv.summary_writer.add_summary(summary_strs, global_step)


class SVStepCounterThread(coordinator.LooperThread):
    """Writes ``<global step>/sec`` every ``save_summaries_secs``."""

    def __init__(self, sv: Supervisor, sess: Any, step_counter: Any = None):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv = sv
        self._sess = sess
        self._last_time = 0.0
        self._last_step = 0
        self._step_counter = sv.global_step if step_counter is None else step_counter
        self._summary_tag = f"{self._step_counter.op.name}/sec"

    def start_loop(self) -> None:
        self._last_time = time.time()
        self._last_step = training_util.global_step(self._sess, self._step_counter)

    def run_loop(self) -> None:
        current_step = training_util.global_step(self._sess, self._step_counter)
        added_steps = current_step - self._last_step
        self._last_step = current_step
        current_time = time.time()
        elapsed_time = current_time - self._last_time
        self._last_time = current_time
        steps_per_sec = added_steps / elapsed_time if elapsed_time > 0. else float("inf")
        summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(
            tag=self._summary_tag, simple_value=steps_per_sec)])
        if self._sv.summary_writer:
            self._sv.summary_writer.add_summary(summary, current_step)
        _log.info("%s: %g", self._summary_tag, steps_per_sec)


class SVTimerCheckpointThread(coordinator.LooperThread):
    """Saves a checkpoint every ``save_model_secs``."""

    def __init__(self, sv: Supervisor, sess: Any):
        super().__init__(sv.coord, sv.save_model_secs)
        self._sv = sv
        self._sess = sess

    def run_loop(self) -> None:
        _log.info("Saving checkpoint to path %s", self._sv.save_path)
        self._sv.saver.save(self._sess, self._sv.save_path, global_step=self._sv.global_step)
        if self._sv.summary_writer and self._sv.global_step is not None:
            current_step = training_util.global_step(self._sess, self._sv.global_step)
            self._sv.summary_writer.add_session_log(
                event_pb2.SessionLog(status=event_pb2.SessionLog.CHECKPOINT,
                                     checkpoint_path=self._sv.save_path), current_step)
