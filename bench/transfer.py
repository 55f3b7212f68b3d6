"""64 MiB ps -> worker transfer: graphcore vs raw Ray.

graphcore: a 64 MiB float32 variable on /job:ps/task:0 and, on /job:worker/task:0, a
one-element slice of it; one step = ``sess.run(slice)`` on a ``ray://`` session, which
moves the whole variable from the ps actor to the worker actor (Send/Recv) and fetches
4 bytes.  raw Ray: actor A holds the same array; one transfer =
``ray.get(B.consume.remote(A.produce.remote()))``: A returns the array (put into the
object store), B receives it (zero-copy read) and returns its first element.  Rate =
64 MiB / seconds per transfer.
"""

from __future__ import annotations

import uuid
from typing import Any

import numpy as np

from bench import common

NAME = "transfer"
NEEDS_RAY = True


class _Producer:
    def __init__(self, n: int):
        self.arr = np.ones(n, np.float32)

    def produce(self) -> np.ndarray:
        return self.arr


class _Consumer:
    def consume(self, arr: np.ndarray) -> float:
        return float(arr[0])


def build_graph(tf: Any, n: int) -> tuple[Any, Any, Any]:
    """(graph, init, fetch): an n-float variable on the ps and a 1-element slice of it on
    the worker, so that fetching the slice moves the whole variable ps -> worker."""
    graph = tf.Graph()
    with graph.as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(tf.ones([n], tf.float32), name="big")
        with tf.device("/job:worker/task:0"):
            y = tf.slice(v, [0], [1])
        init = tf.global_variables_initializer()
    return graph, init, y


def run(cfg: common.Config) -> list[dict[str, Any]]:
    import ray

    import graphcore as tf
    import ray_runtime
    from ray_runtime import cluster as cluster_lib

    nbytes = (4 if cfg.quick else 64) * 1024 * 1024
    n = nbytes // 4
    case = f"{nbytes >> 20} MiB ps->worker"
    cluster_lib.connect("ray://auto")

    name = f"bench-xfer-{uuid.uuid4().hex[:8]}"
    graph, init, y = build_graph(tf, n)
    sess = ray_runtime.session("ray://auto", cluster={"ps": 1, "worker": 1}, graph=graph,
                               cluster_name=name)
    producer = ray.remote(num_cpus=0)(_Producer).remote(n)
    consumer = ray.remote(num_cpus=0)(_Consumer).remote()
    try:
        sess.run(init)

        def gc_step() -> None:
            sess.run(y)

        def ray_step() -> None:
            ray.get(consumer.consume.remote(producer.produce.remote()))

        assert float(sess.run(y)[0]) == 1.0 and ray.get(
            consumer.consume.remote(producer.produce.remote())) == 1.0
        samples = common.interleaved({"graphcore": gc_step, "ray": ray_step},
                                     warmup=2 if cfg.quick else 5, repeats=cfg.reps(7),
                                     n=3 if cfg.quick else 5)
    finally:
        sess.close()
        ray_runtime.shutdown_cluster(name, {"ps": 1, "worker": 1})
        for a in (producer, consumer):
            ray.kill(a)
    return common.case_rows(NAME, case, "GB/s", samples, higher_is_better=True,
                            invert=True, scale=nbytes / 1e9, goals={"ray": ">= 0.8"})
