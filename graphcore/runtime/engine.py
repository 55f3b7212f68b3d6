"""The local engine (TF's DirectSession): GraphDef in, fetched values out.

The client sends GraphDef bytes (and later only the new nodes); each distinct
(feeds, fetches, targets) signature is pruned, placed, partitioned and compiled
once into a :class:`StepPlan`; a step then runs the plan's partitions (inline when
there is one, concurrently otherwise) and returns the fetched values.
"""

from __future__ import annotations

import itertools
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from graphcore import kernels  # noqa: F401 - registers the kernels
from graphcore.framework import device as device_lib
from graphcore.framework import errors
from graphcore.kernels import intra_op
from graphcore.ops import runtime_ops  # noqa: F401 - registers _Arg/_Retval/_Send/_Recv
from graphcore.protobuf import config_pb2, graph_pb2, step_stats_pb2
from graphcore.runtime import placer, prune
from graphcore.runtime.devices import Device, local_devices
from graphcore.runtime.executor import PartitionExecutor, Step
from graphcore.runtime.function import FunctionLibraryRuntime
from graphcore.runtime.graph_view import GraphView
from graphcore.runtime.partition import partition
from graphcore.runtime.rendezvous import Rendezvous
from graphcore.runtime.resources import ResourceStore

_SWITCH_OPS = frozenset({"Switch", "RefSwitch"})


class StepPlan:
    """A compiled step: executors per device, and how feeds/fetches map onto them."""

    def __init__(self, feeds: tuple[str, ...], fetches: tuple[str, ...],
                 targets: tuple[str, ...], executors: list[PartitionExecutor],
                 n_keys: int, partition_graphs: list[graph_pb2.GraphDef],
                 dead_aware: bool = False):
        self.feeds = feeds
        self.fetches = fetches
        self.targets = targets
        self.executors = executors
        self.n_keys = n_keys
        self.partition_graphs = partition_graphs
        self.dead_aware = dead_aware


class PlanCache:
    """What every engine shares: the graph it was sent (extended as the client's graph
    grows, TF's Extend) and its compiled plans, one per (feeds, fetches, targets),
    built by the engine's ``_build`` on first use."""

    def __init__(self) -> None:
        self.view = GraphView()
        self._plans: dict[tuple, Any] = {}
        self._lock = threading.Lock()

    def extend(self, graph_def: bytes | graph_pb2.GraphDef) -> None:
        """Adds the nodes of ``graph_def`` (TF's Session::Extend)."""
        with self._lock:
            self.view.extend(graph_def)

    def plan(self, feeds: tuple[str, ...], fetches: tuple[str, ...],
             targets: tuple[str, ...]) -> Any:
        """The compiled plan for this signature, built on first use and cached."""
        key = (feeds, fetches, targets)
        plan = self._plans.get(key)
        if plan is None:
            with self._lock:
                plan = self._plans.get(key)
                if plan is None:
                    plan = self._plans[key] = self._build(feeds, fetches, targets)
        return plan

    def _build(self, feeds: tuple[str, ...], fetches: tuple[str, ...],
               targets: tuple[str, ...]) -> Any:
        raise NotImplementedError


class LocalEngine(PlanCache):
    """Runs GraphDefs in this process on the local devices."""

    def __init__(self, config: config_pb2.ConfigProto | None = None,
                 devices: list[Device] | None = None, resources: ResourceStore | None = None):
        super().__init__()
        self.config = config or config_pb2.ConfigProto()
        self.devices = devices or local_devices(self.config)
        self.default_device = self.devices[0]
        self.default_spec = device_lib.DeviceSpecV2(
            job=self.default_device.job, replica=self.default_device.replica,
            task=self.default_device.task)
        # A store handed in (a server's) outlives this engine; its own is cleared on close.
        self._owns_resources = resources is None
        self.resources = resources or ResourceStore(self.default_device.task_name)
        self._step_ids = itertools.count(1)
        if self.config.intra_op_parallelism_threads > 0:
            intra_op.set_threads(self.config.intra_op_parallelism_threads)
        threads = self.config.inter_op_parallelism_threads
        self._parallel = threads > 1
        self._pool: ThreadPoolExecutor | None = None
        self._pool_size = max(threads, len(self.devices), 2)

    # -- plans ------------------------------------------------------------------------
    def _build(self, feeds: tuple[str, ...], fetches: tuple[str, ...],
               targets: tuple[str, ...]) -> StepPlan:
        view = self.view
        for t in feeds:
            src, _, idx = t.rpartition(":")
            if src not in view.nodes or int(idx) >= len(view.nodes[src].output_types):
                raise errors.NotFoundError(None, None, f"Feed tensor {t} is not in the graph")
        names = prune.prune(view, set(feeds), list(fetches), list(targets))
        placement = placer.place(view, names, self.devices, self.default_spec,
                                 self.config.allow_soft_placement,
                                 self.config.log_device_placement)
        step = partition(view, names, placement, list(feeds), list(fetches),
                         self.default_device)
        slots = {k: i for i, k in enumerate(step.keys)}
        executors = []
        graphs = []
        # The partition holding the most nodes runs inline in the caller's thread.
        parts = sorted(step.partitions.values(), key=lambda p: -len(p.graph_def.node))
        dead_aware = any(n.op in _SWITCH_OPS for p in parts for n in p.graph_def.node)
        for part in parts:
            executors.append(PartitionExecutor(
                part.graph_def, part.device, self.resources, view.nodes, slots,
                dead_aware=dead_aware,
                function_library=FunctionLibraryRuntime(view, part.device, self.resources)))
            graphs.append(part.graph_def)
        return StepPlan(feeds, fetches, targets, executors, len(step.keys), graphs, dead_aware)

    # -- steps ------------------------------------------------------------------------
    def run(self, plan: StepPlan, feed_values: list, trace: bool = False,
            run_metadata: Any = None) -> list:
        """Runs one step of ``plan`` with ``feed_values`` (in ``plan.feeds`` order);
        returns the fetched values in ``plan.fetches`` order."""
        executors = plan.executors
        rendezvous = Rendezvous(plan.n_keys) if plan.n_keys else None
        step = Step(feed_values, len(plan.fetches), rendezvous, next(self._step_ids))
        stats = step_stats_pb2.StepStats() if trace else None
        if len(executors) == 1 and not trace:
            if plan.dead_aware:
                executors[0].run_full(step)
            elif self._parallel:
                executors[0].run_parallel(step, self._get_pool())
            else:
                executors[0].run(step)
        else:
            self._run_partitions(step, executors, stats)
        if run_metadata is not None and stats is not None:
            run_metadata.step_stats.MergeFrom(stats)
        return step.retvals

    def _run_partitions(self, step: Step, executors: list[PartitionExecutor],
                        stats: step_stats_pb2.StepStats | None) -> None:
        pool = self._get_pool()
        dev_stats = [stats.dev_stats.add(device=e.device.name) if stats is not None else None
                     for e in executors]

        def run_one(i: int) -> None:
            ex = executors[i]
            try:
                # In-order runs: a Recv blocking a pool thread could starve the Send it
                # waits for under dependency-counted scheduling.
                if dev_stats[i] is not None or ex.dead_aware:
                    ex.run_full(step, dev_stats[i])
                else:
                    ex.run(step)
            except BaseException as e:
                if step.rendezvous is not None:
                    step.rendezvous.abort(e)
                raise

        futures = [pool.submit(run_one, i) for i in range(1, len(executors))]
        # Prefer a partition's own failure over the cancellations it caused.
        intra_op.run_and_join(lambda: run_one(0), futures,
                              lambda e: isinstance(e, errors.CancelledError))

    def _get_pool(self) -> ThreadPoolExecutor:
        if self._pool is None:
            with self._lock:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(self._pool_size,
                                                    thread_name_prefix="graphcore-inter-op")
        return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
        self._plans.clear()
        if self._owns_resources:
            self.resources.clear()
