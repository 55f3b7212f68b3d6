"""Chrome Trace Event timelines from ``StepStats``, after ``tensorflow.python.client.timeline``.

Run a step with ``RunOptions(trace_level=RunOptions.FULL_TRACE)`` and a ``RunMetadata``,
then::

    from graphcore.client import timeline
    trace = timeline.Timeline(run_metadata.step_stats).generate_chrome_trace_format()
    open("timeline.json", "w").write(trace)   # open in chrome://tracing or ui.perfetto.dev

The trace holds one process per device (named by the device string), as TF's does, or
one per task for the step stats of a distributed step on Ray (see ``group_by``), one
complete ("X") event per executed node on the thread that ran it, flow ("s"/"t") arrows for tensors
that cross devices or threads, and, with ``show_memory``, counter ("C") tracks of the bytes
of live output tensors per device and allocator.

Tensor edges come from each node's ``timeline_label`` (``"b = AddV2(a, a)"``).  A ``_Recv``
is connected to its ``_Send`` by the pair's ``tensor_name``/device attrs when ``graph``
(a ``Graph``, a ``GraphDef`` or a list of them, e.g. ``run_metadata.partition_graphs``)
holds them, and otherwise by the partitioner's naming (``src/_N`` sends, ``src/_N+1``
receives); a pair that neither finds is left unconnected.

:func:`merge_step_stats` combines StepStats recorded in several places (sessions, workers,
Ray actors) into one, merging the entries of devices with the same name.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from graphcore.protobuf import step_stats_pb2, types_pb2

__all__ = ["Timeline", "merge_step_stats"]

_LABEL = re.compile(r"^(?P<name>.*?) = (?P<op>[^()]*)\((?P<inputs>.*)\)\s*$", re.DOTALL)
_SUFFIX = re.compile(r"^(?P<base>.*)/_(?P<n>\d+)$")
_TASK = re.compile(r"^(/job:[^/]+/replica:\d+/task:\d+)(?:/(.*))?$")
# The pseudo-devices of a traced Ray step (ray_runtime.tracing): "<task>/ray" and
# "<task>/client" (or "/client", a driver's).
_TASK_TRACE_TAILS = ("ray", "client")
_SEND_OPS = frozenset({"_Send", "_HostSend"})
_RECV_OPS = frozenset({"_Recv", "_HostRecv"})


def _as_step_stats(source: Any) -> step_stats_pb2.StepStats:
    """``source`` (StepStats, RunMetadata, bytes, or a wire-compatible proto) as StepStats."""
    if source is None:
        return step_stats_pb2.StepStats()
    if isinstance(source, step_stats_pb2.StepStats):
        return source
    if isinstance(source, (bytes, bytearray, memoryview)):
        return step_stats_pb2.StepStats.FromString(bytes(source))
    if not hasattr(source, "dev_stats") and hasattr(source, "step_stats"):
        return _as_step_stats(source.step_stats)
    if hasattr(source, "SerializeToString"):
        return step_stats_pb2.StepStats.FromString(source.SerializeToString())
    raise TypeError(f"Expected a StepStats (or RunMetadata, or its bytes), got {type(source)!r}")


def merge_step_stats(*step_stats: Any) -> step_stats_pb2.StepStats:
    """One StepStats holding the node stats of all of ``step_stats``.

    Each argument may be a StepStats, a RunMetadata, their serialized bytes, a StepStats of
    another wire-compatible proto package (TensorFlow's), or a list/tuple of those.  Entries
    for the same device name are merged into one ``DeviceStepStats`` (node stats appended in
    argument order, thread names united); devices keep the order in which they first appear.
    Give each worker task-qualified device names (``/job:worker/task:3/...``) to keep their
    timelines apart.  The inputs are not modified.
    """
    merged = step_stats_pb2.StepStats()
    by_device: dict[str, step_stats_pb2.DeviceStepStats] = {}
    pending = list(step_stats)
    while pending:
        item = pending.pop(0)
        if isinstance(item, (list, tuple)):
            pending[:0] = list(item)
            continue
        for ds in _as_step_stats(item).dev_stats:
            target = by_device.get(ds.device)
            if target is None:
                target = by_device[ds.device] = merged.dev_stats.add(device=ds.device)
            target.node_stats.extend(ds.node_stats)
            for tid, tname in ds.thread_names.items():
                target.thread_names[tid] = tname
    return merged


def _graph_nodes(graph: Any) -> dict[str, Any]:
    """NodeDefs by name from a Graph, a GraphDef, or an iterable of either."""
    if graph is None:
        return {}
    if hasattr(graph, "as_graph_def"):
        graph = graph.as_graph_def()
    if hasattr(graph, "node"):
        return {n.name: n for n in graph.node}
    nodes: dict[str, Any] = {}
    for g in graph:
        nodes.update(_graph_nodes(g))
    return nodes


def _tensor_key(name: str) -> str:
    """``"a:0"`` and ``"a"`` name the same tensor; other slots keep their ``:k``."""
    node, sep, slot = name.rpartition(":")
    if sep and slot.isdigit():
        return node if int(slot) == 0 else f"{node}:{int(slot)}"
    return name


def _base_name(tensor: str) -> str:
    node, sep, slot = tensor.rpartition(":")
    return node if sep and slot.isdigit() else tensor


@dataclass
class _Output:
    slot: int
    nbytes: int
    allocator: str
    desc: str


@dataclass
class _Node:
    name: str
    op: str
    device: str
    pid: int
    tid: int
    ts: float
    dur: float
    inputs: list[str]
    outputs: list[_Output] = field(default_factory=list)
    label: str = ""

    @property
    def end(self) -> float:
        return self.ts + self.dur


def _describe(td: Any) -> str:
    try:
        dtype = types_pb2.DataType.Name(td.dtype)
    except ValueError:
        dtype = str(td.dtype)
    dtype = dtype[3:].lower() if dtype.startswith("DT_") else dtype
    shape = ",".join(str(d.size) for d in td.shape.dim)
    if td.shape.unknown_rank:
        shape = "?"
    return f"{dtype}[{shape}]"


class Timeline:
    """A Chrome Trace Event view of one (possibly merged) step's ``StepStats``.

    ``step_stats`` may be a StepStats, a RunMetadata, serialized StepStats bytes, or a
    wire-compatible StepStats of another proto package.  ``graph`` (optional: a Graph, a
    GraphDef or an iterable of GraphDefs such as ``run_metadata.partition_graphs``) supplies
    op types missing from labels and the ``tensor_name`` attrs that pair ``_Send``/``_Recv``.

    ``group_by``: ``"device"`` makes a process per device (TF's Timeline); ``"task"`` one
    per task (``/job:J/replica:R/task:T``, a device without a task is a process of its
    own), each device of the task a set of threads in it named by the device. The default
    (None) groups by task when the step stats hold the ``<task>/ray`` or ``<task>/client``
    pseudo-devices of a traced Ray step (``ray_runtime.tracing``), else by device.
    """

    def __init__(self, step_stats: Any, graph: Any = None, group_by: str | None = None):
        self._step_stats = _as_step_stats(step_stats)
        self._graph_nodes = _graph_nodes(graph)
        if group_by is None:
            group_by = "task" if any(ds.device.rsplit("/", 1)[-1] in _TASK_TRACE_TAILS
                                     for ds in self._step_stats.dev_stats) else "device"
        if group_by not in ("device", "task"):
            raise ValueError(f"group_by must be 'device' or 'task', got {group_by!r}")
        self._group_by = group_by
        self._devices: list[str] = []
        self._thread_names: dict[tuple[int, int], str] = {}
        self._nodes: list[_Node] = []
        self._collect()

    @property
    def step_stats(self) -> step_stats_pb2.StepStats:
        return self._step_stats

    # -- parsing -----------------------------------------------------------------------

    def _collect(self) -> None:
        pids: dict[str, int] = {}
        # group_by="task": (pid, device, thread id) -> the thread's tid in its process
        tids: dict[tuple[int, str, int], int] = {}
        for ds in self._step_stats.dev_stats:
            group, sub = ds.device, ""
            if self._group_by == "task":
                m = _TASK.match(ds.device)
                if m:
                    group, sub = m.group(1), m.group(2) or ""
                elif ds.device.rsplit("/", 1)[-1] in _TASK_TRACE_TAILS:
                    group, sub = ds.device.rsplit("/", 1)[-1], ds.device.rsplit("/", 1)[-1]
            pid = pids.get(group)
            if pid is None:
                pid = pids[group] = len(self._devices)
                self._devices.append(group)
            if self._group_by == "task":
                threads = {int(t) for t in ds.thread_names} | \
                    {int(ns.thread_id) for ns in ds.node_stats}
                for tid in sorted(threads):
                    if (pid, ds.device, tid) not in tids:
                        new = tids[(pid, ds.device, tid)] = \
                            sum(1 for k in tids if k[0] == pid)
                        tname = ds.thread_names.get(tid) or f"thread {tid}"
                        self._thread_names[(pid, new)] = f"{sub or ds.device}: {tname}"
            else:
                for tid, tname in ds.thread_names.items():
                    self._thread_names[(pid, int(tid))] = tname
            for ns in ds.node_stats:
                node = self._node(ns, ds.device, pid)
                if self._group_by == "task":
                    node.tid = tids[(pid, ds.device, node.tid)]
                self._nodes.append(node)

    def _node(self, ns: Any, device: str, pid: int) -> _Node:
        name, op, inputs = ns.node_name, "", None
        m = _LABEL.match(ns.timeline_label) if ns.timeline_label else None
        if m:
            name = name or m.group("name").strip()
            op = m.group("op").strip()
            inputs = [i.strip() for i in m.group("inputs").split(",")]
        node_def = self._graph_nodes.get(name)
        if not op:
            op = node_def.op if node_def is not None else (ns.timeline_label or name)
        if inputs is None:
            inputs = list(node_def.input) if node_def is not None else []
        inputs = [i for i in inputs if i and not i.startswith("^")]
        if ns.all_start_micros or not ns.all_start_nanos:
            ts: float = ns.all_start_micros
            dur: float = ns.all_end_rel_micros
        else:
            ts, dur = ns.all_start_nanos / 1000.0, ns.all_end_rel_nanos / 1000.0
        node = _Node(name=name, op=op, device=device, pid=pid, tid=int(ns.thread_id),
                     ts=ts, dur=max(dur, 0), inputs=inputs, label=ns.timeline_label)
        for out in ns.output:
            td = out.tensor_description
            ad = td.allocation_description
            node.outputs.append(_Output(slot=out.slot,
                                        nbytes=ad.requested_bytes or ad.allocated_bytes,
                                        allocator=ad.allocator_name or "unknown",
                                        desc=_describe(td)))
        return node

    def _producers(self) -> tuple[dict[str, _Node], dict[str, _Node]]:
        """Nodes by produced tensor key and by node name (first occurrence wins)."""
        by_tensor: dict[str, _Node] = {}
        by_name: dict[str, _Node] = {}
        for n in self._nodes:
            by_name.setdefault(n.name, n)
            for out in n.outputs:
                by_tensor.setdefault(n.name if out.slot == 0 else f"{n.name}:{out.slot}", n)
        return by_tensor, by_name

    def _resolve(self, tensor: str, by_tensor: dict[str, _Node],
                 by_name: dict[str, _Node]) -> tuple[str, _Node] | None:
        key = _tensor_key(tensor)
        prod = by_tensor.get(key) or by_name.get(_base_name(key))
        if prod is None:
            # A partitioner-inserted ``src/_N`` that was not traced: attribute it to ``src``.
            m = _SUFFIX.match(_base_name(key))
            if m:
                return self._resolve(m.group("base"), by_tensor, by_name)
            return None
        return key, prod

    def _send_recv_pairs(self, by_name: dict[str, _Node]) -> list[tuple[_Node, _Node, str]]:
        """(send, recv, tensor name) for each traced _Recv whose _Send is traced too."""
        sends = [n for n in self._nodes if n.op in _SEND_OPS]
        recvs = [n for n in self._nodes if n.op in _RECV_OPS]
        if not sends or not recvs:
            return []

        def rendezvous(node: _Node) -> tuple[str, str, str] | None:
            nd = self._graph_nodes.get(node.name)
            if nd is None or "tensor_name" not in nd.attr:
                return None
            return (nd.attr["send_device"].s.decode(), nd.attr["recv_device"].s.decode(),
                    nd.attr["tensor_name"].s.decode())

        send_by_key = {}
        for s in sends:
            key = rendezvous(s)
            if key is not None:
                send_by_key.setdefault(key, s)
        pairs = []
        for r in recvs:
            key = rendezvous(r)
            send = send_by_key.get(key) if key is not None else None
            label = key[2] if key is not None else ""
            if send is None and key is None:
                # Partitioner naming: the send is ``src/_N`` and its recv ``src/_N+1``.
                m = _SUFFIX.match(r.name)
                if m and int(m.group("n")) > 0:
                    cand = by_name.get(f"{m.group('base')}/_{int(m.group('n')) - 1}")
                    if cand is not None and cand.op in _SEND_OPS and cand.device != r.device:
                        send = cand
            if send is not None:
                name = send.inputs[0] if send.inputs else (label or send.name)
                pairs.append((send, r, name))
        return pairs

    # -- events ------------------------------------------------------------------------

    def generate_chrome_trace(self, show_dataflow: bool = True,
                              show_memory: bool = False) -> dict[str, Any]:
        """The trace as a ``{"traceEvents": [...]}`` dict (see the module docstring)."""
        events: list[dict[str, Any]] = []
        for pid, device in enumerate(self._devices):
            events.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0,
                           "args": {"name": device}})
            events.append({"ph": "M", "name": "process_sort_index", "pid": pid, "tid": 0,
                           "args": {"sort_index": pid}})
        threads = sorted({(n.pid, n.tid) for n in self._nodes} | set(self._thread_names))
        for pid, tid in threads:
            events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid,
                           "args": {"name": self._thread_names.get((pid, tid),
                                                                   f"thread {tid}")}})
        for n in self._nodes:
            args: dict[str, Any] = {"name": n.name, "op": n.op}
            for i, inp in enumerate(n.inputs):
                args[f"input{i}"] = inp
            for out in n.outputs:
                args[f"output{out.slot}"] = f"{out.desc} {out.nbytes}B"
            events.append({"ph": "X", "cat": "Op", "name": n.op, "pid": n.pid, "tid": n.tid,
                           "ts": n.ts, "dur": n.dur, "args": args})

        by_tensor, by_name = self._producers()
        # tensor key -> (producer, last time it is read)
        reads: dict[str, tuple[_Node, float]] = {}
        flows: list[tuple[str, _Node, _Node]] = []
        for n in self._nodes:
            for inp in n.inputs:
                found = self._resolve(inp, by_tensor, by_name)
                if found is None:
                    continue
                key, prod = found
                last = reads.get(key)
                reads[key] = (prod, max(n.end, last[1]) if last else n.end)
                if prod is not n and (prod.pid, prod.tid) != (n.pid, n.tid):
                    flows.append((key, prod, n))
        for send, recv, name in self._send_recv_pairs(by_name):
            if (send.pid, send.tid) != (recv.pid, recv.tid):
                flows.append((name, send, recv))

        if show_dataflow:
            for flow_id, (name, src, dst) in enumerate(flows):
                # Each end lies inside its op's slice so the viewer binds the arrow to it.
                events.append({"ph": "s", "cat": "DataFlow", "name": name, "id": flow_id,
                               "pid": src.pid, "tid": src.tid, "ts": src.ts})
                events.append({"ph": "t", "cat": "DataFlow", "name": name, "id": flow_id,
                               "pid": dst.pid, "tid": dst.tid,
                               "ts": min(max(src.ts, dst.ts), dst.end)})
        if show_memory:
            events.extend(self._memory_counters(reads))
        return {"traceEvents": events}

    def _memory_counters(self, reads: dict[str, tuple[_Node, float]]) -> list[dict[str, Any]]:
        """Counter events: bytes of live outputs per device and allocator over time.

        An output is live from its producer's start to the end of its last reader, or to
        the end of its device's step when nothing traced reads it.
        """
        step_end: dict[int, float] = {}
        for n in self._nodes:
            step_end[n.pid] = max(step_end.get(n.pid, n.end), n.end)
        changes: dict[int, dict[float, dict[str, int]]] = {}
        allocators: dict[int, set[str]] = {}
        for n in self._nodes:
            for out in n.outputs:
                if out.nbytes <= 0:
                    continue
                key = n.name if out.slot == 0 else f"{n.name}:{out.slot}"
                read = reads.get(key)
                free = read[1] if read is not None and read[0] is n else step_end[n.pid]
                per_time = changes.setdefault(n.pid, {})
                for t, delta in ((n.ts, out.nbytes), (max(free, n.ts), -out.nbytes)):
                    bucket = per_time.setdefault(t, {})
                    bucket[out.allocator] = bucket.get(out.allocator, 0) + delta
                allocators.setdefault(n.pid, set()).add(out.allocator)
        events = []
        for pid in sorted(changes):
            live = dict.fromkeys(sorted(allocators[pid]), 0)
            for t in sorted(changes[pid]):
                for alloc, delta in changes[pid][t].items():
                    live[alloc] += delta
                events.append({"ph": "C", "name": "Allocated bytes", "pid": pid, "tid": 0,
                               "ts": t, "args": dict(live)})
        return events

    def generate_chrome_trace_format(self, show_dataflow: bool = True,
                                     show_memory: bool = False, pretty: bool = False) -> str:
        """The trace as Chrome Trace Event JSON (chrome://tracing, ui.perfetto.dev)."""
        trace = self.generate_chrome_trace(show_dataflow=show_dataflow, show_memory=show_memory)
        if pretty:
            return json.dumps(trace, indent=2, sort_keys=True)
        return json.dumps(trace, separators=(",", ":"))
