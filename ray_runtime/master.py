"""The master: a Session engine whose devices are the tasks of a Ray cluster.

It reuses graphcore's passes unchanged: the GraphDef is pruned, placed onto
``/job:<job>/replica:0/task:<i>/device:CPU:0`` devices (one task actor each), and
partitioned with _Send/_Recv pairs; each partition is registered once per cached
plan on its task's actor.  A step is one asynchronous ``run`` call per partition (or,
for a partition trading tensors with this process's own partition, ``run_begin`` and
``finish``: see actors.Exchange); tensors between partitions go actor to actor, and
only fetched values come back.
"""

from __future__ import annotations

import functools
import itertools
import os
import time
import urllib.parse
import uuid
from typing import Any

import ray
from ray.exceptions import GetTimeoutError, RayActorError, RayTaskError

from graphcore import kernels  # noqa: F401 - kernel registrations
from graphcore.framework import device as device_lib
from graphcore.framework import errors
from graphcore.ops import runtime_ops  # noqa: F401
from graphcore.protobuf import config_pb2, graph_pb2
from graphcore.runtime import placer, prune
from graphcore.runtime.devices import Device
from graphcore.runtime.engine import PlanCache
from graphcore.runtime.partition import partition
from graphcore.train.server_lib import ClusterSpec
from ray_runtime import actors, load, tracing
from ray_runtime import cluster as cluster_lib

_SWITCH_OPS = frozenset({"Switch", "RefSwitch"})


class RayStepPlan:
    def __init__(self, key: str, feeds: tuple, fetches: tuple, targets: tuple,
                 parts: list[tuple], partition_graphs: list, n_keys: int):
        self.key = key
        self.feeds = feeds
        self.fetches = fetches
        self.targets = targets
        # (actor, task name, feed indices it reads, local impl or None, and for a remote
        # partition run by run_begin/finish the slots it sends the local one, else None)
        self.parts = parts
        self.partition_graphs = partition_graphs
        self.n_keys = n_keys


class RayEngine(PlanCache):
    """Runs GraphDefs on the task actors of a Ray cluster."""

    def __init__(self, target: str, config: config_pb2.ConfigProto | None = None,
                 cluster: Any = None, cluster_name: str | None = None,
                 default_job: str | None = None, step_timeout: float | None = None):
        super().__init__()
        self.config = config or config_pb2.ConfigProto()
        target, _, query = target.partition("?")
        params = dict(urllib.parse.parse_qsl(query))
        cluster_name = cluster_name or params.get("cluster")
        default_task = int(params.get("task", 0))
        cluster_lib.connect(target)
        if cluster is None and self.config.HasField("cluster_def"):
            cluster = ClusterSpec(self.config.cluster_def)
        if cluster is None:
            cluster = ClusterSpec({"worker": 1})
        self.cluster = cluster if isinstance(cluster, ClusterSpec) else ClusterSpec(cluster)
        self.cluster_name = cluster_name or os.environ.get("GRAPHCORE_CLUSTER", "default")
        jobs = self.cluster.jobs
        if not jobs:
            raise errors.InvalidArgumentError(None, None, "The cluster has no jobs")
        self.default_job = default_job or ("worker" if "worker" in jobs else jobs[0])
        self.devices: list[Device] = []
        self._actors: dict[str, Any] = {}
        for job in jobs:
            for task in self.cluster.task_indices(job):
                dev = Device(job, 0, task, "CPU", 0)
                self.devices.append(dev)
        candidates = [d for d in self.devices if d.job == self.default_job]
        self.default_device = next((d for d in candidates if d.task == default_task),
                                   candidates[0])
        self.default_spec = device_lib.DeviceSpecV2(job=self.default_device.job, replica=0,
                                                    task=self.default_device.task)
        # Several nodes (or a strategy asked for): tasks go into the bundles of a
        # placement group, SPREAD unless set_placement_strategy said otherwise.
        self._placement_group = None
        strategy = actors.placement_strategy(self.cluster_name)
        if strategy is not None or actors.alive_node_count() > 1:
            self._placement_group = actors.get_or_create_placement_group(
                self.cluster_name, len(self.devices),
                bundles=[self._bundle(d) for d in self.devices],
                strategy=strategy or "SPREAD")
        self._steps = itertools.count()
        self._nodes: dict[str, str] = {}  # task -> Ray node id (asked when tracing)
        self._session_id = uuid.uuid4().hex[:8]
        timeout_ms = self.config.operation_timeout_in_ms
        self.step_timeout = step_timeout if step_timeout is not None else (
            timeout_ms / 1000.0 if timeout_ms > 0 else None)
        self._start_actors(timeout=60.0)

    # -- actors -----------------------------------------------------------------------
    def _bundle(self, dev: Device) -> dict[str, float]:
        res = actors.job_resources(self.cluster_name, dev.job)
        bundle = {"CPU": max(float(res.get("num_cpus", 0)), actors.BUNDLE_CPUS)}
        if res.get("num_gpus"):
            bundle["GPU"] = float(res["num_gpus"])
        bundle.update({k: float(v) for k, v in res.get("resources", {}).items()})
        return bundle

    def _actor(self, dev: Device) -> Any:
        name = dev.task_name
        handle = self._actors.get(name)
        if handle is None:
            res = actors.job_resources(self.cluster_name, dev.job)
            num_cpus, num_gpus = float(res.get("num_cpus", 0)), float(res.get("num_gpus", 0))
            strategy = None
            if self._placement_group is not None:
                from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

                strategy = PlacementGroupSchedulingStrategy(
                    self._placement_group,
                    placement_group_bundle_index=self.devices.index(dev))
                num_cpus = self._bundle(dev)["CPU"]
            handle = actors.get_or_create_actor(self.cluster_name, dev.job, dev.task,
                                                num_cpus=num_cpus, num_gpus=num_gpus,
                                                scheduling_strategy=strategy,
                                                resources=res.get("resources"))
            self._actors[name] = handle
        return handle

    def _start_actors(self, timeout: float) -> None:
        """Finds or creates the actor of every task and waits until each answers.  A
        dead actor (killed, or lost with its node) is replaced by a new one: its name
        may still resolve to the dead actor for a moment, so lookups are retried until
        the name is free.  Fails (naming the task) when an actor cannot start."""
        deadline = time.monotonic() + timeout
        todo = list(self.devices)
        while todo:
            items = [(dev, self._actor(dev)) for dev in todo]
            refs = [h.ping.remote() for _, h in items]
            dead = []
            for (dev, _), ref in zip(items, refs):
                try:
                    ray.get(ref, timeout=max(deadline - time.monotonic(), 0.1))
                except RayActorError as e:
                    if time.monotonic() > deadline:
                        raise errors.UnavailableError(
                            None, None, f"Task {dev.task_name} is unavailable: "
                                        f"{type(e).__name__}") from None
                    del self._actors[dev.task_name]
                    dead.append(dev)
                except GetTimeoutError:
                    raise errors.UnavailableError(
                        None, None, f"Task {dev.task_name} did not start within {timeout} s"
                    ) from None
            todo = dead
            if todo:
                time.sleep(0.1)

    # -- plans ------------------------------------------------------------------------
    def _build(self, feeds: tuple, fetches: tuple, targets: tuple) -> RayStepPlan:
        view = self.view
        names = prune.prune(view, set(feeds), list(fetches), list(targets))
        placement = placer.place(view, names, self.devices, self.default_spec,
                                 self.config.allow_soft_placement,
                                 self.config.log_device_placement)
        step = partition(view, names, placement, list(feeds), list(fetches),
                         self.default_device)
        slots = {k: i for i, k in enumerate(step.keys)}
        recv_task: dict[int, str] = {}
        send_task: dict[int, str] = {}
        for part in step.partitions.values():
            for nd in part.graph_def.node:
                if nd.op in ("_Send", "_Recv"):
                    slot = slots[_key(nd)]
                    nd.attr["_slot"].i = slot
                    (recv_task if nd.op == "_Recv" else send_task)[slot] = \
                        part.device.task_name
        dead_aware = any(n.op in _SWITCH_OPS for p in step.partitions.values()
                         for n in p.graph_def.node)
        plan_key = f"{self._session_id}/{len(self._plans)}"
        locals_ = {part.device.task_name: actors.local_impl(self.cluster_name, part.device.job,
                                                             part.device.task)
                   for part in step.partitions.values()}
        local_tasks = {t for t, impl in locals_.items() if impl is not None}
        parts = []
        registrations = []
        graphs = []
        for part in step.partitions.values():
            task = part.device.task_name
            actor = self._actor(part.device)
            routes = {slot: self._actors[dst] for slot, dst in recv_task.items()
                      if dst != task and _sends_slot(part.graph_def, slot)}
            local = locals_[task]
            # A remote partition trading tensors with this process's own partition runs
            # by run_begin/finish (see actors.Exchange).
            caller_slots = frozenset(s for s, t in recv_task.items()
                                     if t == task and send_task.get(s) in local_tasks)
            reply_slots = frozenset(s for s, t in send_task.items()
                                    if t == task and recv_task.get(s) in local_tasks)
            d = part.device
            route_names = {slot: recv_task[slot] for slot in routes}
            reg_args = (plan_key, part.graph_def.SerializeToString(),
                        (d.job, d.replica, d.task, d.device_type, d.index, d.incarnation),
                        len(step.keys), routes, dead_aware, caller_slots, reply_slots,
                        route_names)
            if local is not None:
                local.register(*reg_args)
            else:
                registrations.append((task, actor.register.remote(*reg_args)))
            feed_idx = [nd.attr["index"].i for nd in part.graph_def.node if nd.op == "_Arg"]
            begins = local is None and bool(caller_slots or reply_slots)
            parts.append((actor, task, feed_idx, local, reply_slots if begins else None))
            graphs.append(part.graph_def)
        for task, ref in registrations:
            self._get(ref, task)
        return RayStepPlan(plan_key, feeds, fetches, targets, parts, graphs, len(step.keys))

    # -- steps ------------------------------------------------------------------------
    def run(self, plan: RayStepPlan, feed_values: list, trace: bool = False,
            run_metadata: Any = None) -> list:
        step_key = f"{plan.key}/{next(self._steps)}"
        n = len(plan.fetches)
        pending: dict[Any, tuple[str, Any, str, int]] = {}  # ref -> task, actor, call, t0
        local_parts = []
        clock = tracing.now_ns if trace else _no_clock
        exchange = actors.Exchange(self._get, (plan.key, step_key, n, trace), clock)
        client = None
        if trace:
            client = tracing.ClientTrace(
                next((t for _, t, _, local, _ in plan.parts if local is not None), ""),
                [t for _, t, _, local, _ in plan.parts if local is None])
        for actor, task, feed_idx, local, reply_slots in plan.parts:
            args = {i: feed_values[i] for i in feed_idx}
            if local is not None:
                local_parts.append((task, local, args))
            elif reply_slots is not None:  # started by the local partition's first flush
                exchange.add(task, actor, args, reply_slots)
            else:
                t0 = clock()
                pending[actor.run.remote(plan.key, step_key, args, n, trace)] = (
                    task, actor, "run", t0)
                if client is not None:
                    client.span(f"submit run -> {task}", "RaySubmit", t0)
        values: list[Any] = [None] * n
        first_error: BaseException | None = None

        def running() -> list[tuple[str, Any]]:
            return [(t, a) for t, a, _, _ in pending.values()] + \
                [(e.task, e.actor) for e in exchange.entries if e.started]

        def take(task: str, result: Any) -> None:
            """Merges one partition's fetched values and stats; on its failure, wakes
            the others (they may wait on its tensors forever) and keeps the error."""
            nonlocal first_error
            try:
                out, stats_bytes = result()
            except errors.OpError as e:
                if first_error is None:
                    self._abort(step_key, running(), f"partition on {task} failed: "
                                                     f"{e.message.splitlines()[0]}")
                if first_error is None or isinstance(first_error, errors.CancelledError):
                    first_error = e
                return
            for i, v in out.items():
                values[i] = v
            if client is not None:
                client.take(task, stats_bytes)

        # This process's own task (a launched main): its partition runs right here,
        # while the remote ones run on their actors.
        for task, local, args in local_parts:
            t0 = clock()
            take(task, functools.partial(local.run, plan.key, step_key, args, n, trace,
                                         exchange if exchange.entries else None,
                                         in_process=True))
            if client is not None:
                client.span(f"partition of {task} (in this process)", "LocalRun", t0)
        for entry in exchange.entries:
            if not entry.started:  # the local partition failed before it started
                continue
            if first_error is None and not entry.answered:  # its answer went unused
                take(entry.task, functools.partial(_settled, exchange, entry))
            if client is not None:
                entry.record()
                for method, submit, sent, get, answered in entry.calls:
                    client.span(f"submit {method} -> {entry.task}", "RaySubmit", submit, sent)
                    if answered:
                        client.span(f"wait for {method}'s answer <- {entry.task}", "RayWait",
                                    get, answered)
                        client.call(method, entry.task, submit, answered)
            if entry.outcome is not None:
                take(entry.task, lambda e=entry: e.outcome)
            elif first_error is None:
                t0 = clock()
                pending[entry.actor.finish.remote(step_key, entry.final)] = (
                    entry.task, entry.actor, "finish", t0)
                if client is not None:
                    client.span(f"submit finish -> {entry.task}", "RaySubmit", t0)
        while pending:
            t0 = clock()
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=self.step_timeout)
            if not ready:
                tasks = ", ".join(sorted(t for t, _, _, _ in pending.values()))
                self._abort(step_key, running(), "step timed out")
                raise errors.DeadlineExceededError(
                    None, None, f"Step did not finish within {self.step_timeout} s; waiting "
                                f"on {tasks}")
            ref = ready[0]
            task, _, call, t_submit = pending.pop(ref)
            t1 = clock()
            take(task, functools.partial(self._get, ref, task))
            if client is not None:
                client.span("ray.wait", "RayWait", t0, t1)
                client.span(f"ray.get {call} result <- {task}", "Deserialize", t1)
                client.call(call, task, t_submit, clock())
        if first_error is not None:
            raise first_error
        if run_metadata is not None and client is not None:
            client.end()
            run_metadata.step_stats.MergeFrom(client.finish(self._clock_offsets(plan)))
        return values

    def _clock_offsets(self, plan: RayStepPlan) -> dict[str, int | None]:
        """Per remote task: 0 on this process's node (one wall clock), else None (its
        offset is estimated from the step's calls)."""
        todo = [(task, actor) for actor, task, _, local, _ in plan.parts
                if local is None and task not in self._nodes]
        if todo:
            ids = ray.get([actor.node_id.remote() for _, actor in todo])
            self._nodes.update((task, i) for (task, _), i in zip(todo, ids))
        here = ray.get_runtime_context().get_node_id()
        return {task: 0 if self._nodes.get(task, here) == here else None
                for _, task, _, _, _ in plan.parts}

    def _abort(self, step_key: str, running: list[tuple[str, Any]], message: str) -> None:
        for _, actor in running:
            try:
                actor.abort_step.remote(step_key, message)
            except Exception:  # a dead actor: nothing to wake
                pass

    def _get(self, ref: Any, task: str) -> Any:
        try:
            return ray.get(ref, timeout=self.step_timeout)
        except RayTaskError as e:
            cause = e.cause if hasattr(e, "cause") else None
            if isinstance(cause, errors.OpError):
                raise cause from None
            if isinstance(cause, RayActorError):
                raise errors.UnavailableError(
                    None, None, f"Task {task} is unavailable (its actor died)") from None
            if isinstance(cause, actors.STORE_FULL_ERRORS):
                raise errors.ResourceExhaustedError(
                    None, None, f"OOM: the values task {task} returns do not fit Ray's object "
                                f"store ({type(cause).__name__})") from None
            raise errors.InternalError(None, None, f"Task {task} failed: {e}") from None
        except RayActorError:
            raise errors.UnavailableError(
                None, None, f"Task {task} is unavailable (its actor died)") from None
        except actors.STORE_FULL_ERRORS as e:
            raise errors.ResourceExhaustedError(
                None, None, f"OOM: the values task {task} returns do not fit Ray's object "
                            f"store ({type(e).__name__})") from None
        except GetTimeoutError:
            raise errors.DeadlineExceededError(
                None, None, f"Task {task} did not answer within {self.step_timeout} s") \
                from None

    def close(self) -> None:
        if not ray.is_initialized():  # disconnected: a remote call would start a new Ray
            self._plans.clear()
            return
        load.log_load_report(self)
        keys = [p.key for p in self._plans.values()]
        for handle in self._actors.values():
            try:
                handle.unregister.remote(keys)
            except Exception:
                pass
        self._plans.clear()


def _no_clock() -> int:
    return 0


def _settled(exchange: actors.Exchange, entry: Any) -> tuple[dict[int, Any], bytes]:
    """Takes a run_begin answer the local partition did not need (no fetched values)."""
    exchange.settle(entry)
    return {}, b""


def _key(nd: Any) -> str:
    from graphcore.runtime.rendezvous import rendezvous_key_from_attrs

    return rendezvous_key_from_attrs(nd)


def _sends_slot(gd: graph_pb2.GraphDef, slot: int) -> bool:
    return any(nd.op == "_Send" and nd.attr["_slot"].i == slot for nd in gd.node)
