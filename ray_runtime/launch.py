"""Between-graph replication: run a TF1-style ``main(task_index)`` in every worker task
(or an unmodified script in every task: :mod:`ray_runtime.script_launch`).

Each worker client builds the same graph with its own ``task_index`` (typically under
``tf.train.replica_device_setter(cluster=..., worker_device="/job:worker/task:<i>")``)
and opens ``ray_runtime.worker_session(...)``; all clients of one cluster name share
the ps task actors, so variables are shared by name.  The chief (task 0) initializes
them; the others wait until they are (as ``tf.train.Supervisor`` does).

    ray_runtime.launch(main, cluster={"ps": 2, "worker": 2})
    python -m ray_runtime.launch script.py --ps 2 --workers 2 [-- script args]

The CLI runs a script that defines ``main(task_index, ...)`` this way, any other script
whole in every task (see :mod:`ray_runtime.script_launch`), and removes the task actors
it created when it ends.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import signal
import sys
import time
from collections.abc import Callable
from typing import Any

import ray

from graphcore.train.server_lib import ClusterSpec
from ray_runtime import cluster as cluster_lib

__all__ = ["launch", "launched_cluster", "worker_session", "wait_for_variables"]


def worker_session(cluster: Any, task_index: int, cluster_name: str,
                   target: str = "ray://auto", graph: Any = None, config: Any = None) -> Any:
    """A session for worker ``task_index`` of a between-graph replicated job: unpinned
    ops run on that worker's task, variables live on the shared ps actors."""
    from ray_runtime.sessions import session

    return session(f"{target}{'&' if '?' in target else '?'}task={task_index}",
                   cluster=cluster, graph=graph, config=config, cluster_name=cluster_name)


def wait_for_variables(sess: Any, timeout: float = 300.0, poll: float = 0.2) -> None:
    """Blocks until every global variable is initialized (the chief's job)."""
    from graphcore.ops import variables

    report = variables.report_uninitialized_variables()
    deadline = time.time() + timeout
    while True:
        if len(sess.run(report)) == 0:
            return
        if time.time() > deadline:
            from graphcore.framework import errors

            raise errors.DeadlineExceededError(
                None, None, f"Variables still uninitialized after {timeout} s")
        time.sleep(poll)


def launched_cluster() -> tuple[ClusterSpec, str]:
    """Inside ``main`` run by :func:`launch`: the ClusterSpec and the cluster name it
    was launched with (what ``worker_session`` needs)."""
    import ast

    spec = os.environ.get("GRAPHCORE_CLUSTER_SPEC")
    if spec is None:
        raise RuntimeError("launched_cluster() is only defined inside main(task_index) "
                           "run by ray_runtime.launch")
    return ClusterSpec(ast.literal_eval(spec)), os.environ["GRAPHCORE_CLUSTER"]


def launch(main: Callable, cluster: Any, args: tuple = (), target: str = "ray://auto",
           cluster_name: str | None = None,
           job_resources: dict[str, dict[str, Any]] | None = None,
           placement_strategy: str | None = None) -> list:
    """Runs ``main(task_index, *args)`` once per worker task of ``cluster`` as Ray
    tasks, and returns their results in task order (any worker's error is raised).
    ``job_resources`` is what each job's task actors reserve, as for
    :func:`ray_runtime.session` (e.g. ``{"worker": {"num_cpus": 1}}``): every task
    actor is created here, before any main runs, so the workers' own sessions find
    them as sized; ``placement_strategy`` is the cluster's placement group strategy
    (``"STRICT_SPREAD"``: one node per task)."""
    cluster_lib.connect(target)
    spec = cluster if isinstance(cluster, ClusterSpec) else ClusterSpec(cluster)
    name = cluster_name or f"launch-{os.getpid()}-{int(time.time())}"
    from ray_runtime import actors

    if job_resources is not None:
        actors.set_job_resources(name, job_resources)
    if placement_strategy is not None:
        actors.set_placement_strategy(name, placement_strategy)
    env = {"GRAPHCORE_CLUSTER": name, "GRAPHCORE_CLUSTER_SPEC": repr(spec.as_dict())}
    # Each main runs inside its worker task's actor (found or created here, placed as
    # the master places it), so its session runs that task's partitions in-process.
    from ray_runtime.master import RayEngine

    engine = RayEngine(target, cluster=spec, cluster_name=name)
    refs = []
    for i in spec.task_indices("worker"):
        actor = engine._actors[f"/job:worker/replica:0/task:{i}"]
        refs.append(actor.run_main.remote(main, i, tuple(args), env))
    return ray.get(refs)


def _script_main(path: str) -> Callable:
    spec = importlib.util.spec_from_file_location("_graphcore_launched", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    from ray import cloudpickle  # Ray's own copy is the one that pickles task arguments

    cloudpickle.register_pickle_by_value(module)  # workers cannot import the script
    if not hasattr(module, "main"):
        raise SystemExit(f"{path} has no main(task_index) function")
    return module.main


def _interrupted(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def _cli(argv: list[str] | None = None) -> int:
    from ray_runtime import script_launch

    parser = argparse.ArgumentParser(
        prog="python -m ray_runtime.launch",
        description="Run a TF1 between-graph script on a Ray-backed cluster: a script "
                    "defining main(task_index, ...) runs it in every worker task; any other "
                    "script runs whole, as __main__, in every ps and worker task, with "
                    "--job_name/--task_index/--ps_hosts/--worker_hosts and TF_CONFIG.")
    parser.add_argument("script")
    parser.add_argument("--ps", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--target", default="ray://auto")
    parser.add_argument("--cluster-name", default=None)
    parser.add_argument("--job-resources", type=json.loads, default=None,
                        metavar="JSON", help='what each job\'s task actors reserve, e.g. '
                                             '\'{"worker": {"num_cpus": 1}}\'')
    parser.add_argument("--placement-strategy", default=None,
                        choices=["PACK", "SPREAD", "STRICT_PACK", "STRICT_SPREAD"],
                        help="the strategy of the task actors' placement group "
                             "(main mode; default SPREAD on several nodes)")
    parser.add_argument("--mode", choices=["auto", "main", "script"], default="auto",
                        help="main(task_index) or whole script (auto: main when the script "
                             "defines main(task_index, ...))")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds the whole run may take (script mode)")
    parser.add_argument("--start-timeout", type=float, default=60.0,
                        help="seconds every task actor may take to start (script mode)")
    parser.add_argument("--working-dir", action="store_true",
                        help="ship the script's directory with Ray's runtime_env (clusters "
                             "of several machines; by default the tasks import it from the "
                             "shared file system)")
    argv = list(sys.argv[1:] if argv is None else argv)
    # Everything after "--" is the script's own arguments.
    split = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:split])
    script_args = argv[split + 1:]
    with open(args.script) as f:
        main_mode = args.mode == "main" or (
            args.mode == "auto" and script_launch.is_main_script(f.read()))
    # `ray job stop` and kill send SIGTERM: end as on Ctrl-C, so the finally clauses
    # remove the task actors.
    signal.signal(signal.SIGTERM, _interrupted)
    if not main_mode:
        from graphcore.framework import errors

        try:
            status = script_launch.launch_script(
                args.script, script_args, args.ps, args.workers, args.target,
                args.cluster_name, args.timeout, args.start_timeout, args.job_resources,
                args.working_dir)
        except errors.OpError as e:  # a timeout or a start barrier: its message says all
            print(f"{type(e).__name__}: {e.message}", file=sys.stderr)
            return 1
        failed = {t: c for t, c in status.items() if c}
        for task, code in failed.items():
            print(f"task {task} exited with status {code}", file=sys.stderr)
        return 1 if failed else 0
    main = _script_main(args.script)
    name = args.cluster_name or f"launch-{os.getpid()}-{int(time.time())}"
    from ray_runtime import actors

    actors.set_owned(name)  # the task actors die with this job, however it ends
    try:
        results = launch(main, {"ps": args.ps, "worker": args.workers}, tuple(script_args),
                         args.target, name, args.job_resources, args.placement_strategy)
    finally:  # the CLI leaves no task actor behind
        from ray_runtime.sessions import shutdown_cluster

        shutdown_cluster(name, jobs={"ps": args.ps, "worker": args.workers})
    for i, r in enumerate(results):
        print(f"worker {i}: {r}")
    return 0


if __name__ == "__main__":
    sys.exit(_cli())
