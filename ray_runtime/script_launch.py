"""Running an unmodified TF1 between-graph script on Ray: every task of the cluster (ps
and workers) is a task actor that executes the script as ``__main__``.

    python -m ray_runtime.launch mnist_replica.py --ps 1 --workers 2 -- --train_steps=100

Each task gets ``--job_name/--task_index/--ps_hosts/--worker_hosts`` appended when the
script mentions those flags (argparse, absl or ``tf.app.flags`` alike: the script text is
scanned for the names), and ``TF_CONFIG`` as TF sets it.  The hosts are names
(``localhost:2222``...): no port is opened; the script's ``tf.train.Server`` finds its
task actor by the cluster name the launcher sets (``GRAPHCORE_CLUSTER``).  Output lines
stream to the driver prefixed with their task (``[worker/1] ...``).  The script's
directory goes on ``sys.path`` in the tasks (the actors of a cluster on this machine
share its file system); ``working_dir=True`` ships it with Ray's runtime_env instead,
for clusters of several machines.  All actors the launcher created are removed when it
ends, fails, times out or is interrupted.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from typing import Any, TextIO

import ray

from graphcore.framework import errors
from graphcore.train.server_lib import ClusterSpec
from ray_runtime import actors
from ray_runtime import cluster as cluster_lib
from ray_runtime import job as job_lib
from ray_runtime.server import LAUNCHED_ENV

TF_FLAGS = ("job_name", "task_index", "ps_hosts", "worker_hosts")
FIRST_PORT = 2222


def is_main_script(source: str) -> bool:
    """Whether a script is written for ``launch(main)``: it defines
    ``main(task_index, ...)`` (the other scripts run whole, as ``__main__``)."""
    return re.search(r"^def main\(\s*task_index\b", source, re.MULTILINE) is not None


def script_flags(source: str) -> list[str]:
    """The TF cluster flags the script mentions (so defines), in TF_FLAGS order."""
    return [f for f in TF_FLAGS if re.search(rf"\b{f}\b", source)]


def cluster_hosts(ps: int, workers: int) -> dict[str, list[str]]:
    """Host names for the tasks (``localhost:2222``, then the next ports): names only."""
    hosts = [f"localhost:{FIRST_PORT + i}" for i in range(ps + workers)]
    out = {"ps": hosts[:ps], "worker": hosts[ps:]}
    return {job: h for job, h in out.items() if h}


def task_argv(flags: list[str], hosts: dict[str, list[str]], job: str, task: int) -> list[str]:
    values = {"job_name": job, "task_index": str(task),
              "ps_hosts": ",".join(hosts.get("ps", [])),
              "worker_hosts": ",".join(hosts.get("worker", []))}
    return [f"--{f}={values[f]}" for f in flags]


def tf_config(hosts: dict[str, list[str]], job: str, task: int) -> str:
    """TF_CONFIG as TF's cluster resolvers read it."""
    return json.dumps({"cluster": hosts, "task": {"type": job, "index": task},
                       "environment": "cloud"})


def launch_script(path: str, script_args: list[str] = (), ps: int = 1, workers: int = 2,
                  target: str = "ray://auto", cluster_name: str | None = None,
                  timeout: float | None = None, start_timeout: float = 60.0,
                  job_resources: dict[str, dict[str, Any]] | None = None,
                  working_dir: bool = False, out: TextIO | None = None) -> dict[str, int]:
    """Runs the script at ``path`` in every task of a ``ps``/``workers`` cluster and
    returns each task's exit status (``{"worker/0": 0, ...}``).  Raises
    DeadlineExceededError naming the tasks that did not start within ``start_timeout``
    or had not finished within ``timeout`` seconds."""
    out = out or sys.stdout
    with open(path) as f:
        source = f.read()
    cluster_lib.connect(target)
    name = cluster_name or f"launch-{os.getpid()}-{int(time.time())}"
    hosts = cluster_hosts(ps, workers)
    spec = ClusterSpec(hosts)
    flags = script_flags(source)
    tasks = [(job, i) for job in ("ps", "worker") for i in range(len(hosts.get(job, [])))]
    actors.set_owned(name)  # the task actors die with this job, however it ends
    if job_resources is not None:
        actors.set_job_resources(name, job_resources)
    if working_dir:
        actors.set_runtime_env(name, {"working_dir": os.path.dirname(os.path.abspath(path))})
    handles: dict[str, Any] = {}
    try:
        for job, i in tasks:
            res = actors.job_resources(name, job)
            handles[f"{job}/{i}"] = actors.get_or_create_actor(
                name, job, i, num_cpus=float(res.get("num_cpus", 0)),
                num_gpus=float(res.get("num_gpus", 0)), resources=res.get("resources"))
        _start_barrier(handles, start_timeout)
        base_env = {"GRAPHCORE_CLUSTER": name, "GRAPHCORE_CLUSTER_SPEC": repr(spec.as_dict()),
                    LAUNCHED_ENV: "1"}
        runs = {handles[f"{job}/{i}"].run_script.remote(
                    path, source, task_argv(flags, hosts, job, i) + list(script_args),
                    {**base_env, "TF_CONFIG": tf_config(hosts, job, i)}): f"{job}/{i}"
                for job, i in tasks}
        return _follow(runs, handles, spec, name, timeout, out)
    finally:
        from ray_runtime.sessions import shutdown_cluster

        shutdown_cluster(name, jobs={job: len(h) for job, h in hosts.items()})


def _start_barrier(handles: dict[str, Any], timeout: float) -> None:
    pings = {h.ping.remote(): task for task, h in handles.items()}
    ready, _ = ray.wait(list(pings), num_returns=len(pings), timeout=timeout)
    missing = sorted(pings[r] for r in pings if r not in ready)
    if missing:
        raise errors.DeadlineExceededError(
            None, None, f"Tasks never started within {timeout} s: {', '.join(missing)}")
    ray.get(ready)  # an actor that died starting raises here


def _follow(runs: dict[Any, str], handles: dict[str, Any], spec: ClusterSpec, name: str,
            timeout: float | None, out: TextIO, poll: float = 0.2) -> dict[str, int]:
    """Streams the tasks' output until they all end; ends the job (so the ps's join()
    returns) once every worker task has."""
    deadline = None if timeout is None else time.monotonic() + timeout
    workers = [t for t in runs.values() if not t.startswith(f"{job_lib.PS_JOB}/")]
    status: dict[str, int] = {}
    pending = dict(runs)
    job_ended = False
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=len(pending), timeout=poll)
        _print_output(handles, out)
        for ref in ready:
            status[pending.pop(ref)] = ray.get(ref)["exit"]
        if not job_ended and all(t in status for t in workers):
            job, index = job_lib.coordinator_task(spec)
            handles[f"{job}/{index}"].job_end.remote()
            job_ended = True
        if pending and deadline is not None and time.monotonic() > deadline:
            raise errors.DeadlineExceededError(
                None, None, f"Launched tasks still running after {timeout} s: "
                            f"{', '.join(sorted(pending.values()))}")
    return {t: status[t] for t in runs.values()}


def _print_output(handles: dict[str, Any], out: TextIO) -> None:
    """Writes the tasks' new output lines, each prefixed with its task."""
    tasks = list(handles)
    chunks = ray.get([handles[t].take_output.remote() for t in tasks])
    for task, lines in zip(tasks, chunks):
        for line in lines:
            out.write(f"[{task}] {line}\n")
    out.flush()
