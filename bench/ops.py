"""Single ops, graphcore's kernels against TensorFlow's: ms per op application.

    python -m bench --only ops            (a row pair per op)
    python -m bench.ops IMPL OUT.json     (one implementation's table, in this process)

Each case applies one op (or a short TF1 idiom, e.g. a loss) to a [256, 1024] float32
tensor 8 times in a chain within one graph, fed by placeholders, and divides a step by 8:
per-step overhead amortized, the op's kernel time dominant.  Each implementation runs all
cases in a child process of its own (graphcore and TF each keep their threads), the
children alternating over a few rounds; a case's samples are the per-round medians.
Informational (no goals): it finds the kernels that fall behind TF's.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from bench import common

NAME = "ops"
NEEDS_RAY = False
SHAPE = (256, 1024)
CHAIN = 8
_ROOT = Path(__file__).resolve().parents[1]


def _bounded(y: Any, tf: Any) -> Any:
    return tf.clip_by_value(y, -3.0, 3.0)


# name -> (builder(tf, x, p) -> y of x's shape, whether each link is clipped to stay finite)
CASES: dict[str, tuple[Callable[[Any, Any, Any], Any], bool]] = {
    "exp": (lambda tf, x, p: tf.exp(x), True),
    "log": (lambda tf, x, p: tf.log(p + tf.abs(x)), False),
    "log1p": (lambda tf, x, p: tf.log1p(tf.abs(x)), False),
    "tanh": (lambda tf, x, p: tf.tanh(x), False),
    "sigmoid": (lambda tf, x, p: tf.sigmoid(x), False),
    "relu": (lambda tf, x, p: tf.nn.relu(x) - p, False),
    "softplus": (lambda tf, x, p: tf.nn.softplus(x) - p, False),
    "elu": (lambda tf, x, p: tf.nn.elu(x), False),
    "sqrt": (lambda tf, x, p: tf.sqrt(tf.abs(x)), False),
    "square": (lambda tf, x, p: tf.square(x), True),
    "add": (lambda tf, x, p: x + p, False),
    "mul": (lambda tf, x, p: x * p, True),
    "div": (lambda tf, x, p: x / p, True),
    "maximum_scalar": (lambda tf, x, p: tf.maximum(x, 0.5) - p, False),
    "clip_by_value": (lambda tf, x, p: tf.clip_by_value(x + p, -1.0, 1.0), False),
    "where": (lambda tf, x, p: tf.where(x > 0, x, p), False),
    "bias_add": (lambda tf, x, p: tf.nn.bias_add(x, p[0]), True),
    "reduce_sum_rows": (lambda tf, x, p: tf.reduce_sum(x, 0, keepdims=True) + p, True),
    "reduce_max_cols": (lambda tf, x, p: tf.reduce_max(x, 1, keepdims=True) - p, False),
    "softmax": (lambda tf, x, p: tf.nn.softmax(x), False),
    "log_softmax": (lambda tf, x, p: tf.nn.log_softmax(x), False),
    "softmax_xent": (lambda tf, x, p: x + tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=p / tf.reduce_sum(p, 1, keepdims=True), logits=x)[:, None], True),
    "sigmoid_xent": (lambda tf, x, p: tf.nn.sigmoid_cross_entropy_with_logits(
        labels=tf.sigmoid(p), logits=x), True),
    "transpose": (lambda tf, x, p: tf.reshape(tf.transpose(tf.reshape(x, [1024, 256])),
                                              [256, 1024]), False),
    "concat_slices": (lambda tf, x, p: tf.concat([x[:, :512], p[:, 512:]], 1), False),
    "gather_rows": (lambda tf, x, p: tf.gather(x, tf.range(255, -1, -1)), False),
    "one_hot": (lambda tf, x, p: tf.one_hot(tf.cast(p[:, 0] * 100, tf.int32) % 1024, 1024)
                + x, True),
    "dropout": (lambda tf, x, p: tf.nn.dropout(x, rate=0.5), True),
    "l2_normalize": (lambda tf, x, p: tf.nn.l2_normalize(x, 1), False),
    "cumsum": (lambda tf, x, p: tf.cumsum(x, 1), True),
    "random_uniform": (lambda tf, x, p: x + tf.random_uniform(SHAPE), True),
}


def measure(tf: Any, cases: list[str], repeats: int, warmup: int = 3) -> dict[str, float]:
    """Seconds per op application of each case (median of ``repeats`` steps)."""
    rng = np.random.default_rng(0)
    x_val = (rng.standard_normal(SHAPE) * 2).astype(np.float32)
    p_val = (np.abs(rng.standard_normal(SHAPE)) + 0.1).astype(np.float32)
    out = {}
    for name in cases:
        build, bounded = CASES[name]
        graph = tf.Graph()
        with graph.as_default():
            x = tf.placeholder(tf.float32, SHAPE)
            p = tf.placeholder(tf.float32, SHAPE)
            y = x
            for _ in range(CHAIN):
                y = build(tf, y, p)
                if bounded:
                    y = _bounded(y, tf)
            sess = tf.Session(graph=graph)
            feed = {x: x_val, p: p_val}
            for _ in range(warmup):
                sess.run(y, feed)
            times = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                sess.run(y, feed)
                times.append(time.perf_counter() - t0)
            sess.close()
        out[name] = statistics.median(times) / CHAIN
    return out


def _child(impl: str, out_path: str, cases: list[str], repeats: int) -> None:
    if impl == "graphcore":
        import graphcore as tf
    else:
        tf = common.import_tf()
    with open(out_path, "w") as f:
        json.dump(measure(tf, cases, repeats), f)


def _run_child(impl: str, cases: list[str], repeats: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "out.json")
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            filter(None, [str(_ROOT), os.environ.get("PYTHONPATH")])))
        subprocess.run([sys.executable, "-m", "bench.ops", impl, path, ",".join(cases),
                        str(repeats)], cwd=_ROOT, env=env, check=True,
                       stdout=subprocess.DEVNULL)
        with open(path) as f:
            return json.load(f)


def run(cfg: common.Config) -> list[dict[str, Any]]:
    cases = list(CASES)[:4] if cfg.quick else list(CASES)
    impls = ["graphcore"] + (["tensorflow"] if cfg.use_tf and common.tf_installed() else [])
    rounds = cfg.reps(3, quick=2)
    samples: dict[str, dict[str, list[float]]] = {c: {i: [] for i in impls} for c in cases}
    for _ in range(rounds):
        for impl in impls:
            for case, seconds in _run_child(impl, cases, 5 if cfg.quick else 15).items():
                samples[case][impl].append(seconds)
    rows: list[dict[str, Any]] = []
    for case in cases:
        rows.extend(common.case_rows(NAME, f"{case} [256,1024] f32", "ms/op", samples[case],
                                     scale=1e3))
        if "tensorflow" not in impls:
            rows.append(common.skipped_row(NAME, case, "tensorflow", "not installed"))
    return rows


if __name__ == "__main__":
    _child(sys.argv[1], sys.argv[2], sys.argv[3].split(","), int(sys.argv[4]))
