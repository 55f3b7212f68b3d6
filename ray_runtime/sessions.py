"""Sessions on a Ray cluster: :func:`session` (a ``tf.Session`` with a ClusterSpec and
a cluster name) and :func:`shutdown_cluster` (kills that cluster's task actors)."""

from __future__ import annotations

from typing import Any


def session(target: str = "ray://auto", cluster: Any = None, graph: Any = None,
            config: Any = None, cluster_name: str | None = None,
            job_resources: dict[str, dict[str, Any]] | None = None,
            placement_strategy: str | None = None) -> Any:
    """A ``tf.Session`` on the Ray cluster ``target`` with the given ClusterSpec
    (``{"ps": 2, "worker": 2}`` or TF's job -> address lists).  Sessions that name the
    same ``cluster_name`` share task actors, and so variables (the target may also say
    ``ray://auto?cluster=<name>``).  ``job_resources`` sets what each job's task actors
    reserve, e.g. ``{"worker": {"num_cpus": 1}, "ps": {"num_cpus": 0.5}}`` (default:
    nothing reserved), with Ray custom resources as ``{"ps": {"resources": {"ps_host":
    0.01}}}``; ``placement_strategy`` (``"STRICT_SPREAD"``: one node per task) the
    strategy of the cluster's placement group.  Both need ``cluster_name``."""
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
    if placement_strategy is not None:
        if cluster_name is None:
            raise ValueError("placement_strategy needs a cluster_name")
        from ray_runtime import actors

        actors.set_placement_strategy(cluster_name, placement_strategy)
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
