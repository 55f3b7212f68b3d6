"""A chain of four NxN float32 matmuls (N = 2048): GFLOP/s of graphcore vs numpy and TF.

``y = x @ w1 @ w2 @ w3 @ w4`` with x and the w's float32 variables initialized once
(graphcore, TF) or plain arrays (numpy); one call computes and fetches y.  GFLOP/s =
4 * 2 N^3 / seconds per call.  Each implementation runs in a process of its own
(:mod:`bench.isolated`), so no library's threads compete with another's, and numpy runs
the fastest kernel its OpenBLAS detects (OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE removed
from its environment; where the machine sets them, numpy as forced is a row too).  The
goal compares graphcore with the better of TF and numpy.  Every result is checked
against numpy's.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

from bench import common, isolated

NAME = "matmul"
NEEDS_RAY = False
FACTORY = "bench.matmul:make_impl"


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


def make_mats(n: int) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [(rng.standard_normal((n, n)) / np.sqrt(n)).astype(np.float32) for _ in range(5)]


def _numpy_chain(mats: list[np.ndarray]) -> np.ndarray:
    return mats[0] @ mats[1] @ mats[2] @ mats[3] @ mats[4]


def make_impl(impl: str, n: int) -> tuple[Callable[[], Any], dict[str, Any]]:
    """One implementation, built in its benchmark child (checked against numpy)."""
    mats = make_mats(n)
    if impl == "numpy":
        fn: Callable[[], Any] = lambda: _numpy_chain(mats)  # noqa: E731
        blas = isolated.blas_kernel()
    elif impl == "graphcore":
        import graphcore
        from graphcore.kernels import blas as gc_blas

        fn = GraphChain(graphcore, mats)
        blas = gc_blas.info()["float32"].split(" (")[0]
    else:
        tf1 = common.import_tf()
        if tf1 is None:
            raise RuntimeError("TensorFlow is not installed")
        fn = GraphChain(tf1, mats)
        onednn = os.environ.get("TF_ENABLE_ONEDNN_OPTS", "default")
        blas = f"TF_ENABLE_ONEDNN_OPTS={onednn}"
    np.testing.assert_allclose(fn(), _numpy_chain(mats), rtol=1e-3, atol=1e-3, err_msg=impl)
    return fn, {"blas": blas}


def run(cfg: common.Config) -> list[dict[str, Any]]:
    n = 256 if cfg.quick else 2048
    impls = {"graphcore": isolated.Impl(FACTORY, {"impl": "graphcore", "n": n})}
    if cfg.use_tf and common.tf_installed():
        impls["tensorflow"] = isolated.Impl(FACTORY, {"impl": "tensorflow", "n": n})
    impls.update(isolated.numpy_anchors(FACTORY, {"n": n}))
    samples, infos = isolated.interleaved(impls, warmup=1 if cfg.quick else 2,
                                          repeats=cfg.reps(7), n=5 if cfg.quick else 1)
    # The goal is against the better anchor: the faster of TF and numpy's fastest kernel.
    best = min((k for k in ("tensorflow", "numpy") if k in samples),
               key=lambda k: sorted(samples[k])[len(samples[k]) // 2])
    case = f"4 chained {n}x{n} f32 matmuls"
    rows = common.case_rows(NAME, case, "GFLOP/s", samples, higher_is_better=True,
                            invert=True, scale=4 * 2 * n ** 3 / 1e9, goals={best: ">= 0.9"},
                            notes=isolated.child_notes(infos))
    if "tensorflow" not in impls:
        rows.append(common.skipped_row(NAME, case, "tensorflow", "not installed"))
    return rows
