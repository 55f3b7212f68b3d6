"""Asynchronous between-graph SGD on 1 ps + N workers, for graphcore-on-Ray and TF gRPC.

Both sides run the same TF1 script (``worker_main``): worker ``i`` builds the digits MLP
(64-256-256-10, GradientDescent 0.1, its own batch of 256 per step) under
``replica_device_setter`` so the variables live on ``/job:ps/task:0`` and the compute on
``/job:worker/task:i``; the chief initializes the variables, the others wait for them;
then every worker runs ``sess.run(train_op, feed)`` in a loop without waiting for the
others (async SGD, as TF1's between-graph replication does).

  graphcore: ``ray_runtime.launch`` runs ``worker_main`` in one Ray task per worker,
             each with ``ray_runtime.worker_session`` (ps and worker task actors).
  tensorflow: one ``tf.distribute.Server`` process per task on free 127.0.0.1 ports; each
             worker process is also its client (``tf.Session(server.target)``).

Timing: after ``warmup`` steps every worker waits at a file barrier; from a common
wall-clock start T0 each worker counts the steps it finishes in ``windows`` fixed
windows of ``window_s`` seconds (all workers step through the whole span).  A window's
rate is the sum of all workers' steps in it / window_s; the rows report the median over
windows with min/max.

    python -m bench.dist tf-task --spec JSON --job ps|worker --task I [...]   (internal)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np

from bench import common

SIZES = (64, 256, 256, 10)
BATCH = 256
LR = 0.1


def _batches(task: int, n: int = 4) -> list[tuple[np.ndarray, np.ndarray]]:
    from bench.mlp import make_data

    data = make_data(SIZES, BATCH, "digits", seed=task)
    return data[:n]


def build_model(tf: Any, cluster: Any, task: int) -> tuple[Any, Any, Any, Any]:
    from bench.mlp import build_mlp, init_params

    with tf.device(tf.train.replica_device_setter(
            cluster=cluster, worker_device=f"/job:worker/task:{task}")):
        x, y, loss = build_mlp(tf, SIZES, init_params(SIZES))
        train_op = tf.train.GradientDescentOptimizer(LR).minimize(loss)
    return x, y, train_op, loss


def _wait_initialized(tf: Any, sess: Any, timeout: float = 120.0) -> None:
    report = tf.report_uninitialized_variables()
    deadline = time.time() + timeout
    while len(sess.run(report)):
        if time.time() > deadline:
            raise TimeoutError("variables not initialized by the chief")
        time.sleep(0.05)


def timed_loop(step: Any, task: int, n_workers: int, barrier: str, warmup: int,
               window_s: float, windows: int,
               traced_step: Any = None) -> dict[str, Any]:
    """Warm-up, file barrier, then steps counted per common wall-clock window.
    ``traced_step``: run once instead of ``step``, as the first step of the middle
    window (its result is returned as ``trace``)."""
    for _ in range(warmup):
        step()
    bdir = Path(barrier)
    (bdir / f"ready.{task}.tmp").write_text(repr(time.time()))
    os.replace(bdir / f"ready.{task}.tmp", bdir / f"ready.{task}")
    deadline = time.time() + 300
    while True:
        files = list(bdir.glob("ready.*[0-9]"))
        if len(files) >= n_workers:
            break
        if time.time() > deadline:
            raise TimeoutError("barrier: other workers never got ready")
        step()  # keep the others' contention realistic while waiting
    t0 = max(float(f.read_text()) for f in files) + 0.5
    end = t0 + windows * window_s
    counts = [0] * windows
    traced = None
    while True:
        if traced_step is not None and time.time() >= t0 + (windows // 2) * window_s:
            traced, traced_step = traced_step(), None
        else:
            step()
        now = time.time()
        if now >= end:
            break
        if now >= t0:
            counts[int((now - t0) // window_s)] += 1
    out = {"task": task, "counts": counts, "t0": t0}
    if traced is not None:
        out["trace"] = traced
    return out


# -- graphcore on Ray ---------------------------------------------------------------------


def gc_worker_main(task: int, n_workers: int, cluster_name: str, barrier: str,
                   warmup: int, window_s: float, windows: int,
                   trace: bool = False) -> dict[str, Any]:
    import graphcore as tf
    import ray_runtime

    cluster = tf.train.ClusterSpec({"ps": 1, "worker": n_workers})
    x, y, train_op, _ = build_model(tf, cluster, task)
    sess = ray_runtime.worker_session(cluster, task, cluster_name)
    try:
        if task == 0:
            sess.run(tf.global_variables_initializer())
        else:
            ray_runtime.wait_for_variables(sess, poll=0.05)
        return _run_loop(sess, x, y, train_op, task, n_workers, barrier, warmup,
                         window_s, windows, traced=trace and task == 0, tf=tf)
    finally:
        sess.close()


def _run_loop(sess: Any, x: Any, y: Any, train_op: Any, task: int, n_workers: int,
              barrier: str, warmup: int, window_s: float, windows: int,
              traced: bool = False, tf: Any = None) -> dict[str, Any]:
    batches = _batches(task)
    state = {"i": 0}

    def step(**kwargs: Any) -> None:
        bx, by = batches[state["i"] % len(batches)]
        state["i"] += 1
        sess.run(train_op, feed_dict={x: bx, y: by}, **kwargs)

    def traced_step() -> bytes:
        md = tf.RunMetadata()
        step(options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=md)
        return md.step_stats.SerializeToString()

    return timed_loop(step, task, n_workers, barrier, warmup, window_s, windows,
                      traced_step if traced else None)


def run_graphcore(n_workers: int, warmup: int, window_s: float,
                  windows: int, trace_path: str | None = None) -> list[float]:
    """Aggregate steps/s per window (``trace_path``: where worker 0 writes the Chrome
    trace of one step taken mid-run)."""
    import cloudpickle

    import bench.dist
    import bench.mlp
    import ray_runtime
    from ray_runtime import cluster as cluster_lib

    cluster_lib.connect("ray://auto")
    # Ray workers may not have the repository on sys.path: ship bench by value.
    for mod in (bench.dist, bench.mlp, common):
        cloudpickle.register_pickle_by_value(mod)
    name = f"bench-{uuid.uuid4().hex[:8]}"
    barrier = tempfile.mkdtemp(prefix="gc-bench-barrier-")
    try:
        results = ray_runtime.launch(
            gc_worker_main, {"ps": 1, "worker": n_workers},
            (n_workers, name, barrier, warmup, window_s, windows, bool(trace_path)),
            cluster_name=name)
    finally:
        ray_runtime.shutdown_cluster(name, {"ps": 1, "worker": n_workers})
        shutil.rmtree(barrier, ignore_errors=True)
    if trace_path:
        write_trace(results[0]["trace"], trace_path)
    return _rates(results, window_s)


def write_trace(step_stats: bytes, path: str) -> None:
    """The Chrome trace of a traced step's StepStats (bytes) to ``path``."""
    from graphcore.client import timeline

    Path(path).write_text(timeline.Timeline(step_stats).generate_chrome_trace_format())
    print(f"[bench] wrote the trace of one ps_async step to {path}", file=sys.stderr)


def _rates(results: list[dict[str, Any]], window_s: float) -> list[float]:
    windows = len(results[0]["counts"])
    return [sum(r["counts"][k] for r in results) / window_s for k in range(windows)]


# -- the Ray floor: the same actor calls, no compute --------------------------------------


def _param_arrays() -> list[np.ndarray]:
    from bench.mlp import init_params

    return init_params(SIZES)


class _FloorTask:
    """One task of the floor: the ps's side of a step, and a worker's loop of steps."""

    def ps_begin(self, step: int) -> list[np.ndarray]:
        """The ps side of one step's start: answer with the variables."""
        return self.params

    def ps_finish(self, step: int, grads: list[np.ndarray]) -> None:
        """The ps side of one step's end: take the gradients."""

    def set_params(self) -> None:
        self.params = _param_arrays()

    def worker_main(self, task: int, ps: Any, me: Any, n_workers: int, barrier: str,
                    warmup: int, window_s: float, windows: int) -> dict[str, Any]:
        import ray

        grads = _param_arrays()
        state = {"i": task << 32}

        def step() -> None:
            state["i"] += 1
            key = state["i"]
            ray.get(ps.ps_begin.remote(key))  # the variables
            ray.get(ps.ps_finish.remote(key, grads))

        return timed_loop(step, task, n_workers, barrier, warmup, window_s, windows)


def run_ray_floor(n_workers: int, warmup: int, window_s: float,
                  windows: int) -> list[float]:
    """Aggregate steps/s of the floor: per step exactly the Ray actor calls graphcore's
    between-graph step makes (the worker's ``run_begin`` of the ps partition, answered
    with the 6 variables, and its ``finish`` carrying the 6 gradients, all as numpy
    arrays), and no compute at all."""
    import cloudpickle
    import ray

    import bench.dist
    from ray_runtime import cluster as cluster_lib

    cluster_lib.connect("ray://auto")
    cloudpickle.register_pickle_by_value(bench.dist)
    actor_cls = ray.remote(num_cpus=0, max_concurrency=32)(_FloorTask)
    ps = actor_cls.remote()
    workers = [actor_cls.remote() for _ in range(n_workers)]
    barrier = tempfile.mkdtemp(prefix="gc-bench-floor-")
    try:
        ray.get(ps.set_params.remote())
        results = ray.get([w.worker_main.remote(i, ps, w, n_workers, barrier, warmup,
                                                window_s, windows)
                           for i, w in enumerate(workers)])
    finally:
        for a in [ps, *workers]:
            ray.kill(a)
        shutil.rmtree(barrier, ignore_errors=True)
    return _rates(results, window_s)


# -- TensorFlow gRPC ----------------------------------------------------------------------


def _mlp_task(tf1: Any, sess: Any, cluster: Any, args: argparse.Namespace,
              model: Any) -> dict[str, Any]:
    x, y, train_op, _ = model
    return _run_loop(sess, x, y, train_op, args.task, len(cluster.job_tasks("worker")),
                     args.barrier, args.warmup, args.window, args.windows)


def tf_task(args: argparse.Namespace, build: Any = build_model, loop: Any = _mlp_task) -> None:
    """One TF gRPC task: a ps serves until killed; a worker builds ``build(tf, cluster,
    task)`` (variables on the ps), the chief initializes it, and ``loop(tf, sess,
    cluster, args, model)`` times its steps; the result is printed as ``RESULT <json>``."""
    tf1 = common.import_tf()
    assert tf1 is not None, "TensorFlow is not installed"
    spec = json.loads(args.spec)
    cluster = tf1.train.ClusterSpec(spec)
    config = tf1.ConfigProto()
    if args.job == "worker":
        config.device_filters.extend(["/job:ps", f"/job:worker/task:{args.task}"])
    server = tf1.distribute.Server(cluster, job_name=args.job, task_index=args.task,
                                   config=config, start=True)
    if args.job == "ps":
        server.join()
        return
    model = build(tf1, cluster, args.task)
    with tf1.Session(server.target, config=config) as sess:
        if args.task == 0:
            sess.run(tf1.global_variables_initializer())
        else:
            _wait_initialized(tf1, sess)
        result = loop(tf1, sess, cluster, args, model)
    print("RESULT " + json.dumps(result), flush=True)
    # Leave without tearing down the gRPC server (it would wait on the ps).
    os._exit(0)


def run_tensorflow(n_workers: int, warmup: int, window_s: float,
                   windows: int, timeout: float = 300.0, module: str = "bench.dist",
                   n_ps: int = 1, extra: tuple[str, ...] = ()) -> list[float]:
    """Aggregate steps/s per window of ``module``'s ``tf-task`` (this module's digits MLP
    by default) on ``n_ps`` ps and ``n_workers`` worker TF servers; ``extra`` arguments go
    to every task."""
    ports = common.free_ports(n_ps + n_workers)
    spec = {"ps": [f"127.0.0.1:{p}" for p in ports[:n_ps]],
            "worker": [f"127.0.0.1:{p}" for p in ports[n_ps:]]}
    barrier = tempfile.mkdtemp(prefix="tf-bench-barrier-")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    root = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    procs: list[subprocess.Popen] = []

    def spawn(job: str, task: int) -> subprocess.Popen:
        cmd = [sys.executable, "-m", module, "tf-task", "--spec", json.dumps(spec),
               "--job", job, "--task", str(task), "--barrier", barrier,
               "--warmup", str(warmup), "--window", str(window_s),
               "--windows", str(windows), *extra]
        p = subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
        procs.append(p)
        return p

    try:
        for i in range(n_ps):
            spawn("ps", i)
        workers = [spawn("worker", i) for i in range(n_workers)]
        results = []
        deadline = time.time() + timeout
        for p in workers:
            out, err = p.communicate(timeout=max(1.0, deadline - time.time()))
            line = next((ln for ln in out.splitlines() if ln.startswith("RESULT ")), None)
            if p.returncode != 0 or line is None:
                raise RuntimeError(f"TF worker failed (rc={p.returncode}):\n{out}\n{err[-3000:]}")
            results.append(json.loads(line[len("RESULT "):]))
    finally:
        for p in procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait()
        shutil.rmtree(barrier, ignore_errors=True)
    return _rates(results, window_s)


# -- shared by ps_async and scaling -------------------------------------------------------

_cache: dict[tuple, list[float]] = {}


def measure(impl: str, n_workers: int, cfg: common.Config,
            trace_path: str | None = None) -> list[float]:
    warmup, window_s, windows = (3, 0.5, 2) if cfg.quick else (20, 2.0, cfg.reps(5))
    key = (impl, n_workers, warmup, window_s, windows)
    if key not in _cache:
        if impl == "graphcore":
            _cache[key] = run_graphcore(n_workers, warmup, window_s, windows, trace_path)
        else:
            fn = {"tensorflow": run_tensorflow, "ray floor": run_ray_floor}[impl]
            _cache[key] = fn(n_workers, warmup, window_s, windows)
    return _cache[key]


def local_step_s(steps: int = 150) -> list[float]:
    """Seconds per step of one worker's step (the same model, batch and update) in a
    local graphcore session with one intra-op thread, as a task actor runs it (Ray gives
    actors one OpenMP thread): the compute a distributed step adds to the floor."""
    import graphcore as tf

    batches = _batches(0)
    with tf.Graph().as_default():
        x, y, train_op, _ = build_model(tf, None, 0)
        config = tf.ConfigProto(intra_op_parallelism_threads=1)
        with tf.Session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
            times = []
            for i in range(steps):
                bx, by = batches[i % len(batches)]
                t0 = time.perf_counter()
                sess.run(train_op, {x: bx, y: by})
                times.append(time.perf_counter() - t0)
    return times[steps // 3:]


def rows_for(workload: str, case: str, n_workers: int, cfg: common.Config,
             goals: dict[str, str] | None = None, note: str | None = None,
             floor: bool = False, trace_path: str | None = None) -> list[dict]:
    """Rows of graphcore and TF gRPC (and, with ``floor``, the Ray floor: the same
    actor calls without compute, the most this transport allows; and the bound
    ``floor + compute``: each worker's floor step time plus the same step's local compute
    time, as steps/s over the workers)."""
    samples: dict[str, list[float]] = {}
    rows: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    impls = ["graphcore"] + (["tensorflow"] if cfg.use_tf else []) + \
        (["ray floor"] if floor else [])
    for impl in impls:
        if impl == "tensorflow" and common.import_tf() is None:
            skipped.append(common.skipped_row(workload, case, impl, "not installed"))
            continue
        if impl in ("graphcore", "ray floor") and not cfg.use_ray:
            skipped.append(common.skipped_row(workload, case, impl, "Ray disabled"))
            continue
        rates = measure(impl, n_workers, cfg, trace_path if impl == "graphcore" else None)
        # case_rows wants seconds-like samples to convert; these are rates already.
        samples[impl] = rates
    if "ray floor" in samples:
        compute = statistics.median(local_step_s(30 if cfg.quick else 150))
        samples["floor + compute"] = [n_workers / (n_workers / r + compute)
                                      for r in samples["ray floor"]]
    rows = common.case_rows(workload, case, "steps/s", samples, higher_is_better=True,
                            goals=goals)
    for r in rows:
        r["note"] = note
    return rows + skipped


def tf_task_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["tf-task"])
    p.add_argument("--spec", required=True)
    p.add_argument("--job", required=True)
    p.add_argument("--task", type=int, required=True)
    p.add_argument("--barrier", default="")
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--window", type=float, default=2.0)
    p.add_argument("--windows", type=int, default=5)
    return p


def main(argv: list[str] | None = None) -> None:
    tf_task(tf_task_parser().parse_args(argv))


if __name__ == "__main__":
    main()
