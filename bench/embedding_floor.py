"""The Ray floor of the `embedding` step: its Ray calls without its compute.

    flock /tmp/gc-ray.lock python -m bench.embedding_floor [--repeats 3]

4 ps + 2 worker actors; per worker step, for each ps, one call carrying 256 ids and
answered with 256 x 64 float32 rows (graphcore's ``run_begin``), then one call carrying
the ids and the rows' gradients (``resume``): the 8 calls of graphcore's embedding step
(bench/README.md, "Two calls per ps"), issued to the 4 ps at once, with no gather, no
update and no dense head.  Prints aggregate steps/s per 1-s window (bench/dist.py's
timing), to compare with the `embedding` rows of a run just before or after.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from typing import Any

import numpy as np

from bench import dist

N_PS, N_WORKERS, IDS_PER_PS, DIM = 4, 2, 256, 64


class _Task:
    def setup(self) -> None:
        self.rows = np.random.default_rng(0).random((IDS_PER_PS, DIM), np.float32)

    def ps_begin(self, key: int, ids: np.ndarray) -> np.ndarray:
        return self.rows[:ids.size]

    def ps_resume(self, key: int, ids: np.ndarray, grads: np.ndarray) -> None:
        return None

    def worker_main(self, task: int, pss: list, barrier: str, warmup: int, window_s: float,
                    windows: int) -> dict[str, Any]:
        import ray

        rng = np.random.default_rng(task)
        ids = [rng.integers(0, 500_000, IDS_PER_PS) for _ in pss]
        grads = [rng.random((IDS_PER_PS, DIM), np.float32) for _ in pss]
        state = {"i": task << 32}

        def step() -> None:
            state["i"] += 1
            key = state["i"]
            ray.get([p.ps_begin.remote(key, i) for p, i in zip(pss, ids)])
            ray.get([p.ps_resume.remote(key, i, g) for p, i, g in zip(pss, ids, grads)])

        return dist.timed_loop(step, task, N_WORKERS, barrier, warmup, window_s, windows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    import cloudpickle
    import ray

    from ray_runtime import cluster as cluster_lib

    cluster_lib.connect("ray://auto")
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    actor = ray.remote(num_cpus=0, max_concurrency=32)(_Task)
    pss = [actor.remote() for _ in range(N_PS)]
    workers = [actor.remote() for _ in range(N_WORKERS)]
    ray.get([p.setup.remote() for p in pss])
    barrier = tempfile.mkdtemp(prefix="gc-bench-emb-floor-")
    try:
        for rep in range(args.repeats):
            path = os.path.join(barrier, str(rep))
            os.makedirs(path)
            results = ray.get([w.worker_main.remote(i, pss, path, 20, 1.0, 5)
                               for i, w in enumerate(workers)])
            rates = dist._rates(results, 1.0)
            print(f"floor steps/s per window: {rates}, median {sorted(rates)[len(rates) // 2]}")
    finally:
        for a in pss + workers:
            ray.kill(a)
        shutil.rmtree(barrier, ignore_errors=True)


if __name__ == "__main__":
    main()
