"""tf.train.QueueRunner: threads that run a queue's enqueue ops, and
add_queue_runner / start_queue_runners over the QUEUE_RUNNERS collection."""

from __future__ import annotations

import logging
import threading
import weakref
from typing import Any

from graphcore.framework import errors
from graphcore.framework import ops as ops_lib
from graphcore.framework.session_stack import get_default_session

__all__ = ["QueueRunner", "add_queue_runner", "start_queue_runners"]

_log = logging.getLogger("tensorflow")  # tf.logging's logger, as TF logs


class QueueRunner:
    """Holds a queue and the ops that enqueue into it; ``create_threads`` runs each enqueue
    op in a loop until the queue closes (or the coordinator asks to stop), then closes the
    queue when the last of them is done."""

    def __init__(self, queue: Any = None, enqueue_ops: list | None = None,
                 close_op: Any = None, cancel_op: Any = None,
                 queue_closed_exception_types: tuple | None = None,
                 queue_runner_def: Any = None, import_scope: str | None = None):
        if queue_runner_def is not None:
            raise NotImplementedError("QueueRunnerDef protos are not supported; build the "
                                      "QueueRunner from its queue and enqueue_ops.")
        del import_scope
        if not queue or not enqueue_ops:
            raise ValueError("Must provide queue and enqueue_ops.")
        self._queue = queue
        self._enqueue_ops = list(enqueue_ops)
        self._close_op = close_op if close_op is not None else queue.close()
        self._cancel_op = cancel_op if cancel_op is not None else \
            queue.close(cancel_pending_enqueues=True)
        if queue_closed_exception_types is None:
            queue_closed_exception_types = (errors.OutOfRangeError,)
        elif not isinstance(queue_closed_exception_types, tuple) or not all(
                isinstance(t, type) and issubclass(t, errors.OpError)
                for t in queue_closed_exception_types):
            raise TypeError("queue_closed_exception_types, when provided, must be a tuple "
                            "of tf.error types, but saw: "
                            f"{queue_closed_exception_types}")
        self._queue_closed_exception_types = queue_closed_exception_types
        self._lock = threading.Lock()
        self._runs_per_session: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._exceptions_raised: list[BaseException] = []

    @property
    def queue(self) -> Any:
        return self._queue

    @property
    def enqueue_ops(self) -> list:
        return self._enqueue_ops

    @property
    def close_op(self) -> Any:
        return self._close_op

    @property
    def cancel_op(self) -> Any:
        return self._cancel_op

    @property
    def queue_closed_exception_types(self) -> tuple:
        return self._queue_closed_exception_types

    @property
    def exceptions_raised(self) -> list[BaseException]:
        """Exceptions the threads raised (those started without a coordinator)."""
        return self._exceptions_raised

    @property
    def name(self) -> str:
        return self._queue.name

    def _run(self, sess: Any, enqueue_op: Any, coord: Any = None) -> None:
        """One thread's loop: run ``enqueue_op`` until the queue closes or a stop."""
        decremented = False
        try:
            enqueue = sess.make_callable(enqueue_op)
            while True:
                if coord and coord.should_stop():
                    break
                try:
                    enqueue()
                except self._queue_closed_exception_types:
                    # The queue was closed: the last thread out closes it for dequeuers.
                    with self._lock:
                        self._runs_per_session[sess] -= 1
                        decremented = True
                        if self._runs_per_session[sess] == 0:
                            try:
                                sess.run(self._close_op)
                            except Exception as e:  # noqa: BLE001 - as TF: errors closing are ignored
                                _log.debug("Ignored exception: %s", e)
                        return
        except Exception as e:
            if coord:
                coord.request_stop(e)
            else:
                _log.error("Exception in QueueRunner: %s", e)
                with self._lock:
                    self._exceptions_raised.append(e)
                raise
        finally:
            if not decremented:
                with self._lock:
                    self._runs_per_session[sess] -= 1

    def _close_on_stop(self, sess: Any, cancel_op: Any, coord: Any) -> None:
        """Closes the queue, cancelling pending enqueues, once a stop is requested."""
        coord.wait_for_stop()
        try:
            sess.run(cancel_op)
        except Exception as e:  # noqa: BLE001 - as TF: the session may be closed already
            _log.debug("Ignored exception: %s", e)

    def create_threads(self, sess: Any, coord: Any = None, daemon: bool = False,
                       start: bool = False) -> list[threading.Thread]:
        """Threads running the enqueue ops in ``sess`` (plus one closing the queue when
        ``coord`` stops); none when they already run for this session."""
        with self._lock:
            if self._runs_per_session.get(sess, 0) > 0:
                return []
            self._runs_per_session[sess] = len(self._enqueue_ops)
            self._exceptions_raised = []
        threads = [threading.Thread(target=self._run, args=(sess, op, coord),
                                    name=f"QueueRunnerThread-{self.name}-{op.name}")
                   for op in self._enqueue_ops]
        if coord:
            threads.append(threading.Thread(
                target=self._close_on_stop, args=(sess, self._cancel_op, coord),
                name=f"QueueRunnerThread-{self.name}-close_on_stop"))
        for t in threads:
            if coord:
                coord.register_thread(t)
            if daemon:
                t.daemon = True
            if start:
                t.start()
        return threads


def add_queue_runner(qr: QueueRunner,
                     collection: str = ops_lib.GraphKeys.QUEUE_RUNNERS) -> None:
    """Adds ``qr`` to ``collection`` of the default graph."""
    ops_lib.add_to_collection(collection, qr)


def start_queue_runners(sess: Any = None, coord: Any = None, daemon: bool = True,
                        start: bool = True,
                        collection: str = ops_lib.GraphKeys.QUEUE_RUNNERS
                        ) -> list[threading.Thread]:
    """Starts the threads of every QueueRunner in ``collection`` of ``sess``'s graph."""
    if sess is None:
        sess = get_default_session()
        if not sess:
            raise ValueError("Cannot start queue runners: No default session is registered. "
                             "Use `with sess.as_default()` or pass an explicit session to "
                             "tf.start_queue_runners(sess=sess)")
    if not hasattr(sess, "graph") or not hasattr(sess, "run"):
        raise TypeError(f"sess must be a `tf.Session` object. Given class: {sess.__class__}")
    if sess.__class__.__name__ in ("MonitoredSession", "SingularMonitoredSession"):
        return []
    runners = ops_lib.get_collection(collection) if sess.graph is None else \
        sess.graph.get_collection(collection)
    if not runners:
        _log.warning("`tf.train.start_queue_runners()` was called when no queue runners "
                     "were defined. You can safely remove the call to this deprecated "
                     "function.")
    threads: list[threading.Thread] = []
    with sess.graph.as_default():
        for qr in runners:
            threads.extend(qr.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads
