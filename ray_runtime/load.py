"""The per-task load report of a Ray cluster: the bytes each task's variables hold and
the bytes it moved over Ray per step (to and from its peers and clients).

Every task actor counts what crosses the wire (:class:`ray_runtime.actors.Traffic`):
tensors delivered to it and sent from it, feeds and fetched values, and the partition
runs it served (a step of any client that touches the task is one run there). A report
reads those counters; two reports subtract (:meth:`LoadReport.since`) to give the load
of the steps in between::

    before = ray_runtime.load_report(sess)
    for _ in range(100):
        sess.run(train_op, feed)
    print(ray_runtime.load_report(sess).since(before))

Closing a Ray session logs its ps tasks' report at INFO on the ``ray_runtime.load``
logger.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import ray

logger = logging.getLogger("ray_runtime.load")

__all__ = ["LoadReport", "TaskLoad", "load_report"]


@dataclass(frozen=True)
class TaskLoad:
    """One task: ``bytes_held`` by its variables (optimizer slots included) and how many
    variables; ``bytes_in``/``bytes_out`` moved over Ray and ``steps`` (partition runs)
    since it started, or between two reports."""

    task: str
    bytes_held: int
    variables: int
    bytes_in: int
    bytes_out: int
    steps: int

    @property
    def bytes_in_per_step(self) -> float:
        return self.bytes_in / self.steps if self.steps else 0.0

    @property
    def bytes_out_per_step(self) -> float:
        return self.bytes_out / self.steps if self.steps else 0.0


class LoadReport(list):
    """A list of :class:`TaskLoad`, one per task, in ClusterSpec order."""

    def by_task(self) -> dict[str, TaskLoad]:
        return {t.task: t for t in self}

    def since(self, earlier: LoadReport) -> LoadReport:
        """The traffic and steps between ``earlier`` and this report (bytes held as
        now)."""
        before = earlier.by_task()
        out = LoadReport()
        for t in self:
            b = before.get(t.task)
            if b is None:
                out.append(t)
                continue
            out.append(TaskLoad(t.task, t.bytes_held, t.variables, t.bytes_in - b.bytes_in,
                                t.bytes_out - b.bytes_out, t.steps - b.steps))
        return out

    def __str__(self) -> str:
        rows = [("task", "held", "vars", "steps", "in/step", "out/step")]
        for t in self:
            rows.append((t.task, _size(t.bytes_held), str(t.variables), str(t.steps),
                         _size(t.bytes_in_per_step), _size(t.bytes_out_per_step)))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        return "\n".join("  ".join(c.rjust(w) if i else c.ljust(w)
                                   for i, (c, w) in enumerate(zip(r, widths)))
                         for r in rows)


def _size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if abs(n) < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"


def load_report(session_or_cluster_name: Any, cluster: Any = None,
                jobs: tuple[str, ...] = ("ps",), timeout: float = 30.0) -> LoadReport:
    """The load of ``jobs``' tasks (the ps tasks by default): of a Ray session's cluster,
    or of the cluster named ``session_or_cluster_name`` whose ClusterSpec is ``cluster``
    (tasks never started are left out)."""
    from graphcore.train.server_lib import ClusterSpec
    from ray_runtime import actors

    if isinstance(session_or_cluster_name, str):
        if cluster is None:
            raise ValueError("load_report(cluster_name) needs the cluster's ClusterSpec")
        name = session_or_cluster_name
        spec = cluster if isinstance(cluster, ClusterSpec) else ClusterSpec(cluster)
    else:
        engine = getattr(session_or_cluster_name, "_engine", session_or_cluster_name)
        name, spec = engine.cluster_name, engine.cluster
    handles = []
    for job in jobs:
        if job not in spec.jobs:
            continue
        for task in spec.task_indices(job):
            try:
                handles.append(ray.get_actor(actors.actor_name(name, job, task),
                                             namespace=actors.NAMESPACE))
            except ValueError:  # not started
                pass
    loads = ray.get([h.load.remote() for h in handles], timeout=timeout)
    return LoadReport(TaskLoad(**d) for d in loads)


def log_load_report(engine: Any) -> None:
    """Logs the ps tasks' load of ``engine``'s cluster at INFO (when that is enabled)."""
    if not logger.isEnabledFor(logging.INFO) or "ps" not in engine.cluster.jobs:
        return
    try:
        report = load_report(engine, timeout=5.0)
    except Exception as e:  # a dead or busy actor: the report is only informative
        logger.info("ps load of cluster %s unavailable: %s", engine.cluster_name, e)
        return
    logger.info("ps load of cluster %s:\n%s", engine.cluster_name, report)
