"""ray_runtime: graphcore's distributed engine on Ray.

``tf.Session("ray://auto", config=...)`` partitions the graph over task actors, one per
task of the cluster (``tf.train.ClusterSpec``, from ``ConfigProto.cluster_def`` or
:func:`session` below): ps actors hold variables, worker actors run the compute, and
tensors cross partitions as Arrow messages in the Ray object store.

Importing this package registers the ``ray://`` scheme with graphcore's engine registry
(:mod:`graphcore.runtime.engines`); the ``graphcore.engines`` entry point imports it the
first time a session asks for a ``ray://`` target.  It also registers the "ray" backend
of ``tf.train.Server`` (:mod:`ray_runtime.server`; entry point ``graphcore.servers``).
"""

from __future__ import annotations

from typing import Any

from graphcore.runtime import engines
from ray_runtime.launch import launch, launched_cluster, wait_for_variables, worker_session
from ray_runtime.load import LoadReport, TaskLoad, load_report
from ray_runtime.master import RayEngine
from ray_runtime.server import RayServer
from ray_runtime.sessions import session, shutdown_cluster

__all__ = ["LoadReport", "RayEngine", "RayServer", "TaskLoad", "launch", "launched_cluster",
           "load_report", "make_engine", "session", "shutdown_cluster", "wait_for_variables",
           "worker_session"]


def make_engine(target: str, config: Any = None) -> RayEngine:
    """The engine behind ``tf.Session(target)`` for ``ray://`` targets."""
    return RayEngine(target, config)


engines.register_engine("ray", make_engine)
