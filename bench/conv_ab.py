"""A/B of the conv, pool and batch norm kernels' oneDNN primitive path against their numpy
path, in one process, interleaved round by round (same load for both): on graphcore's
convnet cases, step times and per op type the kernel times of FULL_TRACE step stats; with
``kernels``, each op of those nets alone (one-op graphs, the nets' shapes).

    python -m bench.conv_ab [deep|mobilenet|summaries|kernels ...] [--rounds 7] [--steps 5]
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


def _kernel_cases(tf):
    """name -> a one-op graph's output, built in the default graph from variables."""
    rng = np.random.default_rng(0)

    def v(*shape):
        return tf.Variable(rng.standard_normal(shape).astype(np.float32))

    raw, same, s1, s2 = tf.raw_ops, "SAME", [1, 1, 1, 1], [1, 2, 2, 1]
    k2 = [1, 2, 2, 1]
    cases = {
        "deep conv1 Conv2D": lambda: raw.Conv2D(input=v(50, 28, 28, 1), filter=v(5, 5, 1, 32),
                                                strides=s1, padding=same),
        "deep conv1 BackpropFilter": lambda: raw.Conv2DBackpropFilter(
            input=v(50, 28, 28, 1), filter_sizes=[5, 5, 1, 32], out_backprop=v(50, 28, 28, 32),
            strides=s1, padding=same),
        "deep conv2 Conv2D": lambda: raw.Conv2D(input=v(50, 14, 14, 32),
                                                filter=v(5, 5, 32, 64), strides=s1, padding=same),
        "deep conv2 BackpropInput": lambda: raw.Conv2DBackpropInput(
            input_sizes=[50, 14, 14, 32], filter=v(5, 5, 32, 64),
            out_backprop=v(50, 14, 14, 64), strides=s1, padding=same),
        "deep conv2 BackpropFilter": lambda: raw.Conv2DBackpropFilter(
            input=v(50, 14, 14, 32), filter_sizes=[5, 5, 32, 64],
            out_backprop=v(50, 14, 14, 64), strides=s1, padding=same),
    }
    for name, shape in (("pool1", (50, 28, 28, 32)), ("pool2", (50, 14, 14, 64))):
        out = (shape[0], shape[1] // 2, shape[2] // 2, shape[3])
        cases[f"deep {name} MaxPool"] = lambda shape=shape: raw.MaxPool(
            input=v(*shape), ksize=k2, strides=s2, padding=same)
        cases[f"deep {name} MaxPoolGrad"] = lambda shape=shape, out=out: raw.MaxPoolGrad(
            orig_input=v(*shape), orig_output=v(*out), grad=v(*out), ksize=k2, strides=s2,
            padding=same)
    cases["mobilenet conv0 Conv2D"] = lambda: raw.Conv2D(
        input=v(64, 32, 32, 3), filter=v(3, 3, 3, 32), strides=s2, padding=same)
    for name, shape, st in (("dw1", (64, 16, 16, 32), s1), ("dw2", (64, 16, 16, 64), s2)):
        out = (64, 16 // st[1], 16 // st[1], shape[3])
        w = (3, 3, shape[3], 1)
        cases[f"mobilenet {name} Depthwise"] = lambda shape=shape, st=st, w=w: \
            raw.DepthwiseConv2dNative(input=v(*shape), filter=v(*w), strides=st, padding=same)
        cases[f"mobilenet {name} BackpropInput"] = lambda shape=shape, st=st, w=w, out=out: \
            raw.DepthwiseConv2dNativeBackpropInput(input_sizes=list(shape), filter=v(*w),
                                                   out_backprop=v(*out), strides=st,
                                                   padding=same)
        cases[f"mobilenet {name} BackpropFilter"] = lambda shape=shape, st=st, w=w, out=out: \
            raw.DepthwiseConv2dNativeBackpropFilter(input=v(*shape), filter_sizes=list(w),
                                                    out_backprop=v(*out), strides=st,
                                                    padding=same)
    for name, shape in (("bn0", (64, 16, 16, 32)), ("bn2", (64, 16, 16, 64)),
                        ("bn4", (64, 8, 8, 128))):
        c = shape[3]
        cases[f"mobilenet {name} FusedBatchNormV3"] = lambda shape=shape, c=c: \
            raw.FusedBatchNormV3(x=v(*shape), scale=v(c), offset=v(c), mean=v(0),
                                 variance=v(0), is_training=True)[0]
        cases[f"mobilenet {name} FusedBatchNormGradV3"] = lambda shape=shape, c=c: \
            raw.FusedBatchNormGradV3(y_backprop=v(*shape), x=v(*shape), scale=v(c),
                                     reserve_space_1=v(c), reserve_space_2=tf.abs(v(c)),
                                     reserve_space_3=v(c), is_training=True)[0]
    cases["mobilenet AvgPool"] = lambda: raw.AvgPool(
        value=v(64, 8, 8, 128), ksize=[1, 8, 8, 1], strides=[1, 8, 8, 1], padding="VALID")
    cases["mobilenet AvgPoolGrad"] = lambda: raw.AvgPoolGrad(
        orig_input_shape=[64, 8, 8, 128], grad=v(64, 1, 1, 128), ksize=[1, 8, 8, 1],
        strides=[1, 8, 8, 1], padding="VALID")
    return cases


def run_kernels(rounds: int, steps: int) -> None:
    import graphcore as tf
    from graphcore.kernels import dnnl_primitives

    print(f"kernels alone: {rounds} rounds x {steps} runs, median ms, "
          f"load {os.getloadavg()[0]:.1f}")
    print(f"  {'kernel':40s} {'numpy':>8s} {'oneDNN':>8s}  speed-up")
    for name, build in _kernel_cases(tf).items():
        with tf.Graph().as_default():
            out = build()
            sess = tf.Session()
            sess.run(tf.global_variables_initializer())
            times: dict[str, list[float]] = {m: [] for m in MODES}
            for mode in MODES:
                dnnl_primitives.set_enabled(mode == "oneDNN")
                sess.run(out)
            for r in range(rounds):
                for mode in (MODES if r % 2 == 0 else MODES[::-1]):
                    dnnl_primitives.set_enabled(mode == "oneDNN")
                    for _ in range(steps):
                        t0 = time.perf_counter()
                        sess.run(out)
                        times[mode].append((time.perf_counter() - t0) * 1e3)
            sess.close()
        dnnl_primitives.set_enabled(True)
        a, b = (float(np.median(times[m])) for m in MODES)
        print(f"  {name:40s} {a:8.2f} {b:8.2f}  {a / b:5.2f}x")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cases", nargs="*", default=["deep", "mobilenet"],
                   choices=sorted(CASES) + ["kernels"])
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--steps", type=int, default=5)
    args = p.parse_args(argv)
    for case in args.cases:
        if case == "kernels":
            run_kernels(args.rounds, args.steps)
        else:
            run_case(CASES[case], args.rounds, args.steps)


if __name__ == "__main__":
    main()
