"""``tf.train.ClusterSpec`` (the jobs and tasks of a cluster) and ``tf.train.Server``.

With the Ray runtime a task is a Ray actor, so only the task counts matter; the
addresses TF needs for its gRPC servers are kept as names: graphcore opens no port.
A Server made in this process serves its ``grpc://`` target in process (sessions on it
share its variables, as sessions on one TF server do); the scheme is registered with
:mod:`graphcore.runtime.engines`.  When a registered server backend takes the task
(:func:`graphcore.runtime.engines.make_server_backend`: ray_runtime's does when the
process is on a Ray cluster), the target's sessions and ``join()`` are the backend's.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any

from graphcore.framework import errors
from graphcore.protobuf import cluster_pb2, config_pb2, tensorflow_server_pb2
from graphcore.runtime import engines
from graphcore.runtime.devices import local_devices
from graphcore.runtime.engine import LocalEngine
from graphcore.runtime.resources import ResourceStore

__all__ = ["ClusterSpec", "Server", "ServerDef"]

ServerDef = tensorflow_server_pb2.ServerDef


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
        for job, tasks in sorted(self._jobs.items()):  # TF's order: jobs, then tasks
            jd = cd.job.add(name=job)
            for i in sorted(tasks):
                jd.tasks[i] = tasks[i]
        return cd

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ClusterSpec) and self._jobs == other._jobs

    def __bool__(self) -> bool:
        return bool(self._jobs)

    def __repr__(self) -> str:
        return f"ClusterSpec({self.as_dict()!r})"


# -- Server -------------------------------------------------------------------------------

_servers: dict[str, Server] = {}  # grpc target -> the server of this process serving it
_servers_lock = threading.Lock()
_local_ports = itertools.count(20000)


def _unused_local_address() -> str:
    """A ``localhost:port`` name no server of this process uses (no port is opened)."""
    with _servers_lock:
        while True:
            address = f"localhost:{next(_local_ports)}"
            if f"grpc://{address}" not in _servers:
                return address


def _server_def(server_or_cluster_def: Any, job_name: str | None, task_index: int | None,
                protocol: str | None, config: Any) -> tensorflow_server_pb2.ServerDef:
    """TF's ``_make_server_def``: a ServerDef from a ServerDef, ClusterDef, ClusterSpec
    or dict, with the job and task filled in when the cluster leaves no choice."""
    if isinstance(server_or_cluster_def, tensorflow_server_pb2.ServerDef):
        server_def = tensorflow_server_pb2.ServerDef()
        server_def.CopyFrom(server_or_cluster_def)
        if job_name is not None:
            server_def.job_name = job_name
        if task_index is not None:
            server_def.task_index = task_index
        if protocol is not None:
            server_def.protocol = protocol
        if config is not None:
            server_def.default_session_config.MergeFrom(config)
        return server_def
    cluster = ClusterSpec(server_or_cluster_def)
    if not cluster.jobs:
        raise ValueError("The cluster must have at least one job.")
    if job_name is None:
        if len(cluster.jobs) != 1:
            raise ValueError("Must specify an explicit `job_name`.")
        job_name = cluster.jobs[0]
    if task_index is None:
        indices = cluster.task_indices(job_name)
        if len(indices) != 1:
            raise ValueError("Must specify an explicit `task_index`.")
        task_index = indices[0]
    server_def = tensorflow_server_pb2.ServerDef(
        cluster=cluster.as_cluster_def(), job_name=job_name, task_index=task_index,
        protocol=protocol or "grpc")
    if config is not None:
        server_def.default_session_config.MergeFrom(config)
    return server_def


class Server:
    """An in-process server for one task of a cluster (TF's ``tf.train.Server``).

    ``target`` (``grpc://host:port`` from the ClusterSpec) makes sessions that run on this
    task's devices (``/job:<job>/replica:0/task:<i>``) and share its variables.
    ``join()`` returns once every session opened on the server has closed (TF's blocks
    forever).
    """

    def __init__(self, server_or_cluster_def: Any, job_name: str | None = None,
                 task_index: int | None = None, protocol: str | None = None,
                 config: config_pb2.ConfigProto | None = None, start: bool = True):
        self._server_def = _server_def(server_or_cluster_def, job_name, task_index,
                                       protocol, config)
        sd = self._server_def
        address = ClusterSpec(sd.cluster).task_address(sd.job_name, sd.task_index)
        if not address or address.endswith(":0"):
            address = _unused_local_address()
        self._target = f"grpc://{address}"
        # A backend (e.g. a Ray cluster's task actor) serving this task, else None.
        self._backend = engines.make_server_backend(sd, config)
        self.resources = ResourceStore(f"/job:{sd.job_name}/replica:0/task:{sd.task_index}")
        self._open_sessions = 0
        self._opened_any = False
        self._idle = threading.Condition()
        self._started = False
        if start:
            self.start()

    @property
    def server_def(self) -> tensorflow_server_pb2.ServerDef:
        return self._server_def

    @property
    def target(self) -> str:
        """The session target of this server: ``tf.Session(server.target)``."""
        return self._target

    def start(self) -> None:
        """Starts serving ``target`` in this process."""
        with _servers_lock:
            other = _servers.get(self._target)
            if other is not None and other is not self:
                raise errors.UnknownError(
                    None, None, f"Could not start server: {self._target} is already served "
                                "by another tf.train.Server in this process")
            _servers[self._target] = self
        self._started = True

    def join(self) -> None:
        """Blocks until the sessions opened on this server have all closed (with a
        backend: until the backend says the job is over)."""
        if self._backend is not None:
            self._backend.join()
            return
        with self._idle:
            while not self._opened_any or self._open_sessions:
                self._idle.wait()

    @staticmethod
    def create_local_server(config: config_pb2.ConfigProto | None = None,
                            start: bool = True) -> Server:
        """A single-task server (``/job:local/task:0``) on a fresh local address."""
        return Server({"local": [_unused_local_address()]}, protocol="grpc", config=config,
                      start=start)

    def _make_engine(self, config: config_pb2.ConfigProto | None) -> Any:
        merged = config_pb2.ConfigProto()
        merged.CopyFrom(self._server_def.default_session_config)
        if config is not None:
            merged.MergeFrom(config)
        if self._backend is not None:
            return self._backend.make_engine(merged)
        sd = self._server_def
        engine = _ServerEngine(self, merged, local_devices(merged, sd.job_name, sd.task_index))
        with self._idle:
            self._open_sessions += 1
            self._opened_any = True
        return engine

    def _session_closed(self) -> None:
        with self._idle:
            self._open_sessions -= 1
            self._idle.notify_all()


class _ServerEngine(LocalEngine):
    """A local engine over its server's devices and variables; closing it leaves them."""

    def __init__(self, server: Server, config: config_pb2.ConfigProto, devices: list):
        super().__init__(config, devices=devices, resources=server.resources)
        self._server: Server | None = server

    def close(self) -> None:
        super().close()
        server, self._server = self._server, None
        if server is not None:
            server._session_closed()


def _grpc_engine(target: str, config: Any) -> Any:
    with _servers_lock:
        server = _servers.get(target)
    if server is None:
        raise errors.UnavailableError(
            None, None, f"No tf.train.Server serves {target} in this process: graphcore "
                        "serves grpc:// targets of the servers a process starts itself (a "
                        "cluster of processes runs on Ray, with ray:// targets)")
    return server._make_engine(config)


engines.register_engine("grpc", _grpc_engine)
