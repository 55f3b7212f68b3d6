"""Connecting to a Ray cluster for ``tf.Session("ray://...")``.

``ray://auto``: the cluster this process is already connected to (inside a Ray task or
a driver that called ``ray.init``), else the one ``RAY_ADDRESS`` names, else an
embedded local cluster started here.  ``ray://local``: always an embedded cluster.
``ray://<address>``: ``ray.init(address=<address>)`` (a GCS address like
``127.0.0.1:6379``, or ``ray://host:10001`` for Ray Client given as
``ray://ray://host:10001``).
"""

from __future__ import annotations

import logging
import os
import threading

import ray

_lock = threading.Lock()
_log = logging.getLogger("ray_runtime")

# Settings for an embedded local cluster (small, as a laptop or CI needs).
EMBEDDED_OBJECT_STORE_BYTES = 256 * 1024 * 1024


def connect(target: str) -> None:
    """Makes sure this process is connected to the Ray cluster ``target`` names."""
    if not target.startswith("ray://"):
        raise ValueError(f"Not a Ray target: {target!r}")
    address = target[len("ray://"):]
    with _lock:
        if ray.is_initialized():
            return
        if address in ("", "auto"):
            env = os.environ.get("RAY_ADDRESS")
            if env:
                ray.init(address=env, namespace="graphcore", log_to_driver=False)
            else:
                _start_embedded()
        elif address == "local":
            _start_embedded()
        else:
            ray.init(address=address, namespace="graphcore", log_to_driver=False)


def _start_embedded() -> None:
    """Starts a local cluster: Ray's token authentication on (Ray turns it on for a new
    local cluster unless ``RAY_AUTH_MODE`` chose otherwise, and makes a token when there
    is none), the dashboard off unless ``GRAPHCORE_RAY_DASHBOARD=1``, and then on
    127.0.0.1 only."""
    num_cpus = int(os.environ.get("GRAPHCORE_RAY_CPUS", os.cpu_count() or 2))
    # Not set here: Ray reads the mode into this process's config when it turns it on
    # itself; a mode set in the environment by us would reach only the cluster's
    # processes, and this driver could not authenticate to them.
    mode = os.environ.get("RAY_AUTH_MODE", "token")
    if mode.lower() != "token":
        _log.warning("RAY_AUTH_MODE=%s: the embedded Ray cluster starts without token "
                     "authentication; anyone who can reach its ports can run code on it",
                     mode)
    ray.init(num_cpus=num_cpus, object_store_memory=EMBEDDED_OBJECT_STORE_BYTES,
             include_dashboard=os.environ.get("GRAPHCORE_RAY_DASHBOARD") == "1",
             dashboard_host="127.0.0.1", log_to_driver=False, namespace="graphcore",
             _system_config={"max_direct_call_object_size": 1 << 20})
