"""``tf.train.Server`` on a Ray cluster (the ``graphcore.servers`` backend "ray").

A Server made in a process that is on a Ray cluster (``RAY_ADDRESS`` set, a task the
launcher started, or any Ray actor) registers its task as the named actor
``graphcore/<cluster_name>/<job>/<task>``.  ``cluster_name`` is ``GRAPHCORE_CLUSTER``
when set, else a short hash of the ClusterSpec, so processes started by hand with the
same ``--ps_hosts/--worker_hosts`` meet.  The ``host:port`` strings are names: no port
is opened.  Sessions on ``server.target`` run on a RayEngine for that cluster with this
task as the default task (ps partitions run in the ps actors).  ``server.join()``
returns once the job is over (see :mod:`ray_runtime.job`); a ps process started by hand
then removes the cluster's actors, so nothing is left behind.

``GRAPHCORE_SERVER=local`` keeps every Server in process; ``GRAPHCORE_SERVER=ray``
takes Ray even in a driver that only called ``ray.init``.
"""

from __future__ import annotations

import ast
import atexit
import hashlib
import os
from typing import Any

import ray
from ray.exceptions import RayActorError

from graphcore.runtime import engines
from graphcore.train.server_lib import ClusterSpec
from ray_runtime import actors
from ray_runtime import cluster as cluster_lib
from ray_runtime import job as job_lib
from ray_runtime.master import RayEngine

# Set in the tasks ``python -m ray_runtime.launch`` runs: the launcher, not the
# ps's join(), removes the actors.
LAUNCHED_ENV = "GRAPHCORE_LAUNCHED"


def on_ray_cluster() -> bool:
    """Whether a Server made in this process should be a Ray task."""
    mode = os.environ.get("GRAPHCORE_SERVER", "")
    if mode in ("local", "ray"):
        return mode == "ray"
    if os.environ.get("RAY_ADDRESS") or os.environ.get(LAUNCHED_ENV):
        return True
    # Inside an actor, not a driver that called ray.init: a driver's in-process servers
    # (tests, notebooks) keep serving in process.
    return ray.is_initialized() and ray.get_runtime_context().get_actor_id() is not None


def cluster_name_for(cluster: ClusterSpec) -> str:
    """``GRAPHCORE_CLUSTER``, else ``tf-`` and a short hash of the ClusterDef bytes.  In a
    launched task, ``GRAPHCORE_CLUSTER`` names the launcher's cluster only: a Server of
    another ClusterSpec there (e.g. ``create_local_server()``) gets its hash."""
    name = os.environ.get("GRAPHCORE_CLUSTER")
    launched = os.environ.get("GRAPHCORE_CLUSTER_SPEC")
    if name and (launched is None or ClusterSpec(ast.literal_eval(launched)) == cluster):
        return name
    data = cluster.as_cluster_def().SerializeToString(deterministic=True)
    return "tf-" + hashlib.sha1(data).hexdigest()[:12]


class RayServer:
    """The Ray side of one ``tf.train.Server``: its task actor and the job state."""

    def __init__(self, server_def: Any):
        self.cluster = ClusterSpec(server_def.cluster)
        self.job = server_def.job_name
        self.task = int(server_def.task_index)
        self.task_name = f"/job:{self.job}/replica:0/task:{self.task}"
        self.cluster_name = cluster_name_for(self.cluster)
        cluster_lib.connect("ray://auto")
        handle = actors.get_or_create_actor(self.cluster_name, self.job, self.task)
        ray.get(handle.ping.remote(), timeout=60)
        self._coordinator = job_lib.coordinator_task(self.cluster)
        self._workers = job_lib.worker_tasks(self.cluster)
        self._launched = bool(os.environ.get(LAUNCHED_ENV))
        if not self._launched and self.job != job_lib.PS_JOB:
            atexit.register(self._task_done)  # a worker process that exits is done

    def _call(self, method: str, *args: Any) -> Any:
        """Calls the coordinator (in process when this process hosts it)."""
        job, task = self._coordinator
        impl = actors.local_impl(self.cluster_name, job, task)
        if impl is not None:
            return getattr(impl, method)(*args)
        handle = ray.get_actor(actors.actor_name(self.cluster_name, job, task),
                               namespace=actors.NAMESPACE)
        return ray.get(getattr(handle, method).remote(*args))

    def _notify(self, method: str) -> None:
        try:
            self._call(method, self.task_name)
        except (RayActorError, ValueError):  # the job is over and its actors are gone
            pass

    def _task_done(self) -> None:
        if ray.is_initialized():
            self._notify("job_task_done")

    def make_engine(self, config: Any) -> RayEngine:
        return _ServerEngine(self, config)

    def join(self, poll: float = 2.0) -> None:
        """Returns once every worker task's sessions have closed (or it is done); a ps
        started by hand then removes the cluster's task actors."""
        while True:
            try:
                if self._call("job_wait_over", self._workers, poll):
                    break
            except (RayActorError, ValueError):  # removed by another ps: over
                break
        if not self._launched:
            from ray_runtime.sessions import shutdown_cluster

            shutdown_cluster(self.cluster_name, jobs={
                job: max(self.cluster.task_indices(job)) + 1 for job in self.cluster.jobs})


class _ServerEngine(RayEngine):
    """A RayEngine whose sessions the job's coordinator counts."""

    def __init__(self, server: RayServer, config: Any):
        super().__init__(f"ray://auto?task={server.task}", config, cluster=server.cluster,
                         cluster_name=server.cluster_name, default_job=server.job)
        self._server: RayServer | None = server
        server._notify("job_session_opened")

    def close(self) -> None:
        super().close()
        server, self._server = self._server, None
        if server is not None and ray.is_initialized():
            server._notify("job_session_closed")


def make_server_backend(server_def: Any, config: Any = None) -> RayServer | None:
    """The ``graphcore.servers`` factory: a RayServer when on a Ray cluster, else None."""
    return RayServer(server_def) if on_ray_cluster() else None


engines.register_server_backend("ray", make_server_backend)
