"""A/B of the conv and pool kernels' oneDNN primitive path against their numpy path, in
one process, interleaved round by round (same load for both), on graphcore's convnet
cases: step times, then per op type the kernel times of FULL_TRACE step stats.

    python -m bench.conv_ab [deep|mobilenet|summaries ...] [--rounds 7] [--steps 5]
"""

from __future__ import annotations

import argparse
import os
import time
from collections import defaultdict

import numpy as np

CASES = {"deep": "deep-mnist", "summaries": "summaries", "mobilenet": "mobilenet"}
MODES = ("numpy", "oneDNN")


def _kernel_ms(sess_run_step) -> dict[str, float]:
    """Kernel wall time per op type (ms) in one traced step."""
    import graphcore as tf

    md = tf.RunMetadata()
    sess_run_step(options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                  run_metadata=md)
    per_op: dict[str, float] = defaultdict(float)
    for dev in md.step_stats.dev_stats:
        for node in dev.node_stats:
            op = node.timeline_label.split("(")[0].split(" = ")[-1].strip() or node.node_name
            per_op[op] += (node.all_end_rel_micros or node.op_end_rel_micros) / 1e3
    return per_op


def run_case(case: str, rounds: int, steps: int) -> None:
    from bench import convnet
    from graphcore.kernels import dnnl_primitives

    model, batches, _ = convnet.make_model("graphcore", case, quick=False)
    feeds = []
    for x, y in batches:
        if case == "mobilenet":
            feeds.append({model.x: x, model.y: y})
        else:
            feeds.append({model.x: x, model.y_: y, model.keep_prob: 0.5})
    fetch = model.train_op if getattr(model, "writer", None) is None else \
        [model.merged, model.train_op]

    def step(i: int, **kw) -> None:
        model.sess.run(fetch, feed_dict=feeds[i % len(feeds)], **kw)

    times: dict[str, list[float]] = {m: [] for m in MODES}
    kernels: dict[str, list[dict[str, float]]] = {m: [] for m in MODES}
    for mode in MODES:  # warm-up (plans, caches) of both paths
        dnnl_primitives.set_enabled(mode == "oneDNN")
        for i in range(3):
            step(i)
    for r in range(rounds):
        for mode in (MODES if r % 2 == 0 else MODES[::-1]):
            dnnl_primitives.set_enabled(mode == "oneDNN")
            for i in range(steps):
                t0 = time.perf_counter()
                step(i)
                times[mode].append((time.perf_counter() - t0) * 1e3)
            kernels[mode].append(_kernel_ms(lambda r=r, **kw: step(r, **kw)))
    dnnl_primitives.set_enabled(True)
    model.close()
    print(f"{case}: {rounds} rounds x {steps} steps, load {os.getloadavg()[0]:.1f}")
    for mode in MODES:
        t = np.array(times[mode])
        print(f"  {mode:7s} step median {np.median(t):7.2f} ms  p25 {np.percentile(t, 25):7.2f}"
              f"  min {t.min():7.2f}")
    ops = sorted({op for m in MODES for k in kernels[m] for op in k},
                 key=lambda op: -np.median([k.get(op, 0) for k in kernels["numpy"]]))
    print(f"  {'kernel (median of traced steps, ms)':40s} {'numpy':>8s} {'oneDNN':>8s}")
    for op in ops:
        a, b = (float(np.median([k.get(op, 0.0) for k in kernels[m]])) for m in MODES)
        if max(a, b) >= 0.3:
            print(f"  {op:40s} {a:8.2f} {b:8.2f}")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cases", nargs="*", default=["deep", "mobilenet"], choices=sorted(CASES))
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--steps", type=int, default=5)
    args = p.parse_args(argv)
    for case in args.cases:
        run_case(CASES[case], args.rounds, args.steps)


if __name__ == "__main__":
    main()
