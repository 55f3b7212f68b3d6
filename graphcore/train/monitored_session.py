"""``MonitoredTrainingSession``: a training session that initializes or restores,
saves checkpoints, runs hooks, and recovers from lost tasks.

When a step fails with UnavailableError or AbortedError (a dead ps or worker actor
on Ray, for instance), the session is closed, a new one is created (which creates
new task actors), the variables are restored from the latest checkpoint, and the
step is retried, as TF's ``_RecoverableSession`` does.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from graphcore.client.session import Session
from graphcore.framework import errors
from graphcore.framework import ops as ops_lib
from graphcore.ops import control_flow_ops, variables
from graphcore.protobuf import config_pb2
from graphcore.train import basic_session_run_hooks as hooks_lib
from graphcore.train.session_run_hook import SessionRunArgs, SessionRunContext, SessionRunValues

__all__ = ["ChiefSessionCreator", "MonitoredTrainingSession", "MonitoredSession", "Scaffold",
           "SessionCreator", "SingularMonitoredSession", "WorkerSessionCreator"]

_log = logging.getLogger("tensorflow")  # tf.logging's logger, as TF logs

USE_DEFAULT = object()
_RECOVERABLE = (errors.UnavailableError, errors.AbortedError)


class Scaffold:
    """The ops a monitored session needs, built before the graph is finalized:
    init_op, ready_op (uninitialized-variable report), local_init_op, saver."""

    def __init__(self, init_op: Any = None, init_feed_dict: dict | None = None,
                 init_fn: Any = None, ready_op: Any = None,
                 ready_for_local_init_op: Any = None, local_init_op: Any = None,
                 summary_op: Any = None, saver: Any = None, copy_from_scaffold: Any = None):
        del ready_for_local_init_op, copy_from_scaffold
        self.init_op = init_op
        self.init_feed_dict = init_feed_dict
        self.init_fn = init_fn
        self.ready_op = ready_op
        self.local_init_op = local_init_op
        self.summary_op = summary_op
        self.saver = saver
        self._finalized = False

    def finalize(self) -> Scaffold:
        if self._finalized:
            return self
        if self.init_op is None:
            self.init_op = variables.global_variables_initializer()
        if self.ready_op is None:
            self.ready_op = variables.report_uninitialized_variables()
        if self.local_init_op is None:
            self.local_init_op = control_flow_ops.group(
                variables.local_variables_initializer())
        if self.summary_op is None:
            summary_ops = ops_lib.get_collection(ops_lib.GraphKeys.SUMMARY_OP)
            if summary_ops:
                self.summary_op = summary_ops[0]
            else:
                from graphcore.summary import summary_ops as summary_lib

                self.summary_op = summary_lib.merge_all()
                if self.summary_op is not None:
                    ops_lib.add_to_collection(ops_lib.GraphKeys.SUMMARY_OP, self.summary_op)
        if self.saver is None:
            savers = ops_lib.get_collection(ops_lib.GraphKeys.SAVERS)
            if savers:
                self.saver = savers[0]
            else:
                from graphcore.train.saver import Saver

                self.saver = Saver(allow_empty=True, sharded=False)
                ops_lib.add_to_collection(ops_lib.GraphKeys.SAVERS, self.saver)
        ops_lib.get_default_graph().finalize()
        _log.info("Graph was finalized.")
        self._finalized = True
        return self


class SessionCreator:
    """A factory of sessions for MonitoredSession (which calls ``create_session`` again
    to recover from a lost task)."""

    def create_session(self) -> Any:
        raise NotImplementedError("create_session is not implemented for "
                                  f"{type(self).__name__}.")


class ChiefSessionCreator(SessionCreator):
    """TF's session creator for the chief: initializes the variables, or restores them
    from the latest checkpoint in ``checkpoint_dir``
    (``checkpoint_filename_with_path`` names one checkpoint instead)."""

    is_chief = True

    def __init__(self, scaffold: Scaffold | None = None, master: str = "",
                 config: Any = None, checkpoint_dir: str | None = None,
                 checkpoint_filename_with_path: str | None = None):
        self.scaffold = scaffold
        self.master = master
        self.config = config
        self.checkpoint_dir = checkpoint_dir
        self.checkpoint_filename_with_path = checkpoint_filename_with_path
        self.max_wait_secs = 7200.0

    def create_session(self) -> Session:
        """An initialized or restored session (through a SessionManager)."""
        from graphcore.train.session_manager import SessionManager

        self.scaffold = (self.scaffold or Scaffold()).finalize()
        scaffold = self.scaffold
        init_fn = None
        if scaffold.init_fn is not None:
            def init_fn(sess):
                return scaffold.init_fn(scaffold, sess)
        return SessionManager(local_init_op=scaffold.local_init_op,
                              ready_op=scaffold.ready_op,
                              graph=ops_lib.get_default_graph()).prepare_session(
            self.master, saver=scaffold.saver, checkpoint_dir=self.checkpoint_dir,
            checkpoint_filename_with_path=self.checkpoint_filename_with_path,
            config=self.config, init_op=scaffold.init_op,
            init_feed_dict=scaffold.init_feed_dict, init_fn=init_fn)


class WorkerSessionCreator(SessionCreator):
    """TF's session creator for the other workers: waits (up to ``max_wait_secs``)
    until the chief has initialized the variables."""

    is_chief = False

    def __init__(self, scaffold: Scaffold | None = None, master: str = "",
                 config: Any = None, max_wait_secs: float = 30 * 60):
        self.scaffold = scaffold
        self.master = master
        self.config = config
        self.checkpoint_dir = None
        self.checkpoint_filename_with_path = None
        self.max_wait_secs = max_wait_secs

    def create_session(self) -> Session:
        """A session once the chief has initialized the model."""
        from graphcore.train.session_manager import SessionManager

        self.scaffold = (self.scaffold or Scaffold()).finalize()
        return SessionManager(local_init_op=self.scaffold.local_init_op,
                              ready_op=self.scaffold.ready_op,
                              graph=ops_lib.get_default_graph()).wait_for_session(
            self.master, config=self.config, max_wait_secs=self.max_wait_secs)


class MonitoredSession:
    """Runs steps with hooks; creates, initializes or restores, and recreates its
    session after recoverable errors.

    TF's form is ``MonitoredSession(session_creator=ChiefSessionCreator(...),
    hooks=[...])`` (no creator: a chief session on the local target); the keyword
    arguments after ``stop_grace_period_secs`` are graphcore's direct form, which
    ``MonitoredTrainingSession`` uses."""

    def __init__(self, session_creator: Any = None, hooks: list | None = None,
                 stop_grace_period_secs: float = 120, *, master: str = "",
                 is_chief: bool = True, checkpoint_dir: str | None = None,
                 scaffold: Scaffold | None = None, config: Any = None,
                 max_wait_secs: float = 7200, max_recoveries: int = 10,
                 checkpoint_filename_with_path: str | None = None):
        del stop_grace_period_secs  # no queue-runner threads to wait for
        # A user's SessionCreator makes the sessions itself; graphcore's own creators are
        # read for their settings (this class creates, restores and recovers).
        self._custom_creator = None
        if session_creator is not None and not isinstance(
                session_creator, (ChiefSessionCreator, WorkerSessionCreator)):
            self._custom_creator = session_creator
        elif session_creator is not None:
            master, config = session_creator.master, session_creator.config
            is_chief, scaffold = session_creator.is_chief, session_creator.scaffold
            checkpoint_dir = session_creator.checkpoint_dir
            checkpoint_filename_with_path = session_creator.checkpoint_filename_with_path
            max_wait_secs = session_creator.max_wait_secs
        self._checkpoint_filename_with_path = checkpoint_filename_with_path
        self._graph = ops_lib.get_default_graph()
        self._master = master
        self._is_chief = is_chief
        self._checkpoint_dir = checkpoint_dir
        self._config = config
        self._max_wait_secs = max_wait_secs
        self._max_recoveries = max_recoveries
        self._hooks = list(hooks or [])
        self._stop_requested = False
        self._closed = False
        self.recoveries = 0
        self._recoveries_in_a_row = 0
        with self._graph.as_default():
            for hook in self._hooks:
                hook.begin()
            if self._custom_creator is None:
                self._scaffold = (scaffold or Scaffold()).finalize()
        try:
            self._sess = self._create_session()
        except BaseException:
            self._graph._unsafe_unfinalize()
            raise

    # -- session lifecycle ------------------------------------------------------------
    def _create_session(self) -> Session:
        if self._custom_creator is not None:
            sess = self._custom_creator.create_session()
            for hook in self._hooks:
                hook.after_create_session(sess, None)
            return sess
        sess = Session(self._master, graph=self._graph, config=self._config)
        scaffold = self._scaffold
        if self._is_chief:
            restored = False
            path = self._checkpoint_filename_with_path
            if path is None and self._checkpoint_dir:
                from graphcore.train.saver import latest_checkpoint

                path = latest_checkpoint(self._checkpoint_dir)
            if path:
                scaffold.saver.restore(sess, path)
                restored = True
            if not restored:
                sess.run(scaffold.init_op, feed_dict=scaffold.init_feed_dict)
                if scaffold.init_fn is not None:
                    scaffold.init_fn(scaffold, sess)
        else:
            # A non-chief waits (bounded) for the chief to initialize or restore the
            # model, and says what it waits for.
            deadline = time.time() + self._max_wait_secs
            next_log = time.time()
            while len(not_ready := sess.run(scaffold.ready_op)) > 0:
                names = ", ".join(n.decode() if isinstance(n, bytes) else str(n)
                                  for n in not_ready[:10])
                names += ", ..." if len(not_ready) > 10 else ""
                what = f"the chief to initialize the variables {names}"
                if time.time() > deadline:
                    raise errors.DeadlineExceededError(
                        None, None, f"Session was not ready after waiting "
                                    f"{self._max_wait_secs} secs: waited for {what}")
                if time.time() >= next_log:
                    _log.info("Waiting for %s (up to %s secs)", what, self._max_wait_secs)
                    next_log = time.time() + 10.0
                time.sleep(0.5)
        _log.info("Running local_init_op.")
        sess.run(scaffold.local_init_op)
        _log.info("Done running local_init_op.")
        for hook in self._hooks:
            hook.after_create_session(sess, None)
        return sess

    def _recover(self, error: BaseException) -> None:
        """Closes the session and creates a new one, restored from the latest checkpoint;
        a creation that fails with a recoverable error (a task lost meanwhile) is tried
        again, as TF's _RecoverableSession does.  Gives up (raising) after
        ``max_recoveries`` recoveries in a row without a successful step."""
        while True:
            self.recoveries += 1
            self._recoveries_in_a_row += 1
            if self._recoveries_in_a_row > self._max_recoveries:
                raise error
            _log.warning("%s: %s. Closing the session and creating a new one from the "
                         "latest checkpoint.", type(error).__name__, error)
            try:
                self._sess.close()
            except Exception:  # a session on lost tasks may fail to close; it is dropped
                pass
            try:
                self._sess = self._create_session()
                return
            except _RECOVERABLE as e:
                error = e

    # -- running ----------------------------------------------------------------------
    @property
    def graph(self) -> ops_lib.Graph:
        return self._graph

    def should_stop(self) -> bool:
        return self._stop_requested or self._closed

    def run(self, fetches: Any, feed_dict: Any = None, options: Any = None,
            run_metadata: Any = None) -> Any:
        while True:
            try:
                result = self._run_with_hooks(fetches, feed_dict, options, run_metadata)
            except _RECOVERABLE as e:
                self._recover(e)
                continue
            self._recoveries_in_a_row = 0
            return result

    def _run_with_hooks(self, fetches: Any, feed_dict: Any, options: Any,
                        run_metadata: Any) -> Any:
        context = SessionRunContext(SessionRunArgs(fetches, feed_dict, options), self._sess)
        extra = []
        feeds = dict(feed_dict or {})
        hook_feeds: dict = {}
        hook_options = []
        for hook in self._hooks:
            args = hook.before_run(context)
            extra.append(args)
            if args is None:
                continue
            if args.feed_dict:
                for k, v in args.feed_dict.items():
                    if k in hook_feeds:
                        raise RuntimeError(f"Same tensor is fed by two hooks: {k}")
                    hook_feeds[k] = v
            if args.options is not None:
                hook_options.append(args.options)
        for k, v in hook_feeds.items():
            if k in feeds:
                raise RuntimeError(f"Same tensor is fed by a SessionRunHook and user: {k}")
            feeds[k] = v
        options = _merged_options(options, hook_options)
        run_metadata = run_metadata if run_metadata is not None else config_pb2.RunMetadata()
        hook_fetches = [a.fetches if a is not None else None for a in extra]
        results = self._sess.run({"caller": fetches, "hooks": [
            f if f is not None else [] for f in hook_fetches]}, feed_dict=feeds or None,
            options=options, run_metadata=run_metadata)
        for hook, args, value in zip(self._hooks, extra, results["hooks"]):
            # As TF: a hook that asked for nothing gets results=None.
            value = None if args is None else value
            hook.after_run(context, SessionRunValues(results=value, options=options,
                                                     run_metadata=run_metadata))
        if context.stop_requested:
            self._stop_requested = True
        return results["caller"]

    def run_step_fn(self, step_fn: Any) -> Any:
        return step_fn(_StepContext(self))

    def close(self) -> None:
        if self._closed:
            return
        try:
            for hook in self._hooks:
                hook.end(self._sess)
        finally:
            self._sess.close()
            self._closed = True
            self._graph._unsafe_unfinalize()

    def __enter__(self) -> MonitoredSession:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> bool:
        self.close()
        return exc_type is errors.OutOfRangeError


def _merged_options(options: Any, hook_options: list) -> Any:
    """The caller's RunOptions with the hooks' merged in, as TF's MonitoredSession: the
    highest trace level and timeout, partition graphs if any asks (None if nobody
    gave options)."""
    if not hook_options:
        return options
    merged = config_pb2.RunOptions()
    if options is not None:
        merged.CopyFrom(options)
    for extra in hook_options:
        merged.trace_level = max(merged.trace_level, extra.trace_level)
        merged.timeout_in_ms = max(merged.timeout_in_ms, extra.timeout_in_ms)
        merged.output_partition_graphs |= extra.output_partition_graphs
    return merged


class _StepContext:
    def __init__(self, monitored: MonitoredSession):
        self._monitored = monitored
        self.session = monitored._sess

    def run_with_hooks(self, *args: Any, **kwargs: Any) -> Any:
        return self._monitored.run(*args, **kwargs)

    def request_stop(self) -> None:
        self._monitored._stop_requested = True


class SingularMonitoredSession(MonitoredSession):
    """TF's single-process MonitoredSession: a chief session with TF's signature, and
    ``raw_session()`` for the underlying Session."""

    def __init__(self, hooks: list | None = None, scaffold: Scaffold | None = None,
                 master: str = "", config: Any = None, checkpoint_dir: str | None = None,
                 stop_grace_period_secs: float = 120,
                 checkpoint_filename_with_path: str | None = None):
        super().__init__(ChiefSessionCreator(scaffold, master, config, checkpoint_dir,
                                             checkpoint_filename_with_path),
                         hooks, stop_grace_period_secs)

    def raw_session(self) -> Session:
        return self._sess


def MonitoredTrainingSession(master: str = "", is_chief: bool = True,  # noqa: N802
                             checkpoint_dir: str | None = None, scaffold: Scaffold | None = None,
                             hooks: list | None = None, chief_only_hooks: list | None = None,
                             save_checkpoint_secs: Any = USE_DEFAULT,
                             save_summaries_steps: Any = USE_DEFAULT,
                             save_summaries_secs: Any = USE_DEFAULT, config: Any = None,
                             stop_grace_period_secs: int = 120, log_step_count_steps: int = 100,
                             max_wait_secs: float = 7200, save_checkpoint_steps: Any = USE_DEFAULT,
                             summary_dir: str | None = None,
                             save_graph_def: bool = True) -> MonitoredSession:
    """TF1's training session: the chief initializes (or restores from
    ``checkpoint_dir``) and saves checkpoints every ``save_checkpoint_steps`` steps or
    ``save_checkpoint_secs`` seconds (default 600 s); other workers wait until the
    variables are initialized.  Recoverable errors recreate the session and restore."""
    del stop_grace_period_secs
    if not is_chief:
        return MonitoredSession(hooks=list(hooks or []), master=master, is_chief=False,
                                checkpoint_dir=checkpoint_dir, scaffold=scaffold,
                                config=config, max_wait_secs=max_wait_secs)
    if save_summaries_steps is USE_DEFAULT and save_summaries_secs is USE_DEFAULT:
        save_summaries_steps, save_summaries_secs = 100, None
    elif save_summaries_secs is USE_DEFAULT:
        save_summaries_secs = None
    elif save_summaries_steps is USE_DEFAULT:
        save_summaries_steps = None
    if save_checkpoint_steps is USE_DEFAULT and save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_steps, save_checkpoint_secs = None, 600
    elif save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_secs = None
    elif save_checkpoint_steps is USE_DEFAULT:
        save_checkpoint_steps = None
    scaffold = scaffold or Scaffold()
    all_hooks = list(chief_only_hooks or [])
    summary_dir = summary_dir or checkpoint_dir
    if summary_dir:
        if log_step_count_steps and log_step_count_steps > 0:
            all_hooks.append(hooks_lib.StepCounterHook(output_dir=summary_dir,
                                                       every_n_steps=log_step_count_steps))
        if (save_summaries_steps and save_summaries_steps > 0) or \
                (save_summaries_secs and save_summaries_secs > 0):
            all_hooks.append(hooks_lib.SummarySaverHook(
                scaffold=scaffold, save_steps=save_summaries_steps,
                save_secs=save_summaries_secs, output_dir=summary_dir))
    if checkpoint_dir:
        if (save_checkpoint_secs and save_checkpoint_secs > 0) or \
                (save_checkpoint_steps and save_checkpoint_steps > 0):
            all_hooks.append(hooks_lib.CheckpointSaverHook(
                checkpoint_dir, save_steps=save_checkpoint_steps,
                save_secs=save_checkpoint_secs, scaffold=scaffold,
                save_graph_def=save_graph_def))
    all_hooks += list(hooks or [])
    return MonitoredSession(hooks=all_hooks, master=master, is_chief=True,
                            checkpoint_dir=checkpoint_dir, scaffold=scaffold, config=config,
                            max_wait_secs=max_wait_secs)
