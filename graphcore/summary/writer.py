"""``FileWriter``: writes Event protos to a TensorBoard event file in ``logdir``.

The file is ``events.out.tfevents.<%010d seconds>.<hostname><suffix>``; its first
record is ``Event(wall_time=<seconds>, file_version="brain.Event:2")``, like the one
TensorFlow's ``EventsWriter`` writes.  Events go through a bounded queue (``max_queue``)
to a background thread that writes them as TFRecords and flushes the file when
``max_queue`` events are unflushed, ``flush_secs`` after the last flush (the first
event is flushed at once), on ``flush()`` and on ``close()``.
"""

from __future__ import annotations

import collections
import os
import socket
import sys
import threading
import time
import warnings
from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.protobuf import event_pb2, graph_pb2, summary_pb2
from graphcore.summary.record_writer import RecordWriter

__all__ = ["EventFileWriter", "FileWriter", "FileWriterCache"]

FILE_VERSION = "brain.Event:2"
# The writer TF's EventsWriter names in the first event's source_metadata.
SOURCE_WRITER = "tensorflow.core.util.events_writer"


class QueueClosedError(Exception):
    """Raised by :meth:`CloseableQueue.put` once the queue is closed."""


class CloseableQueue:
    """A bounded FIFO whose ``put`` fails (instead of blocking forever) once closed."""

    def __init__(self, maxsize: int = 0):
        self._maxsize = maxsize
        self._items: collections.deque = collections.deque()
        self._cv = threading.Condition()
        self._closed = False

    def put(self, item: Any) -> None:
        with self._cv:
            while self._maxsize > 0 and len(self._items) >= self._maxsize and not self._closed:
                self._cv.wait()
            if self._closed:
                raise QueueClosedError()
            self._items.append(item)
            self._cv.notify_all()

    def get(self, timeout: float | None = None) -> Any:
        """The next item; ``_EMPTY`` when ``timeout`` passes without one."""
        with self._cv:
            if not self._items:
                self._cv.wait_for(lambda: bool(self._items), timeout)
                if not self._items:
                    return _EMPTY
            item = self._items.popleft()
            self._cv.notify_all()
            return item

    def close(self) -> None:
        with self._cv:
            self._closed = True
            self._cv.notify_all()


_EMPTY = object()


class _EventLoggerThread(threading.Thread):
    """Drains the queue into the record writer, flushing by count and by time."""

    def __init__(self, queue: CloseableQueue, writer: RecordWriter, max_queue: int,
                 flush_secs: float, flush_complete: threading.Event,
                 flush_sentinel: object, close_sentinel: object):
        super().__init__(name="graphcore-EventFileWriter", daemon=True)
        self._queue = queue
        self._writer = writer
        self._max_queue = max(int(max_queue), 1)
        self._flush_secs = flush_secs
        self._flush_complete = flush_complete
        self._flush_sentinel = flush_sentinel
        self._close_sentinel = close_sentinel
        self.failure_exc_info: tuple = ()

    def run(self) -> None:
        unflushed = 0
        next_flush = 0.0  # the first event is flushed at once
        try:
            while True:
                timeout = None
                if unflushed:
                    timeout = max(next_flush - time.time(), 0.0)
                item = self._queue.get(timeout)
                if item is _EMPTY:  # flush_secs passed with events unflushed
                    self._writer.flush()
                    unflushed = 0
                    next_flush = time.time() + self._flush_secs
                    continue
                if item is self._close_sentinel:
                    return
                if item is self._flush_sentinel:
                    self._writer.flush()
                    unflushed = 0
                    self._flush_complete.set()
                    continue
                self._writer.write(item.SerializeToString())
                unflushed += 1
                now = time.time()
                if now > next_flush or unflushed >= self._max_queue:
                    self._writer.flush()
                    unflushed = 0
                    next_flush = now + self._flush_secs
        except Exception:
            self.failure_exc_info = sys.exc_info()
            raise
        finally:
            # Never leave flush() or add_event() callers waiting on a dead thread.
            self._flush_complete.set()
            self._queue.close()


class EventFileWriter:
    """Writes Event protos to an event file from a background thread."""

    def __init__(self, logdir: Any, max_queue: int = 10, flush_secs: float = 120,
                 filename_suffix: str | None = None):
        self._logdir = os.fsdecode(os.fspath(logdir))
        os.makedirs(self._logdir, exist_ok=True)
        self._max_queue = max_queue
        self._flush_secs = flush_secs
        self._suffix = filename_suffix or ""
        self._flush_complete = threading.Event()
        self._flush_sentinel = object()
        self._close_sentinel = object()
        self._lock = threading.Lock()
        self._closed = True
        self._initialize()

    def _open_file(self) -> RecordWriter:
        seconds = int(time.time())
        name = (f"events.out.tfevents.{seconds:010d}.{socket.gethostname()}"
                f"{self._suffix}")
        writer = RecordWriter(os.path.join(self._logdir, name))
        first = event_pb2.Event(wall_time=float(seconds), file_version=FILE_VERSION)
        first.source_metadata.writer = SOURCE_WRITER
        writer.write(first.SerializeToString())
        writer.flush()
        return writer

    def _initialize(self) -> None:
        self._record_writer = self._open_file()
        self._event_queue = CloseableQueue(self._max_queue)
        self._worker = _EventLoggerThread(
            self._event_queue, self._record_writer, self._max_queue, self._flush_secs,
            self._flush_complete, self._flush_sentinel, self._close_sentinel)
        self._worker.start()
        self._closed = False

    def get_logdir(self) -> str:
        return self._logdir

    def get_filename(self) -> str:
        """The path of the event file now (or last) written."""
        return self._record_writer.path

    def reopen(self) -> None:
        """After ``close()``: starts a new event file (no-op while open)."""
        with self._lock:
            if self._closed:
                self._initialize()

    def add_event(self, event: event_pb2.Event) -> None:
        if not self._closed:
            self._try_put(event)

    def _try_put(self, item: Any) -> None:
        try:
            self._event_queue.put(item)
        except QueueClosedError:
            self._internal_close()
            self._raise_failure()

    def _raise_failure(self) -> None:
        if self._worker.failure_exc_info:
            raise self._worker.failure_exc_info[1] from None

    def flush(self) -> None:
        """Blocks until every event added so far is written to the file."""
        if not self._closed:
            self._flush_complete.clear()
            self._try_put(self._flush_sentinel)
            self._flush_complete.wait()
            if self._worker.failure_exc_info:
                self._internal_close()
                self._raise_failure()

    def close(self) -> None:
        """Flushes and closes the file; the writer can be ``reopen()``-ed."""
        if not self._closed:
            self.flush()
            self._try_put(self._close_sentinel)
            self._internal_close()

    def _internal_close(self) -> None:
        self._closed = True
        self._worker.join()
        self._record_writer.close()


class SummaryToEventTransformer:
    """Turns summaries, graphs, session logs and run metadata into Events."""

    def __init__(self, event_writer: EventFileWriter, graph: Any = None,
                 graph_def: Any = None):
        self.event_writer = event_writer
        self._session_run_tags: dict[str, bool] = {}
        # Tags whose SummaryMetadata was written once; later values drop theirs.
        self._seen_summary_tags: set[str] = set()
        if graph is not None or graph_def is not None:
            self.add_graph(graph=graph, graph_def=graph_def)

    def add_summary(self, summary: Any, global_step: int | None = None) -> None:
        """Adds a ``Summary`` (proto or serialized bytes, e.g. a summary op's value)."""
        if isinstance(summary, (bytes, bytearray)):
            summary = summary_pb2.Summary.FromString(bytes(summary))
        elif not isinstance(summary, summary_pb2.Summary):
            # E.g. a wire-compatible Summary of another protobuf package.
            summary = summary_pb2.Summary.FromString(summary.SerializeToString())
        for value in summary.value:
            if not value.HasField("metadata"):
                continue
            if value.tag in self._seen_summary_tags:
                value.ClearField("metadata")
                continue
            self._seen_summary_tags.add(value.tag)
        self._add_event(event_pb2.Event(summary=summary), global_step)

    def add_session_log(self, session_log: Any, global_step: int | None = None) -> None:
        if not isinstance(session_log, event_pb2.SessionLog):
            session_log = event_pb2.SessionLog.FromString(session_log.SerializeToString())
        self._add_event(event_pb2.Event(session_log=session_log), global_step)

    def _add_graph_def(self, graph_def: Any, global_step: int | None = None) -> None:
        event = event_pb2.Event(graph_def=graph_def.SerializeToString())
        self._add_event(event, global_step)

    def add_graph(self, graph: Any, global_step: int | None = None,
                  graph_def: Any = None) -> None:
        """Adds a ``Graph`` (written with output shapes) or a ``GraphDef``."""
        if graph is not None and graph_def is not None:
            raise ValueError("Please pass only graph, or graph_def (deprecated), but not both.")
        if isinstance(graph, ops_lib.Graph) or isinstance(graph_def, ops_lib.Graph):
            if not isinstance(graph, ops_lib.Graph):
                warnings.warn("When passing a `Graph` object, please use the `graph` named "
                              "argument instead of `graph_def`.", stacklevel=2)
                graph = graph_def
            true_graph_def = graph.as_graph_def(add_shapes=True)
        elif _is_graph_def(graph) or _is_graph_def(graph_def):
            true_graph_def = graph if graph is not None else graph_def
        else:
            raise TypeError("The passed graph must be an instance of `Graph` or the "
                            "deprecated `GraphDef`")
        self._add_graph_def(true_graph_def, global_step)

    def add_meta_graph(self, meta_graph_def: Any, global_step: int | None = None) -> None:
        """Adds a MetaGraphDef (any protobuf message of that name)."""
        desc = getattr(meta_graph_def, "DESCRIPTOR", None)
        if desc is None or desc.name != "MetaGraphDef":
            raise TypeError(f"meta_graph_def must be type MetaGraphDef, saw type: "
                            f"{type(meta_graph_def)}")
        event = event_pb2.Event(meta_graph_def=meta_graph_def.SerializeToString())
        self._add_event(event, global_step)

    def add_run_metadata(self, run_metadata: Any, tag: str,
                         global_step: int | None = None) -> None:
        """Adds ``RunMetadata`` for the session run called ``tag`` (unique per writer)."""
        if tag in self._session_run_tags:
            raise ValueError("The provided tag was already used for this event type")
        self._session_run_tags[tag] = True
        tagged = event_pb2.TaggedRunMetadata(
            tag=tag, run_metadata=run_metadata.SerializeToString())
        self._add_event(event_pb2.Event(tagged_run_metadata=tagged), global_step)

    def _add_event(self, event: event_pb2.Event, step: int | None) -> None:
        event.wall_time = time.time()
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)


def _is_graph_def(obj: Any) -> bool:
    if isinstance(obj, graph_pb2.GraphDef):
        return True
    desc = getattr(obj, "DESCRIPTOR", None)
    return desc is not None and getattr(desc, "name", None) == "GraphDef"


class FileWriter(SummaryToEventTransformer):
    """TF1's ``tf.summary.FileWriter``: an event file in ``logdir`` for TensorBoard.

    ``session`` is accepted for compatibility; events are always written from Python.
    """

    def __init__(self, logdir: Any, graph: Any = None, max_queue: int = 10,
                 flush_secs: float = 120, graph_def: Any = None,
                 filename_suffix: str | None = None, session: Any = None):
        del session
        event_writer = EventFileWriter(logdir, max_queue, flush_secs, filename_suffix)
        self._closed = False
        super().__init__(event_writer, graph, graph_def)

    def __enter__(self) -> FileWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def get_logdir(self) -> str:
        return self.event_writer.get_logdir()

    def _warn_if_event_writer_is_closed(self) -> None:
        if self._closed:
            warnings.warn("Attempting to use a closed FileWriter. The operation will be a "
                          "noop unless the FileWriter is explicitly reopened.", stacklevel=3)

    def _add_event(self, event: event_pb2.Event, step: int | None) -> None:
        self._warn_if_event_writer_is_closed()
        super()._add_event(event, step)

    def add_event(self, event: event_pb2.Event) -> None:
        """Adds an Event as is (no wall_time or step set)."""
        self._warn_if_event_writer_is_closed()
        if not isinstance(event, event_pb2.Event):
            event = event_pb2.Event.FromString(event.SerializeToString())
        self.event_writer.add_event(event)

    def flush(self) -> None:
        self._warn_if_event_writer_is_closed()
        self.event_writer.flush()

    def close(self) -> None:
        self.event_writer.close()
        self._closed = True

    def reopen(self) -> None:
        self.event_writer.reopen()
        self._closed = False


class FileWriterCache:
    """One FileWriter per logdir (for the default graph), shared process-wide."""

    _cache: dict[str, FileWriter] = {}
    _lock = threading.RLock()

    @staticmethod
    def clear() -> None:
        with FileWriterCache._lock:
            for item in FileWriterCache._cache.values():
                item.close()
            FileWriterCache._cache = {}

    @staticmethod
    def get(logdir: Any) -> FileWriter:
        with FileWriterCache._lock:
            if logdir not in FileWriterCache._cache:
                FileWriterCache._cache[logdir] = FileWriter(
                    logdir, graph=ops_lib.get_default_graph())
            return FileWriterCache._cache[logdir]
