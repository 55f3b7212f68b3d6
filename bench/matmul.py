"""A chain of four NxN float32 matmuls (N = 2048): GFLOP/s of graphcore vs numpy and TF.

``y = x @ w1 @ w2 @ w3 @ w4`` with x and the w's float32 variables initialized once
(graphcore, TF) or plain arrays (numpy); one call computes and fetches y.  GFLOP/s =
4 * 2 N^3 / seconds per call.  The results are checked against numpy's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bench import common

NAME = "matmul"
NEEDS_RAY = False


class GraphChain:
    def __init__(self, tf: Any, mats: list[np.ndarray]):
        self.graph = tf.Graph()
        with self.graph.as_default():
            vs = [tf.Variable(m, name=f"m{i}") for i, m in enumerate(mats)]
            y = vs[0]
            for w in vs[1:]:
                y = tf.matmul(y, w)
            self.y = y
            self.sess = tf.Session(graph=self.graph)
            self.sess.run(tf.global_variables_initializer())

    def __call__(self) -> np.ndarray:
        return self.sess.run(self.y)

    def close(self) -> None:
        self.sess.close()


def run(cfg: common.Config) -> list[dict[str, Any]]:
    import graphcore

    n = 256 if cfg.quick else 2048
    rng = np.random.default_rng(0)
    mats = [(rng.standard_normal((n, n)) / np.sqrt(n)).astype(np.float32) for _ in range(5)]

    def numpy_chain() -> np.ndarray:
        return mats[0] @ mats[1] @ mats[2] @ mats[3] @ mats[4]

    impls: dict[str, Any] = {"graphcore": GraphChain(graphcore, mats)}
    tf1 = common.import_tf() if cfg.use_tf else None
    if tf1 is not None:
        impls["tensorflow"] = GraphChain(tf1, mats)
    impls["numpy"] = numpy_chain
    try:
        ref = numpy_chain()
        for k, f in impls.items():
            np.testing.assert_allclose(f(), ref, rtol=1e-3, atol=1e-3, err_msg=k)
        samples = common.interleaved(impls, warmup=1 if cfg.quick else 2,
                                     repeats=cfg.reps(5), n=5 if cfg.quick else 1)
    finally:
        for f in impls.values():
            if hasattr(f, "close"):
                f.close()
    flop = 4 * 2 * n ** 3
    case = f"4 chained {n}x{n} f32 matmuls"
    rows = common.case_rows(NAME, case, "GFLOP/s", samples, higher_is_better=True,
                            invert=True, scale=flop / 1e9, goals={"numpy": ">= 0.9"})
    if tf1 is None:
        rows.append(common.skipped_row(NAME, case, "tensorflow", "not installed"))
    return rows
