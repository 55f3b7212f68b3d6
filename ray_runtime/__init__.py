"""ray_runtime: graphcore's distributed engine on Ray.

``tf.Session("ray://auto", config=...)`` partitions the graph over task actors, one per
task of the cluster (``tf.train.ClusterSpec``, from ``ConfigProto.cluster_def`` or
:func:`session` below): ps actors hold variables, worker actors run the compute, and
tensors cross partitions as Arrow messages in the Ray object store.
"""

from __future__ import annotations

from typing import Any

from ray_runtime.launch import launch, launched_cluster, wait_for_variables, worker_session
from ray_runtime.master import RayEngine

__all__ = ["RayEngine", "launch", "launched_cluster", "make_engine", "session", "shutdown_cluster",
           "wait_for_variables", "worker_session"]


def make_engine(target: str, config: Any = None) -> RayEngine:
    """The engine behind ``tf.Session(target)`` for ``ray://`` targets."""
    return RayEngine(target, config)


def session(target: str = "ray://auto", cluster: Any = None, graph: Any = None,
            config: Any = None, cluster_name: str | None = None,
            job_resources: dict[str, dict[str, float]] | None = None) -> Any:
    """A ``tf.Session`` on the Ray cluster ``target`` with the given ClusterSpec
    (``{"ps": 2, "worker": 2}`` or TF's job -> address lists).  Sessions that name the
    same ``cluster_name`` share task actors, and so variables (the target may also say
    ``ray://auto?cluster=<name>``).  ``job_resources`` sets what each job's task actors
    reserve, e.g. ``{"worker": {"num_cpus": 1}, "ps": {"num_cpus": 0.5}}`` (default:
    nothing reserved); it needs ``cluster_name``."""
    from graphcore.client.session import Session
    from graphcore.protobuf import config_pb2
    from graphcore.train.server_lib import ClusterSpec

    config = config_pb2.ConfigProto() if config is None else config
    if cluster is not None:
        config = config_pb2.ConfigProto.FromString(config.SerializeToString())
        config.cluster_def.CopyFrom(ClusterSpec(cluster).as_cluster_def())
    if job_resources is not None:
        if cluster_name is None:
            raise ValueError("job_resources needs a cluster_name")
        from ray_runtime import actors

        actors.set_job_resources(cluster_name, job_resources)
    if cluster_name is not None:
        target = f"{target}{'&' if '?' in target else '?'}cluster={cluster_name}"
    return Session(target, graph=graph, config=config)


def shutdown_cluster(cluster_name: str, jobs: dict[str, int] | None = None) -> int:
    """Kills the task actors of ``cluster_name`` (all tasks the engines of this process
    created for it, plus ``jobs`` = {job: task count} if given) and removes its
    placement group (multi-node clusters); returns how many actors it killed."""
    import ray

    from ray_runtime import actors

    names = set(actors.created_actor_names(cluster_name))
    for job, count in (jobs or {}).items():
        names.update(actors.actor_name(cluster_name, job, t) for t in range(count))
    killed = 0
    for name in names:
        try:
            ray.kill(ray.get_actor(name, namespace=actors.NAMESPACE))
            killed += 1
        except ValueError:
            pass
    actors.forget_cluster(cluster_name)
    actors.remove_placement_group(cluster_name)
    return killed
