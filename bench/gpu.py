"""GPU workloads (MLP step and matmul chain with CuPy kernels vs CuPy called directly):
only when CuPy and a GPU are present; otherwise one skipped row."""

from __future__ import annotations

from typing import Any

from bench import common

NAME = "gpu"
NEEDS_RAY = False


def gpu_available() -> str | None:
    """None when CuPy sees a GPU, else why not."""
    try:
        import cupy
    except ImportError:
        return "CuPy not installed"
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return "no GPU"
    except Exception as e:
        return f"no GPU ({type(e).__name__})"
    return None


def run(cfg: common.Config) -> list[dict[str, Any]]:
    reason = gpu_available()
    if reason is not None:
        return [common.skipped_row(NAME, "MLP + matmul chain on GPU", "graphcore", reason)]
    return _matmul(cfg)


def _matmul(cfg: common.Config) -> list[dict[str, Any]]:  # pragma: no cover - GPU
    import cupy

    import graphcore as tf

    n = 256 if cfg.quick else 2048
    rs = cupy.random.RandomState(0)
    mats = [rs.standard_normal((n, n), dtype=cupy.float32) for _ in range(5)]
    g = tf.Graph()
    with g.as_default(), tf.device("/device:GPU:0"):
        vs = [tf.Variable(cupy.asnumpy(m)) for m in mats]
        y = vs[0]
        for w in vs[1:]:
            y = tf.matmul(y, w)
        sess = tf.Session(graph=g)
        sess.run(tf.global_variables_initializer())

    def cupy_chain() -> Any:
        out = mats[0] @ mats[1] @ mats[2] @ mats[3] @ mats[4]
        cupy.cuda.Device().synchronize()
        return cupy.asnumpy(out)

    samples = common.interleaved({"graphcore": lambda: sess.run(y), "cupy": cupy_chain},
                                 warmup=2, repeats=cfg.reps(5), n=3)
    sess.close()
    return common.case_rows(NAME, f"4 chained {n}x{n} f32 matmuls (GPU)", "GFLOP/s",
                            samples, higher_is_better=True, invert=True,
                            scale=8 * n ** 3 / 1e9)
