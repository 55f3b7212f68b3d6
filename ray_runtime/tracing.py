"""The trace of one distributed step (``RunOptions(trace_level=FULL_TRACE)`` on Ray).

Besides each partition's kernels (a ``DeviceStepStats`` per device, as TF records them),
a traced Ray step records what the runtime itself does, as node stats of pseudo-devices
whose names end in ``/ray`` and ``/client``:

  ``<task>/ray``     on each task actor: the Ray calls it serves (``run``, ``run_begin``,
                     ``finish``, ``deliver``: arrival on the actor -> answer), the queueing
                     of a partition on the actor (arrival -> the partition starts on its
                     thread), the serialization (encode) and deserialization (decode) of
                     each tensor it sends or receives, and each ``deliver`` call it submits;
  ``<task>/client``  the client's own time: the whole step, and each Ray call it makes
                     (submit -> result taken), with the time spent submitting (argument
                     serialization) and waiting; ``/client`` when the client is not a task
                     of the cluster (a driver).

Every span is a NodeExecStats whose ``timeline_label`` is ``"<what> = <Kind>()"`` (kinds:
RayCall, RaySubmit, RayWait, Queue, Handoff, Serialize, Deserialize, ClientStep), with
``all_start_micros`` on the wall clock (``time.time_ns() // 1000``, TF's clock).  Task
actors on other nodes are shifted onto the client's clock (:func:`clock_offset_us`).
``graphcore.client.timeline.Timeline`` draws such a step as one process per task.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from graphcore.protobuf import step_stats_pb2

RAY_DEVICE = "ray"
CLIENT_DEVICE = "client"
DRIVER_TASK = ""  # the client of a driver session is no task: its device is "/client"


def now_ns() -> int:
    return time.time_ns()


def pseudo_device(task: str, kind: str) -> str:
    return f"{task}/{kind}"


class StepTrace:
    """Spans of one step in one process (a task actor, or the client)."""

    __slots__ = ("device", "spans", "lanes", "_lock")

    def __init__(self, device: str):
        self.device = device
        # (name, kind, start_ns, end_ns, lane)
        self.spans: list[tuple[str, str, int, int, int]] = []
        self.lanes: dict[int, str] = {}
        self._lock = threading.Lock()

    def add(self, name: str, kind: str, start_ns: int, end_ns: int | None = None,
            lane: int | None = None, lane_name: str | None = None) -> None:
        if end_ns is None:
            end_ns = time.time_ns()
        if lane is None:
            lane = threading.get_ident() & 0x7FFFFFFF
            if lane_name is None and lane not in self.lanes:
                lane_name = threading.current_thread().name
        with self._lock:
            self.spans.append((name, kind, start_ns, end_ns, lane))
            if lane_name is not None:
                self.lanes[lane] = lane_name

    def dev_stats(self) -> step_stats_pb2.DeviceStepStats:
        ds = step_stats_pb2.DeviceStepStats(device=self.device)
        with self._lock:
            spans = list(self.spans)
            lanes = dict(self.lanes)
        for name, kind, start, end, lane in sorted(spans, key=lambda s: s[2]):
            ns = ds.node_stats.add()
            ns.node_name = name
            ns.all_start_micros = start // 1000
            ns.all_start_nanos = start
            dur = max(end - start, 0)
            ns.op_end_rel_micros = ns.all_end_rel_micros = dur // 1000
            ns.op_end_rel_nanos = ns.all_end_rel_nanos = dur
            ns.thread_id = lane
            ns.timeline_label = f"{name} = {kind}()"
        for lane, lane_name in lanes.items():
            ds.thread_names[lane] = lane_name
        return ds


def clock_offset_us(client_calls: list[tuple[int, int]],
                    actor_calls: list[tuple[int, int]]) -> int:
    """Microseconds to subtract from an actor's clock to put it on the client's, from
    calls seen on both sides (NTP's estimate): the client's (submit, result) and the
    actor's (arrival, answer) of the same calls, in order, all in ns.  The median over
    the calls; 0 without any."""
    thetas = sorted(((a0 - c0) + (a1 - c1)) / 2 for (c0, c1), (a0, a1)
                    in zip(client_calls, actor_calls))
    if not thetas:
        return 0
    return int(thetas[len(thetas) // 2] // 1000)


def shift(step_stats: step_stats_pb2.StepStats, offset_us: int) -> None:
    """Moves every node stat of ``step_stats`` by ``-offset_us`` (onto another clock)."""
    if not offset_us:
        return
    for ds in step_stats.dev_stats:
        for ns in ds.node_stats:
            ns.all_start_micros -= offset_us
            if ns.all_start_nanos:
                ns.all_start_nanos -= offset_us * 1000


def calls_of(step_stats: step_stats_pb2.StepStats) -> list[tuple[str, int, int]]:
    """The (method, arrival ns, answer ns) of the Ray calls an actor's trace records."""
    out = []
    for ds in step_stats.dev_stats:
        if not ds.device.endswith("/" + RAY_DEVICE):
            continue
        for ns in ds.node_stats:
            if ns.timeline_label.endswith("= RayCall()"):
                start = ns.all_start_nanos or ns.all_start_micros * 1000
                end = start + (ns.all_end_rel_nanos or ns.all_end_rel_micros * 1000)
                out.append((ns.node_name.split(" ", 1)[0], start, end))
    return out


def merge_into(target: step_stats_pb2.StepStats, data: Any) -> None:
    if data:
        target.MergeFromString(data)


class ClientTrace:
    """The client's side of a traced Ray step: its own spans (lane 0, the thread that
    runs the step), each Ray call it makes on a lane per task (submit -> result taken),
    and the StepStats each task answered, put on the client's clock by :meth:`finish`."""

    def __init__(self, client_task: str, tasks: list[str]):
        task = client_task or DRIVER_TASK
        self.trace = StepTrace(pseudo_device(task, CLIENT_DEVICE))
        self.trace.lanes[0] = "client"
        self.lanes = {t: i + 1 for i, t in enumerate(tasks)}
        for t, lane in self.lanes.items():
            self.trace.lanes[lane] = f"Ray calls -> {t}"
        self.start_ns = now_ns()
        self.calls: dict[str, list[tuple[int, int]]] = {}  # task -> (submit, result)
        self.by_task: dict[str, step_stats_pb2.StepStats] = {}
        self.end_ns: int | None = None

    def end(self) -> None:
        """The step's end, as the client sees it (before anything the trace itself does)."""
        self.end_ns = now_ns()
        self.span("step (client)", "ClientStep", self.start_ns, self.end_ns)

    def span(self, name: str, kind: str, start_ns: int, end_ns: int | None = None) -> None:
        self.trace.add(name, kind, start_ns, end_ns, lane=0)

    def call(self, method: str, task: str, submit_ns: int, result_ns: int) -> None:
        """A Ray call ``method`` on ``task``, from its submit to its result taken."""
        self.trace.add(f"{method} -> {task}", "RayCall", submit_ns, result_ns,
                       lane=self.lanes.get(task, 0))
        self.calls.setdefault(task, []).append((submit_ns, result_ns))

    def take(self, task: str, data: bytes) -> None:
        if data:
            self.by_task.setdefault(task, step_stats_pb2.StepStats()).MergeFromString(data)

    def finish(self, offsets_us: dict[str, int | None]) -> step_stats_pb2.StepStats:
        """The whole step's StepStats. ``offsets_us``: per task, its clock's offset from
        the client's (0 on the client's node), or None to estimate it from the calls."""
        if self.end_ns is None:
            self.end()
        out = step_stats_pb2.StepStats()
        for task, stats in self.by_task.items():
            offset = offsets_us.get(task, 0)
            if offset is None:
                actor_calls = [(a, b) for m, a, b in calls_of(stats)
                               if m in ("run", "run_begin", "finish")]
                offset = clock_offset_us(self.calls.get(task, []), actor_calls)
            shift(stats, offset)
            out.dev_stats.extend(stats.dev_stats)
        out.dev_stats.add().CopyFrom(self.trace.dev_stats())
        return out
