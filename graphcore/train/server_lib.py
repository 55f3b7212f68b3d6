"""``tf.train.ClusterSpec``: the jobs and tasks of a cluster.

With the Ray runtime a task is a Ray actor, so only the task counts matter; the
addresses TF needs for its gRPC servers are kept (and ignored) for compatibility.
"""

from __future__ import annotations

from typing import Any

from graphcore.protobuf import cluster_pb2

__all__ = ["ClusterSpec"]


class ClusterSpec:
    """Job name -> tasks: ``{"ps": 2, "worker": 2}`` (counts), TF's
    ``{"ps": ["host:port", ...]}`` or ``{"worker": {0: "host:port"}}``, a ClusterDef,
    or another ClusterSpec."""

    def __init__(self, cluster: Any):
        self._jobs: dict[str, dict[int, str]] = {}
        if isinstance(cluster, ClusterSpec):
            self._jobs = {job: dict(tasks) for job, tasks in cluster._jobs.items()}
        elif isinstance(cluster, cluster_pb2.ClusterDef):
            for job in cluster.job:
                if job.name in self._jobs:
                    raise ValueError(f"Duplicate job name in cluster_def: {job.name}")
                self._jobs[job.name] = {int(i): addr for i, addr in job.tasks.items()}
        elif isinstance(cluster, dict):
            for job, tasks in cluster.items():
                if not isinstance(job, str) or not job:
                    raise TypeError(f"Job names must be non-empty strings, got {job!r}")
                if isinstance(tasks, int):
                    if tasks < 0:
                        raise ValueError(f"Job {job!r} has a negative task count {tasks}")
                    self._jobs[job] = {i: "" for i in range(tasks)}
                elif isinstance(tasks, (list, tuple)):
                    self._jobs[job] = {i: str(a) for i, a in enumerate(tasks)}
                elif isinstance(tasks, dict):
                    self._jobs[job] = {int(i): str(a) for i, a in tasks.items()}
                else:
                    raise TypeError(f"The tasks for job {job!r} must be a count, a list or "
                                    f"a dict, not {type(tasks).__name__}")
        else:
            raise TypeError("`cluster` must be a dictionary mapping one or more job names to "
                            "tasks, a `tf.train.ClusterDef` protocol buffer, or a "
                            "`tf.train.ClusterSpec` object")

    @property
    def jobs(self) -> list[str]:
        return list(self._jobs)

    def num_tasks(self, job_name: str) -> int:
        if job_name not in self._jobs:
            raise ValueError(f"No such job in cluster: {job_name!r}")
        return len(self._jobs[job_name])

    def task_indices(self, job_name: str) -> list[int]:
        if job_name not in self._jobs:
            raise ValueError(f"No such job in cluster: {job_name!r}")
        return sorted(self._jobs[job_name])

    def task_address(self, job_name: str, task_index: int) -> str:
        try:
            return self._jobs[job_name][task_index]
        except KeyError:
            raise ValueError(f"No task {task_index} in job {job_name!r}") from None

    def job_tasks(self, job_name: str) -> list[str]:
        tasks = self._jobs[job_name]
        return [tasks[i] for i in sorted(tasks)]

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for job, tasks in self._jobs.items():
            idx = sorted(tasks)
            out[job] = [tasks[i] for i in idx] if idx == list(range(len(idx))) else \
                {i: tasks[i] for i in idx}
        return out

    def as_cluster_def(self) -> cluster_pb2.ClusterDef:
        cd = cluster_pb2.ClusterDef()
        for job, tasks in self._jobs.items():
            jd = cd.job.add(name=job)
            for i, addr in tasks.items():
                jd.tasks[i] = addr
        return cd

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ClusterSpec) and self._jobs == other._jobs

    def __bool__(self) -> bool:
        return bool(self._jobs)

    def __repr__(self) -> str:
        return f"ClusterSpec({self.as_dict()!r})"
