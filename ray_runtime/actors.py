"""The task actor: one Ray actor per cluster task (``/job:<job>/replica:0/task:<i>``).

It owns the task's resource store (so a ps actor holds the variables), compiles the
partitions the master registers on it, and runs one partition per step call.  Steps
run concurrently (threaded actor), and partitions hand tensors to each other through
per-step mailboxes: a _Send on one actor calls ``deliver`` on the receiving actor
directly, with the tensor as an Arrow message in the object store; the receiving
_Recv waits on its mailbox slot.  The driver sees only fetched values.  A partition that
trades tensors with the client's own partition (a launched main) is started with
``run_begin``, which carries what the client has sent it so far and is answered with
what it sends the client; ``resume`` carries the client's next tensors and is answered
the same way; ``finish`` carries what the client sends last and waits for the end.  A
worker step that sends a ps ids and gets rows back, then sends gradients and waits for
the update's control edge, makes two calls per ps (run_begin, resume) where deliver
calls each way made four.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import ray

from graphcore.framework import errors
from graphcore.protobuf import graph_pb2, step_stats_pb2
from graphcore.runtime.devices import Device
from graphcore.runtime.executor import PartitionExecutor, Step
from graphcore.runtime.graph_view import NodeInfo
from graphcore.runtime.rendezvous import Rendezvous
from graphcore.runtime.resources import ResourceStore
from ray_runtime import tracing, transport
from ray_runtime.exchange import Exchange
from ray_runtime.job import JobCoordination, ScriptHost

NAMESPACE = "graphcore"
MAX_CONCURRENCY = 32
# Ray's errors for an object it can neither store nor spill.
STORE_FULL_ERRORS = (ray.exceptions.ObjectStoreFullError, ray.exceptions.OutOfDiskError)


class _RemoteRendezvous(Rendezvous):
    """A step's mailbox on one actor: sends to partitions on other actors go to
    their actor's ``deliver``; everything else stays local.

    Remote sends are batched: they collect in a per-peer outbox that is flushed, one
    ``deliver`` call per peer, when this partition is about to wait on a _Recv and
    when it finishes.  A partition that sends its six variables to a worker makes one
    actor call, not six, and nothing waits on a tensor still sitting in an outbox
    (its sender flushes before it could block, or finish)."""

    __slots__ = ("_routes", "_names", "_actor", "_step_key", "_outbox", "_outbox_lock",
                 "_reply", "_exchange", "_trace", "_peers")

    def __init__(self, n: int, routes: dict[int, Any], actor: TaskActorImpl, step_key: str,
                 names: dict[int, str] | None = None):
        super().__init__(n)
        self._routes = routes
        self._names = names or {}  # slot -> the tensor it carries (for errors)
        self._actor = actor
        self._step_key = step_key
        self._outbox: dict[Any, list[tuple[int, Any]]] = {}
        self._outbox_lock = threading.Lock()
        self._reply: _Reply | None = None  # a step started by run_begin
        self._exchange: Exchange | None = None  # the client's own partition
        self._trace: tracing.StepTrace | None = None  # a traced step's spans
        self._peers: dict[int, str] = {}  # slot -> the task it goes to (for traces)

    def send(self, slot: int, value: Any) -> None:
        peer = self._routes.get(slot)
        if peer is None:
            super().send(slot, value)
            return
        trace = self._trace
        t0 = tracing.now_ns() if trace is not None else 0
        wire = transport.encode(value)
        self._actor.traffic.sent(wire.nbytes)
        if trace is not None:
            trace.add(f"encode {self._names.get(slot, slot)} -> {self._peers.get(slot, '?')} "
                      f"({wire.nbytes} B)", "Serialize", t0)
        with self._outbox_lock:
            box = self._outbox.get(peer)
            if box is None:
                self._outbox[peer] = [(slot, wire)]
            else:
                box.append((slot, wire))

    def flush(self, final: bool = False) -> None:
        """Sends what the outbox holds: one ``deliver`` call per peer actor, but tensors
        for the caller of run_begin go in its answer, the client's first tensors for a
        partition it starts with run_begin go in that call, and its last ones in the
        ``finish`` call."""
        exchange = self._exchange
        if exchange is not None and exchange.unstarted:
            with self._outbox_lock:
                outbox, self._outbox = self._outbox, {}
            exchange.start(outbox)  # takes the started partitions' tensors
            with self._outbox_lock:
                for peer, items in outbox.items():
                    self._outbox.setdefault(peer, []).extend(items)
        if not self._outbox:
            return
        with self._outbox_lock:
            outbox, self._outbox = self._outbox, {}
        for peer, items in outbox.items():
            reply = self._reply
            if reply is not None and peer is reply.caller and reply.add(items):
                continue
            if self._exchange is not None and (self._exchange.stash(peer, items) if final
                                               else self._exchange.resume(peer, items)):
                continue
            trace = self._trace
            t0 = tracing.now_ns() if trace is not None else 0
            try:
                if trace is None:
                    peer.deliver.remote(self._step_key, items)
                else:
                    peer.deliver.remote(self._step_key, items, True)
            except STORE_FULL_ERRORS as e:
                raise self._store_full(items, e) from None
            if trace is not None:
                slots = ",".join(str(s) for s, _ in items)
                trace.add(f"deliver -> {self._peers.get(items[0][0], '?')} (slots {slots})",
                          "RaySubmit", t0)

    def _store_full(self, items: list[tuple[int, Any]], e: BaseException) -> errors.OpError:
        """Ray could not put the tensors of one ``deliver`` call into its object store
        (nor spill them): a ResourceExhaustedError naming them."""
        names = ", ".join(self._names.get(slot, f"slot {slot}") for slot, _ in items)
        nbytes = sum(getattr(wire, "nbytes", 0) for _, wire in items)
        first = str(e).strip().splitlines()[0] if str(e).strip() else ""
        return errors.ResourceExhaustedError(
            None, None, f"OOM when sending {names} ({nbytes} bytes) from "
                        f"{self._actor.task_name}: Ray's object store cannot hold it "
                        f"({type(e).__name__}: {first})")

    def recv(self, slot: int) -> Any:
        if not self.ready(slot):
            self.flush()
            reply = self._reply
            if reply is not None and slot in reply.caller_slots:
                reply.release()  # run_begin answers: this partition now waits on its caller
            if self._exchange is not None:
                self._exchange.pull(slot, self)
        wire = super().recv(slot)
        trace = self._trace
        if trace is None or not isinstance(wire, transport.ArrowTensor):
            return transport.decode(wire)
        t0 = tracing.now_ns()
        value = transport.decode(wire)
        trace.add(f"decode {self._names.get(slot, slot)} ({wire.nbytes} B)", "Deserialize",
                  t0)
        return value


class Traffic:
    """Bytes a task actor moved over Ray since it started: tensors from other tasks and
    the client (``bytes_in``: delivered, fed, or carried by ``finish``), tensors to them
    (``bytes_out``: sent, or fetched), and the partition runs (``steps``) it served."""

    __slots__ = ("bytes_in", "bytes_out", "steps", "_lock")

    def __init__(self) -> None:
        self.bytes_in = 0
        self.bytes_out = 0
        self.steps = 0
        self._lock = threading.Lock()

    def received(self, nbytes: int) -> None:
        with self._lock:
            self.bytes_in += nbytes

    def sent(self, nbytes: int) -> None:
        with self._lock:
            self.bytes_out += nbytes

    def step(self) -> None:
        with self._lock:
            self.steps += 1


_wire_bytes = transport.wire_bytes


class _Registered:
    __slots__ = ("executor", "routes", "n_keys", "caller", "caller_slots", "names",
                 "route_names", "suspending")

    def __init__(self, executor: PartitionExecutor, routes: dict[int, Any], n_keys: int,
                 caller_slots: frozenset[int], reply_slots: frozenset[int],
                 names: dict[int, str] | None = None,
                 route_names: dict[int, str] | None = None):
        self.executor = executor
        self.routes = routes
        self.route_names = route_names or {}
        self.n_keys = n_keys
        self.names = names or {}  # slot -> tensor name
        # The task that runs its own partition beside the client (a launched main), when
        # this partition trades tensors with it: ``caller`` is that task's actor (the
        # route of the ``reply_slots`` this partition sends it), ``caller_slots`` what it
        # receives from it.
        self.caller_slots = caller_slots
        self.caller = routes[next(iter(reply_slots))] if reply_slots else None
        # The step as a generator suspending where it waits on the caller's tensors
        # (run on the calling thread: see TaskActorImpl._drive), or None: a pool thread.
        self.suspending = executor.suspending(caller_slots) \
            if caller_slots or reply_slots else None


class _Reply:
    """The answer of ``run_begin``: what the partition sends its caller until it first
    waits on the caller (or finishes). Later sends go by ``deliver`` as usual."""

    __slots__ = ("caller", "caller_slots", "items", "ready", "_open", "_lock", "released_ns")

    def __init__(self, caller: Any, caller_slots: frozenset[int]):
        self.caller = caller
        self.caller_slots = caller_slots
        self.items: list[tuple[int, Any]] = []
        self.ready = threading.Event()
        self._open = True
        self._lock = threading.Lock()
        self.released_ns = 0

    def add(self, items: list[tuple[int, Any]]) -> bool:
        """Takes tensors for the answer (False once it has gone)."""
        with self._lock:
            if not self._open:
                return False
            self.items.extend(items)
        self.release()
        return True

    def release(self) -> None:
        if not self.released_ns:
            self.released_ns = tracing.now_ns()
        self.ready.set()

    def take(self) -> list[tuple[int, Any]]:
        with self._lock:
            self._open = False
            items, self.items = self.items, []
        return items


class _Run:
    """A partition started by ``run_begin``, finished (or failed) on a pool thread."""

    __slots__ = ("box", "done", "result", "error")

    def __init__(self, box: _RemoteRendezvous) -> None:
        self.box = box  # its step's mailbox: box._reply is the answer being made
        self.done = threading.Event()
        self.result: tuple[dict[int, Any], Any] | None = None
        self.error: BaseException | None = None

    def outcome(self) -> tuple[dict[int, Any], Any]:
        if self.error is not None:
            raise self.error
        assert self.result is not None
        return self.result


class _Suspended:
    """A partition started by ``run_begin`` whose step is a generator (see
    :meth:`PartitionExecutor.suspending`): each call on it (run_begin, resume,
    finish) runs it on the call's own thread until it waits on the caller's tensors
    or ends, so no pool thread and no handoff between threads."""

    __slots__ = ("box", "gen", "step", "registered")

    def __init__(self, box: _RemoteRendezvous, gen: Any, step: Step,
                 registered: _Registered) -> None:
        self.box = box
        self.gen = gen
        self.step = step
        self.registered = registered


# The task actors living in this process (inside a Ray actor: the one it is), by actor
# name.  A session created in this process (a launched main) runs this task's
# partitions in-process instead of calling its own actor through Ray.
_local_impls: dict[str, TaskActorImpl] = {}


def local_impl(cluster_name: str, job: str, task: int) -> TaskActorImpl | None:
    """The task actor of (job, task) when it lives in this very process, else None."""
    return _local_impls.get(actor_name(cluster_name, job, task))


# The calls a step makes (hundreds a second per task) record no Ray task events: those
# feed the dashboard's task list and cost CPU per call in the caller, the actor and the
# GCS (about 5% of a 1 ps + 2 workers step on 2 cores); a step's own record is its trace.
_step_call = ray.method(enable_task_events=False)


class TaskActorImpl(JobCoordination, ScriptHost):
    """The body of the task actor (a plain class, so it can be tested in-process); the
    coordinator's job state and launched scripts come from :mod:`ray_runtime.job`."""

    def __init__(self, job: str, task: int, cluster_name: str):
        self.job = job
        self.task = task
        self.cluster_name = cluster_name
        if ray.is_initialized() and ray.get_runtime_context().get_actor_id() is not None:
            _local_impls[actor_name(cluster_name, job, task)] = self
        self.task_name = f"/job:{job}/replica:0/task:{task}"
        self.resources = ResourceStore(self.task_name)
        self._partitions: dict[str, _Registered] = {}
        self._lock = threading.Lock()
        self._mailboxes: dict[str, _RemoteRendezvous] = {}
        self._pending: dict[str, list[tuple[int, Any]]] = {}
        self._aborted: dict[str, str] = {}  # steps aborted before their mailbox existed
        self._runs: dict[str, _Run | _Suspended] = {}  # partitions started by run_begin
        self._pool: ThreadPoolExecutor | None = None
        self._calls = {"run": 0, "run_begin": 0, "resume": 0, "finish": 0, "deliver": 0}
        self._pooled = 0  # run_begin partitions run on a pool thread (not suspending)
        self.traffic = Traffic()
        self._traces: dict[str, tracing.StepTrace] = {}  # traced steps' spans

    # -- control --------------------------------------------------------------------
    def ping(self) -> str:
        return self.task_name

    def register(self, key: str, graph_def_bytes: bytes, device: tuple, n_keys: int,
                 routes: dict[int, Any], dead_aware: bool,
                 caller_slots: frozenset[int] = frozenset(),
                 reply_slots: frozenset[int] = frozenset(),
                 route_names: dict[int, str] | None = None) -> int:
        """Compiles one partition (``device`` = Device fields) under ``key``;
        ``caller_slots``/``reply_slots`` are the tensors it receives from / sends to a
        client's own partition (see :meth:`run_begin`); ``route_names`` the task each
        routed slot goes to (named in traces)."""
        gd = graph_pb2.GraphDef.FromString(graph_def_bytes)
        dev = Device(*device)
        infos = {nd.name: _node_info(nd) for nd in gd.node}
        slots = _key_slots(gd)
        executor = PartitionExecutor(gd, dev, self.resources, infos, slots,
                                     dead_aware=dead_aware)
        # A rendezvous key is "src_device;incarnation;dst_device;tensor_name;frame:iter".
        names = {slot: k.split(";")[3] for k, slot in slots.items() if k.count(";") >= 3}
        with self._lock:
            self._partitions[key] = _Registered(executor, routes, n_keys,
                                                frozenset(caller_slots), frozenset(reply_slots),
                                                names, route_names)
        return len(gd.node)

    def unregister(self, keys: list[str]) -> None:
        with self._lock:
            for k in keys:
                self._partitions.pop(k, None)

    def reset(self) -> None:
        """Drops every variable and partition of this task (a fresh start)."""
        with self._lock:
            self._partitions.clear()
        self.resources.clear()

    # -- steps ----------------------------------------------------------------------
    def _mailbox(self, step_key: str, registered: _Registered | None) -> _RemoteRendezvous:
        with self._lock:
            box = self._mailboxes.get(step_key)
            if box is None and registered is not None:
                box = _RemoteRendezvous(registered.n_keys, registered.routes, self, step_key,
                                        registered.names)
                box._peers = registered.route_names
                self._mailboxes[step_key] = box
                for slot, value in self._pending.pop(step_key, []):
                    Rendezvous.send(box, slot, value)
                message = self._aborted.pop(step_key, None)
                if message is not None:
                    box.abort(errors.CancelledError(None, None, message))
            return box

    def abort_step(self, step_key: str, message: str) -> None:
        """Wakes this task's partitions of a failed step (their Recvs raise)."""
        with self._lock:
            run = self._runs.pop(step_key, None)  # nobody will call finish
            self._traces.pop(step_key, None)
            box = self._mailboxes.get(step_key)
            if isinstance(run, _Suspended):  # (nor resume it: a call drives it, if any)
                self._mailboxes.pop(step_key, None)
            self._pending.pop(step_key, None)
            if box is None:
                if len(self._aborted) > 1024:
                    self._aborted.pop(next(iter(self._aborted)))
                self._aborted[step_key] = message
                return
        box.abort(errors.CancelledError(None, None, message))

    @_step_call
    def deliver(self, step_key: str, items: list[tuple[int, Any]],
                traced: bool = False) -> None:
        """Tensors (slot, value) of step ``step_key`` from another actor's partition
        (``traced``: of a traced step, so the call is recorded)."""
        t_in = tracing.now_ns() if traced else 0
        self._calls["deliver"] += 1
        self.traffic.received(_wire_bytes(v for _, v in items))
        self._deliver(step_key, items)
        if traced:
            slots = ",".join(str(s) for s, _ in items)
            self._step_trace(step_key).add(f"deliver (slots {slots})", "RayCall", t_in)

    # -- tracing ----------------------------------------------------------------------
    def _step_trace(self, step_key: str) -> tracing.StepTrace:
        with self._lock:
            trace = self._traces.get(step_key)
            if trace is None:
                if len(self._traces) > 1024:  # steps that never ran here
                    self._traces.pop(next(iter(self._traces)))
                trace = self._traces[step_key] = tracing.StepTrace(
                    tracing.pseudo_device(self.task_name, tracing.RAY_DEVICE))
            return trace

    def _stats_bytes(self, step_key: str, stats: Any, call: str, t_in: int) -> bytes:
        """A traced step's StepStats bytes as this task answers them: the partition's
        kernels (``stats``) and this task's Ray-side spans, ending with ``call``'s."""
        if stats is None:
            return b""
        with self._lock:
            trace = self._traces.pop(step_key, None)
        out = step_stats_pb2.StepStats()
        out.dev_stats.add().CopyFrom(stats)
        if trace is not None:
            if call:
                trace.add(call, "RayCall", t_in)
            out.dev_stats.add().CopyFrom(trace.dev_stats())
        return out.SerializeToString()

    def _deliver(self, step_key: str, items: list[tuple[int, Any]]) -> None:
        with self._lock:
            box = self._mailboxes.get(step_key)
            if box is None:
                self._pending.setdefault(step_key, []).extend(items)
                return
        for slot, value in items:
            Rendezvous.send(box, slot, value)

    def _registered(self, key: str) -> _Registered:
        registered = self._partitions.get(key)
        if registered is None:
            raise errors.AbortedError(None, None, f"Partition {key} is not registered on "
                                                  f"{self.task_name} (actor restarted?)")
        return registered

    @_step_call
    def run(self, key: str, step_key: str, args: dict[int, Any], n_retvals: int,
            trace: bool, exchange: Exchange | None = None,
            in_process: bool = False) -> tuple[dict[int, Any], bytes]:
        """Runs partition ``key`` for one step; returns its fetched values by index and
        (when tracing) StepStats bytes: its device's kernels and this task's Ray-side
        spans (see :mod:`ray_runtime.tracing`). ``in_process``: the client calls it in
        this very process (its feeds and fetches cross no wire); ``exchange``: this is
        that client's own partition, trading tensors with partitions started by
        ``run_begin``."""
        t_in = tracing.now_ns() if trace else 0
        self._calls["run"] += 1
        registered = self._registered(key)
        box = self._mailbox(step_key, registered)
        box._exchange = exchange
        out, stats = self._execute(registered, box, step_key, args, n_retvals, trace, t_in,
                                   wire=not in_process)
        return out, self._stats_bytes(step_key, stats, "" if in_process else "run", t_in)

    def _execute(self, registered: _Registered, box: _RemoteRendezvous, step_key: str,
                 args: dict[int, Any], n_retvals: int, trace: bool,
                 arrival_ns: int = 0, wire: bool = True) -> tuple[dict[int, Any], Any]:
        """Runs the partition; returns its fetched values and (when tracing) its
        DeviceStepStats."""
        if trace:
            box._trace = self._step_trace(step_key)
            if arrival_ns:
                box._trace.add("queued on the actor (arrival -> partition start)", "Queue",
                               arrival_ns)
        self.traffic.step()
        if args and wire:
            self.traffic.received(_wire_bytes(args.values()))
        step = Step(_arg_list(args), n_retvals, box)
        stats = None
        try:
            ex = registered.executor
            if trace:
                stats = step_stats_pb2.DeviceStepStats(device=ex.device.name)
                ex.run_full(step, stats)
            elif ex.dead_aware:
                ex.run_full(step)
            else:
                ex.run(step)
            box.flush(final=True)
        except BaseException as e:
            box.abort(e)
            raise
        finally:
            with self._lock:
                self._mailboxes.pop(step_key, None)
        out = {i: v for i, v in enumerate(step.retvals) if v is not None}
        if out and wire:
            self.traffic.sent(_wire_bytes(out.values()))
        return out, stats

    @_step_call
    def run_begin(self, key: str, step_key: str, args: dict[int, Any], n_retvals: int,
                  trace: bool, items: list[tuple[int, Any]] | None = None,
                  ) -> tuple[list[tuple[int, Any]], Any]:
        """Starts partition ``key`` for one step, with ``items`` (slot, tensor) its
        caller (the client's own task) has sent it so far, and answers with the tensors
        it sends the caller until it first waits on the caller, or finishes: (tensors,
        None), or (tensors, run's outcome) when it finished. A partition not finished
        by then is waited for with :meth:`finish`."""
        t_in = tracing.now_ns() if trace else 0
        self._calls["run_begin"] += 1
        registered = self._registered(key)
        box = self._mailbox(step_key, registered)
        if items:
            self.traffic.received(_wire_bytes(v for _, v in items))
            for slot, value in items:
                Rendezvous.send(box, slot, value)
        reply = box._reply = _Reply(registered.caller, registered.caller_slots)
        if registered.suspending is not None and not trace:
            self.traffic.step()
            if args:
                self.traffic.received(_wire_bytes(args.values()))
            step = Step(_arg_list(args), n_retvals, box)
            suspended = _Suspended(box, registered.suspending(step, step.args), step,
                                   registered)
            with self._lock:
                self._runs[step_key] = suspended
            return self._drive(step_key, suspended, False)
        run = _Run(box)
        with self._lock:
            self._pooled += 1
            self._runs[step_key] = run
            if self._pool is None:
                self._pool = ThreadPoolExecutor(MAX_CONCURRENCY,
                                                thread_name_prefix="graphcore-partition")

        def execute() -> None:
            try:
                run.result = self._execute(registered, box, step_key, args, n_retvals, trace,
                                           t_in)
            except BaseException as e:
                run.error = e
            finally:
                run.done.set()
                box._reply.release()  # the answer being made (run_begin's or resume's)

        self._pool.submit(execute)
        return self._answer(step_key, run, reply, "run_begin", trace, t_in)

    def _drive(self, step_key: str, run: _Suspended, final: bool
               ) -> tuple[list[tuple[int, Any]], Any]:
        """Runs a suspended partition on this (the call's) thread until it waits on a
        tensor of its caller not yet here, then answers as :meth:`_answer` does with
        what it sent the caller; or, ``final`` (a ``finish`` call: the caller sends
        nothing more), waits for such tensors (other calls may deliver them) and runs
        it to its end."""
        box = run.box
        try:
            with np.errstate(all="ignore"):
                for slot in run.gen:
                    if not final:
                        box.flush()
                        return box._reply.take(), None
                    try:
                        Rendezvous.recv(box, slot)
                    except errors.CancelledError:
                        pass  # the _Recv raises it, with its node named
            box.flush(final=True)
        except BaseException as e:
            box.abort(e)
            self._end(step_key)
            raise
        self._end(step_key)
        items = box._reply.take() if box._reply is not None else []
        out = {i: v for i, v in enumerate(run.step.retvals) if v is not None}
        if out:
            self.traffic.sent(_wire_bytes(out.values()))
        return items, (out, b"")

    def _end(self, step_key: str) -> None:
        """Forgets a step's partition started by run_begin (it ended or failed)."""
        with self._lock:
            self._runs.pop(step_key, None)
            self._mailboxes.pop(step_key, None)
            self._pending.pop(step_key, None)  # tensors that came after the end

    def _answer(self, step_key: str, run: _Run, reply: _Reply, call: str, trace: bool,
                t_in: int) -> tuple[list[tuple[int, Any]], Any]:
        """Waits for ``reply`` (the partition sent its caller tensors, waits on it, or
        finished) and answers ``call``: (tensors, None) or (tensors, outcome)."""
        reply.ready.wait()
        items = reply.take()
        if trace:
            self._step_trace(step_key).add(f"{call} answers (partition -> call thread)",
                                           "Handoff", reply.released_ns)
        if not run.done.is_set():
            if trace:
                self._step_trace(step_key).add(call, "RayCall", t_in)
            return items, None
        with self._lock:
            self._runs.pop(step_key, None)
            self._pending.pop(step_key, None)  # tensors that came after the end
        out, stats = run.outcome()
        return items, (out, self._stats_bytes(step_key, stats, call, t_in))

    @_step_call
    def resume(self, step_key: str, items: list[tuple[int, Any]],
               trace: bool = False) -> tuple[list[tuple[int, Any]], Any]:
        """Delivers the caller's tensors to a partition started by ``run_begin`` (whose
        answer the caller has) and answers as run_begin does: with what the partition
        sends the caller next, once it waits on the caller again or finishes (then
        with its outcome). A worker that sends a ps its gradients and waits for the
        update's control edge makes one call for both."""
        t_in = tracing.now_ns() if trace else 0
        self._calls["resume"] += 1
        with self._lock:
            run = self._runs.get(step_key)
        if run is None:
            raise errors.AbortedError(None, None, f"Step {step_key} is not running on "
                                                  f"{self.task_name} (cancelled?)")
        box = run.box
        if isinstance(run, _Suspended):
            box._reply = _Reply(run.registered.caller, run.registered.caller_slots)
            self.traffic.received(_wire_bytes(v for _, v in items))
            for slot, value in items:
                Rendezvous.send(box, slot, value)
            return self._drive(step_key, run, False)
        old = box._reply
        reply = box._reply = _Reply(old.caller, old.caller_slots)
        if run.done.is_set():
            reply.release()
        self.traffic.received(_wire_bytes(v for _, v in items))
        for slot, value in items:
            Rendezvous.send(box, slot, value)
        return self._answer(step_key, run, reply, "resume", trace, t_in)

    @_step_call
    def finish(self, step_key: str, items: list[tuple[int, Any]]) -> tuple[dict[int, Any],
                                                                            bytes]:
        """Delivers the caller's last tensors to a partition started by ``run_begin``
        and returns its outcome once it finishes (``run``'s result)."""
        t_in = tracing.now_ns()
        self._calls["finish"] += 1
        with self._lock:
            run = self._runs.get(step_key)
        if run is None:
            raise errors.AbortedError(None, None, f"Step {step_key} is not running on "
                                                  f"{self.task_name} (cancelled?)")
        self.traffic.received(_wire_bytes(v for _, v in items))
        if isinstance(run, _Suspended):
            run.box._reply = None  # what it sends the caller now goes by deliver
            for slot, value in items:
                Rendezvous.send(run.box, slot, value)
            return self._drive(step_key, run, True)[1]
        if items and not run.done.is_set():
            self._deliver(step_key, items)
        run.done.wait()
        with self._lock:
            self._runs.pop(step_key, None)
            self._pending.pop(step_key, None)  # tensors that came after the end
        out, stats = run.outcome()
        return out, self._stats_bytes(step_key, stats, "finish", t_in)

    def run_main(self, fn: Callable, task_index: int, args: tuple, env: dict) -> Any:
        """Runs a launched ``main(task_index, *args)`` in this task's process, the way
        TF runs a between-graph client beside its worker server: the session it opens
        runs this task's partitions in-process, the ps partitions on their actors."""
        from graphcore.framework import ops

        os.environ.update(env)
        with ops.Graph().as_default():  # a fresh default graph per launch
            return fn(task_index, *args)

    def call_counts(self) -> dict[str, int]:
        """How many step calls this task has served, by kind (``run``, ``run_begin``,
        ``resume``, ``finish``, ``deliver``), how many run_begin partitions are still
        open, and how many ran on a pool thread (``pooled``: those that wait on tasks
        other than their caller, or traced; the others run on the calls' threads)."""
        with self._lock:
            return {**self._calls, "open": len(self._runs), "pooled": self._pooled}

    def load(self) -> dict[str, Any]:
        """This task's load: the bytes its variables hold (slots included) and how many,
        and its :class:`Traffic` counters (bytes in and out over Ray, partition runs)."""
        held = [s.value.nbytes for s in self.resources.variables().values()
                if isinstance(s.value, np.ndarray)]
        t = self.traffic
        return {"task": self.task_name, "bytes_held": int(sum(held)),
                "variables": len(held), "bytes_in": t.bytes_in, "bytes_out": t.bytes_out,
                "steps": t.steps}

    def variable_names(self) -> list[str]:
        return sorted(name for _, name in self.resources.variables())

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    def assigned_resources(self) -> dict[str, float]:
        """The Ray resources this task actor holds (its job's ``job_resources``)."""
        return dict(ray.get_runtime_context().get_assigned_resources())

    def node_id(self) -> str:
        """The id (hex) of the Ray node this task actor runs on."""
        return ray.get_runtime_context().get_node_id()


def _arg_list(args: dict[int, Any]) -> list[Any]:
    """A step's arguments by index (None where the partition takes none)."""
    out = [None] * ((max(args) + 1) if args else 0)
    for i, v in args.items():
        out[i] = v
    return out


def _node_info(nd: Any) -> NodeInfo:
    from graphcore.framework import op_registry

    return NodeInfo(nd, op_registry.get(nd.op), 0)


def _key_slots(gd: graph_pb2.GraphDef) -> dict[str, int]:
    """Rendezvous key -> global slot, read from the _Send/_Recv attrs (the master
    stores each slot number in the node's ``_slot`` attr)."""
    from graphcore.runtime.rendezvous import rendezvous_key_from_attrs

    out = {}
    for nd in gd.node:
        if nd.op in ("_Send", "_Recv"):
            out[rendezvous_key_from_attrs(nd)] = nd.attr["_slot"].i
    return out


TaskActor = ray.remote(max_concurrency=MAX_CONCURRENCY)(TaskActorImpl)


def actor_name(cluster_name: str, job: str, task: int) -> str:
    return f"graphcore/{cluster_name}/{job}/{task}"


_created: dict[str, set[str]] = {}
_job_resources: dict[str, dict[str, dict[str, float]]] = {}
_runtime_envs: dict[str, dict[str, Any]] = {}
_strategies: dict[str, str] = {}
# Clusters whose task actors this process owns (the launcher's): created not detached,
# so Ray removes them with this process's job even when it is killed outright.
_owned: set[str] = set()


def set_job_resources(cluster_name: str, job_resources: dict[str, Any]) -> None:
    """What each job's task actors reserve in ``cluster_name``: {job: {"num_cpus": c,
    "num_gpus": g, "resources": {name: amount}}} (default: nothing, so actors never hold
    back CPUs).  ``resources`` are Ray custom resources: a node started with
    ``--resources '{"ps_host": 1}'`` takes the tasks of a job asking for ``{"ps_host":
    0.01}``.  Applies to task actors created after the call."""
    allowed = {"num_cpus", "num_gpus", "resources"}
    for job, res in job_resources.items():
        unknown = set(res) - allowed
        if unknown:
            raise ValueError(f"job_resources[{job!r}]: unknown keys {sorted(unknown)}; "
                             f"expected {sorted(allowed)}")
        custom = res.get("resources", {})
        if not isinstance(custom, dict) or not all(
                isinstance(k, str) and isinstance(v, (int, float)) and v > 0
                for k, v in custom.items()):
            raise ValueError(f"job_resources[{job!r}]['resources'] must map resource names "
                             f"to positive amounts, got {custom!r}")
    with _created_lock:
        _job_resources[cluster_name] = {j: dict(r) for j, r in job_resources.items()}


PLACEMENT_STRATEGIES = ("PACK", "SPREAD", "STRICT_PACK", "STRICT_SPREAD")


def set_placement_strategy(cluster_name: str, strategy: str) -> None:
    """The strategy of ``cluster_name``'s placement group (one bundle per task), created
    by the first session after the call: ``STRICT_SPREAD`` puts every task on a node of
    its own (or fails to place), ``SPREAD`` (the default on several nodes) where it
    can.  A strategy set here also makes a placement group on a one-node cluster."""
    if strategy not in PLACEMENT_STRATEGIES:
        raise ValueError(f"placement_strategy must be one of {PLACEMENT_STRATEGIES}, "
                         f"got {strategy!r}")
    with _created_lock:
        _strategies[cluster_name] = strategy


def placement_strategy(cluster_name: str) -> str | None:
    """The strategy set for ``cluster_name`` (None: SPREAD when there are several nodes,
    no placement group on one)."""
    with _created_lock:
        return _strategies.get(cluster_name)


def set_owned(cluster_name: str) -> None:
    """Task actors this process creates for ``cluster_name`` from now on belong to its Ray
    job (not detached): they die with it, however it ends."""
    with _created_lock:
        _owned.add(cluster_name)


def set_runtime_env(cluster_name: str, runtime_env: dict[str, Any]) -> None:
    """The Ray ``runtime_env`` of task actors created for ``cluster_name`` from now on
    (e.g. ``{"working_dir": ...}`` for a launched script's directory)."""
    with _created_lock:
        _runtime_envs[cluster_name] = dict(runtime_env)


def job_resources(cluster_name: str, job: str) -> dict[str, Any]:
    with _created_lock:
        return dict(_job_resources.get(cluster_name, {}).get(job, {}))


_created_lock = threading.Lock()


def created_actor_names(cluster_name: str) -> list[str]:
    with _created_lock:
        return sorted(_created.get(cluster_name, ()))


def forget_cluster(cluster_name: str) -> None:
    with _created_lock:
        _created.pop(cluster_name, None)
        _job_resources.pop(cluster_name, None)
        _runtime_envs.pop(cluster_name, None)
        _strategies.pop(cluster_name, None)
        _owned.discard(cluster_name)


# -- placement groups (clusters of several nodes) -------------------------------------

# What each task's bundle reserves: a token amount of CPU, so that bundles (and so
# tasks) spread over nodes without holding back CPUs for other work.
BUNDLE_CPUS = 0.01


def placement_group_name(cluster_name: str) -> str:
    return f"graphcore/{cluster_name}"


def alive_node_count() -> int:
    return sum(1 for n in ray.nodes() if n.get("Alive"))


def get_or_create_placement_group(cluster_name: str, n_bundles: int,
                                  timeout: float = 60.0,
                                  bundles: list[dict[str, float]] | None = None,
                                  strategy: str = "SPREAD") -> Any:
    """The detached placement group of ``cluster_name``: one bundle per task, by default
    SPREAD over the nodes (so tasks land on different nodes where there are enough).
    All clients of the cluster find the same group by name; bundle ``i`` belongs to the
    ``i``-th task in ClusterSpec order (``bundles`` gives each bundle's resources;
    default a token CPU share).  When a node dies, Ray places its bundles again on the
    nodes left (as the strategy allows).  Removed by shutdown_cluster()."""
    from ray.util import get_placement_group, placement_group

    name = placement_group_name(cluster_name)
    try:
        pg = get_placement_group(name)
    except ValueError:
        try:
            pg = placement_group(bundles or [{"CPU": BUNDLE_CPUS}] * n_bundles,
                                 strategy=strategy, name=name, lifetime="detached")
        except ValueError:  # another client created it meanwhile
            pg = get_placement_group(name)
    if pg.bundle_count < n_bundles:
        raise errors.InvalidArgumentError(
            None, None, f"Placement group {name} has {pg.bundle_count} bundles; the cluster "
                        f"has {n_bundles} tasks (a different ClusterSpec under the same name?)")
    try:
        ray.get(pg.ready(), timeout=timeout)
    except ray.exceptions.GetTimeoutError:
        raise errors.UnavailableError(
            None, None, f"Placement group {name} ({n_bundles} bundles, {strategy}) was "
                        f"not placed within {timeout} s") from None
    return pg


def remove_placement_group(cluster_name: str) -> bool:
    from ray.util import get_placement_group
    from ray.util import remove_placement_group as remove

    try:
        remove(get_placement_group(placement_group_name(cluster_name)))
        return True
    except ValueError:
        return False


def get_or_create_actor(cluster_name: str, job: str, task: int, num_cpus: float = 0,
                        num_gpus: float = 0, scheduling_strategy: Any = None,
                        resources: dict[str, float] | None = None) -> Any:
    """The named actor of one task, created when missing (so between-graph clients
    find the same ps actors)."""
    options: dict[str, Any] = dict(name=actor_name(cluster_name, job, task),
                                   namespace=NAMESPACE, get_if_exists=True,
                                   num_cpus=num_cpus, num_gpus=num_gpus,
                                   max_restarts=0,
                                   # Detached: a task actor outlives the client that created
                                   # it (between-graph workers come and go); they are
                                   # removed with shutdown_cluster().  A launcher's own
                                   # tasks die with its job (set_owned).
                                   lifetime="detached")
    if scheduling_strategy is not None:
        options["scheduling_strategy"] = scheduling_strategy
    if resources:
        options["resources"] = dict(resources)
    with _created_lock:
        _created.setdefault(cluster_name, set()).add(options["name"])
        if cluster_name in _runtime_envs:
            options["runtime_env"] = _runtime_envs[cluster_name]
        if cluster_name in _owned:
            del options["lifetime"]
    return TaskActor.options(**options).remote(job, task, cluster_name)
