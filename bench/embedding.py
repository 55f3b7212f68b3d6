"""A sharded embedding on 4 ps + 2 workers, asynchronous between-graph Adagrad: aggregate
steps/s of graphcore on a local Ray cluster with a 2M x 64 float32 table (512 MB) against
the same with a 20k-row table (the step must not grow with the table) and against TF's
gRPC runtime on the same 2M-row model (see bench/dist.py for the timing).

Both sides run the same TF1 model: ``emb`` [rows, 64] from ``fixed_size_partitioner(4)``
under ``replica_device_setter`` (one shard per ps task), ``embedding_lookup`` of a batch of
1024 ids (uniform over the table, "mod" strategy), a dense head 64-32-1 (ReLU) with a
squared loss, AdagradOptimizer(0.1). Each ps gathers the rows of its own ids and applies
their sparse update; what crosses the wire per step is those rows, their gradients and
the ids. The graphcore rows' notes give the bytes each ps moved per step (the load report,
ray_runtime/load.py).

    python -m bench.embedding tf-task --spec JSON --job ps|worker --task I --rows N (internal)
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import uuid
from typing import Any

import numpy as np

from bench import common, dist

NAME = "embedding"
NEEDS_RAY = True
ROWS, SMALL_ROWS, DIM, SHARDS, BATCH, HIDDEN, LR = 2_000_000, 20_000, 64, 4, 1024, 32, 0.1
N_WORKERS = 2
CLUSTER = {"ps": SHARDS, "worker": N_WORKERS}


def build_model(tf: Any, cluster: Any, task: int, rows: int) -> tuple[Any, Any, Any, Any]:
    with tf.device(tf.train.replica_device_setter(
            cluster=cluster, worker_device=f"/job:worker/task:{task}")):
        emb = tf.get_variable("emb", [rows, DIM],
                              initializer=tf.random_uniform_initializer(-0.05, 0.05, seed=1),
                              partitioner=tf.fixed_size_partitioner(SHARDS))
        w1 = tf.get_variable("w1", [DIM, HIDDEN],
                             initializer=tf.random_uniform_initializer(-0.2, 0.2, seed=2))
        b1 = tf.get_variable("b1", [HIDDEN], initializer=tf.zeros_initializer())
        w2 = tf.get_variable("w2", [HIDDEN, 1],
                             initializer=tf.random_uniform_initializer(-0.2, 0.2, seed=3))
        ids = tf.placeholder(tf.int64, [BATCH], name="ids")
        y = tf.placeholder(tf.float32, [BATCH, 1], name="y")
        hidden = tf.nn.relu(tf.matmul(tf.nn.embedding_lookup(emb, ids), w1) + b1)
        loss = tf.reduce_mean(tf.square(tf.matmul(hidden, w2) - y))
        train_op = tf.train.AdagradOptimizer(LR).minimize(loss)
    return ids, y, train_op, loss


def _batches(task: int, rows: int, n: int = 8) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.RandomState(100 + task)
    return [(rng.randint(0, rows, BATCH).astype(np.int64),
             rng.randn(BATCH, 1).astype(np.float32)) for _ in range(n)]


def _loop(sess: Any, model: Any, rows: int, task: int, n_workers: int, barrier: str,
          warmup: int, window_s: float, windows: int) -> dict[str, Any]:
    ids, y, train_op, _ = model
    batches = _batches(task, rows)
    state = {"i": 0}

    def step() -> None:
        bi, by = batches[state["i"] % len(batches)]
        state["i"] += 1
        sess.run(train_op, feed_dict={ids: bi, y: by})

    return dist.timed_loop(step, task, n_workers, barrier, warmup, window_s, windows)


# -- graphcore on Ray ---------------------------------------------------------------------


def gc_worker_main(task: int, rows: int, cluster_name: str, barrier: str, warmup: int,
                   window_s: float, windows: int) -> dict[str, Any]:
    import graphcore as tf
    import ray_runtime

    cluster = tf.train.ClusterSpec(CLUSTER)
    model = build_model(tf, cluster, task, rows)
    sess = ray_runtime.worker_session(cluster, task, cluster_name)
    try:
        if task == 0:
            sess.run(tf.global_variables_initializer())
        else:
            ray_runtime.wait_for_variables(sess, poll=0.05)
        result = _loop(sess, model, rows, task, N_WORKERS, barrier, warmup, window_s,
                       windows)
    finally:
        sess.close()
    return result


def run_graphcore(rows: int, warmup: int, window_s: float,
                  windows: int) -> tuple[list[float], Any]:
    """Aggregate steps/s per window, and the ps tasks' load report at the end."""
    import cloudpickle

    import bench.dist
    import bench.embedding
    import ray_runtime
    from ray_runtime import cluster as cluster_lib

    cluster_lib.connect("ray://auto")
    for mod in (bench.dist, bench.embedding, common):
        cloudpickle.register_pickle_by_value(mod)
    name = f"bench-emb-{uuid.uuid4().hex[:8]}"
    barrier = tempfile.mkdtemp(prefix="gc-bench-barrier-")
    try:
        results = ray_runtime.launch(gc_worker_main, CLUSTER,
                                     (rows, name, barrier, warmup, window_s, windows),
                                     cluster_name=name)
        report = ray_runtime.load_report(name, CLUSTER)
    finally:
        ray_runtime.shutdown_cluster(name, CLUSTER)
        shutil.rmtree(barrier, ignore_errors=True)
    return dist._rates(results, window_s), report


# -- TensorFlow gRPC ----------------------------------------------------------------------


def _tf_loop(tf1: Any, sess: Any, cluster: Any, args: argparse.Namespace,
             model: Any) -> dict[str, Any]:
    return _loop(sess, model, args.rows, args.task, len(cluster.job_tasks("worker")),
                 args.barrier, args.warmup, args.window, args.windows)


def main(argv: list[str] | None = None) -> None:
    p = dist.tf_task_parser()
    p.add_argument("--rows", type=int, required=True)
    args = p.parse_args(argv)
    dist.tf_task(args, build=lambda tf1, cluster, task: build_model(tf1, cluster, task,
                                                                    args.rows),
                 loop=_tf_loop)


# -- rows ---------------------------------------------------------------------------------


def _bytes_note(report: Any) -> str:
    """Bytes each ps moved per step (mean over the ps tasks) and what it held."""
    per_step = statistics.mean(t.bytes_in_per_step + t.bytes_out_per_step for t in report)
    held = statistics.mean(t.bytes_held for t in report)
    return f"per ps: {per_step / 1024:.0f} KB moved/step, {held / 2**20:.0f} MB held"


def run(cfg: common.Config) -> list[dict[str, Any]]:
    warmup, window_s, windows = (3, 0.5, 2) if cfg.quick else (20, 2.0, cfg.reps(5))
    rows = SMALL_ROWS * 5 if cfg.quick else ROWS
    case = f"{SHARDS}ps+{N_WORKERS}w async Adagrad emb {rows // 1000}k x {DIM} b{BATCH}"
    small = f"graphcore {SMALL_ROWS // 1000}k rows"
    samples: dict[str, list[float]] = {}
    notes: dict[str, str] = {}
    skipped: list[dict[str, Any]] = []
    if cfg.use_ray:
        for impl, n in (("graphcore", rows), (small, SMALL_ROWS)):
            samples[impl], report = run_graphcore(n, warmup, window_s, windows)
            notes[impl] = _bytes_note(report)
    else:
        skipped.append(common.skipped_row(NAME, case, "graphcore", "Ray disabled"))
    if cfg.use_tf and common.import_tf() is not None:
        samples["tensorflow"] = dist.run_tensorflow(
            N_WORKERS, warmup, window_s, windows, module="bench.embedding", n_ps=SHARDS,
            extra=("--rows", str(rows)))
        notes["tensorflow"] = "TF gRPC servers on 127.0.0.1"
    elif cfg.use_tf:
        skipped.append(common.skipped_row(NAME, case, "tensorflow", "not installed"))
    out = common.case_rows(NAME, case, "steps/s", samples, higher_is_better=True,
                           goals={"tensorflow": ">= 1.5", small: ">= 0.8"}, notes=notes)
    return out + skipped


if __name__ == "__main__":
    main()
