"""Per-call ``Session.run`` overhead on tiny graphs: graphcore vs TensorFlow compat.v1.

Each workload is built from the same script text for both libraries (parameterized by
the module ``tf``), in a fresh ``tf.Graph``, and run through ``sess.run`` and
``sess.make_callable``.  Timing: a warm-up, then R repetitions of a loop of N calls;
each repetition gives one per-call time (loop time / N).  The table reports the
median over repetitions with min/max, and the ratio graphcore/TF of the medians.
Repetitions of the two libraries are interleaved so drift hits both alike.

    python bench/overhead.py [--quick] [--out bench/results/overhead.json] [--no-tf]
    python -m bench.overhead ...

TensorFlow is used only when importable (``tensorflow.compat.v1``, graph mode via
``tf.Graph().as_default()`` and ``tf.Session(graph=g)``); it is never reached
through graphcore.  Without it only graphcore rows are printed and ratios are n/a.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

DEFAULT_OUT = Path(__file__).resolve().parent / "results" / "overhead.json"

NOTES = [
    "feed: y = x*2+1 is written tf.add(tf.add(x, x), 1.0) for both libraries "
    "(graphcore has no Mul yet)",
    "per-call time = wall time of a loop of N calls / N (perf_counter_ns); "
    "median/min/max over R repetitions; GC left enabled",
    "ratio = graphcore median / tensorflow median (lower is better for graphcore; "
    "goal <= 0.5)",
]

# -- workloads (the same text for both libraries) ----------------------------------------

# Each builder takes the module ``tf`` and a session, builds its graph in the session's
# graph (the caller has made it the default) and returns (run_fn, callable_fn):
# zero-argument functions doing one sess.run / one make_callable call.


def build_counter(tf: Any, sess: Any) -> tuple[Callable, Callable]:
    """(a) counter increment: fetch the result of assign_add."""
    v = tf.Variable(0)
    inc = tf.assign_add(v, 1)
    sess.run(tf.global_variables_initializer())
    call = sess.make_callable(inc)
    return (lambda: sess.run(inc)), call


def build_feed(tf: Any, sess: Any) -> tuple[Callable, Callable]:
    """(b) y = x*2+1 on a fed 4-float placeholder (as add(add(x, x), 1.0))."""
    x = tf.placeholder(tf.float32, shape=[4])
    y = tf.add(tf.add(x, x), 1.0)
    value = np.arange(4, dtype=np.float32)
    feed = {x: value}
    call = sess.make_callable(y, [x])
    return (lambda: sess.run(y, feed_dict=feed)), (lambda: call(value))


def build_fetch10(tf: Any, sess: Any) -> tuple[Callable, Callable]:
    """(c) a list fetch of 10 small tensors, each tf.add(c_i, 1)."""
    outs = [tf.add(tf.constant([float(i), float(i) + 0.5]), 1.0) for i in range(10)]
    call = sess.make_callable(outs)
    return (lambda: sess.run(outs)), call


WORKLOADS: dict[str, tuple[str, Callable]] = {
    "counter": ("(a) v=Variable(0); run assign_add(v, 1)", build_counter),
    "feed": ("(b) y=add(add(x,x),1.0), x: float32[4] fed", build_feed),
    "fetch10": ("(c) fetch list of 10 add(c_i, 1)", build_fetch10),
}

# Sanity checks of one call's result, so a broken workload cannot time as "fast".
EXPECTED = {
    "feed": lambda out: np.allclose(out, [1.0, 3.0, 5.0, 7.0]),
    "fetch10": lambda out: len(out) == 10 and np.allclose(out[3], [4.0, 4.5]),
    "counter": lambda out: int(out) > 0,
}


# -- libraries ---------------------------------------------------------------------------


def load_libraries(use_tf: bool) -> tuple[dict[str, Any], dict[str, str]]:
    """{label: tf-like module} and their versions."""
    import graphcore

    libs: dict[str, Any] = {"graphcore": graphcore}
    versions = {"graphcore": getattr(graphcore, "__version__", "unknown")}
    if use_tf:
        try:
            os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
            import tensorflow

            libs["tensorflow"] = tensorflow.compat.v1
            versions["tensorflow"] = tensorflow.__version__
        except Exception as e:  # ImportError, or a broken install
            versions["tensorflow"] = f"unavailable ({type(e).__name__})"
    else:
        versions["tensorflow"] = "disabled (--no-tf)"
    return libs, versions


class Harness:
    """One library's graph + session + the two call functions of a workload."""

    def __init__(self, tf: Any, builder: Callable):
        self.graph = tf.Graph()
        with self.graph.as_default():
            self.sess = tf.Session(graph=self.graph)
            self.run_fn, self.callable_fn = builder(tf, self.sess)

    def fn(self, mode: str) -> Callable:
        return self.run_fn if mode == "run" else self.callable_fn

    def close(self) -> None:
        self.sess.close()


def time_loop(fn: Callable, n: int) -> float:
    """Per-call microseconds over a loop of ``n`` calls."""
    r = range(n)
    t0 = time.perf_counter_ns()
    for _ in r:
        fn()
    return (time.perf_counter_ns() - t0) / n / 1e3


def summarize(samples: list[float]) -> dict[str, Any]:
    return {"median_us": statistics.median(samples), "min_us": min(samples),
            "max_us": max(samples), "samples_us": samples}


def bench_workload(name: str, libs: dict[str, Any], warmup: int, n: int,
                   repeats: int) -> list[dict[str, Any]]:
    desc, builder = WORKLOADS[name]
    harnesses = {label: Harness(tf, builder) for label, tf in libs.items()}
    rows = []
    try:
        for mode in ("run", "make_callable"):
            samples: dict[str, list[float]] = {label: [] for label in harnesses}
            for label, h in harnesses.items():
                fn = h.fn(mode)
                out = fn()
                if not EXPECTED[name](out):
                    raise AssertionError(f"{label} {name}/{mode} returned {out!r}")
                for _ in range(warmup):
                    fn()
            for _ in range(repeats):  # interleave the libraries per repetition
                for label, h in harnesses.items():
                    samples[label].append(time_loop(h.fn(mode), n))
            row: dict[str, Any] = {"workload": name, "description": desc, "mode": mode}
            for label in ("graphcore", "tensorflow"):
                row[label] = summarize(samples[label]) if label in samples else None
            tf_row = row["tensorflow"]
            row["ratio"] = (row["graphcore"]["median_us"] / tf_row["median_us"]
                            if tf_row else None)
            rows.append(row)
    finally:
        for h in harnesses.values():
            h.close()
    return rows


# -- reporting ---------------------------------------------------------------------------


def machine_info(versions: dict[str, str]) -> dict[str, Any]:
    return {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor() or "unknown",
        "cpu_count": os.cpu_count(),
        "python": sys.version.split()[0],
        "python_implementation": platform.python_implementation(),
        "numpy": np.__version__,
        **versions,
    }


def _cell(stats: dict[str, Any] | None) -> str:
    if stats is None:
        return "n/a"
    return f"{stats['median_us']:8.1f} [{stats['min_us']:.1f}-{stats['max_us']:.1f}]"


def format_table(result: dict[str, Any]) -> str:
    info = result["machine"]
    cfg = result["config"]
    lines = [
        "Session.run per-call overhead (microseconds per call: median [min-max])",
        f"platform: {info['platform']}  cpus: {info['cpu_count']}  python: {info['python']}  "
        f"numpy: {info['numpy']}",
        f"graphcore: {info['graphcore']}  tensorflow: {info['tensorflow']}",
        f"warmup={cfg['warmup']}  N={cfg['n']} calls/loop  R={cfg['repeats']} loops",
        "",
    ]
    header = ["workload", "mode", "graphcore us", "tensorflow us", "gc/tf"]
    body = []
    for row in result["rows"]:
        ratio = "n/a" if row["ratio"] is None else f"{row['ratio']:.2f}x"
        body.append([row["workload"], row["mode"], _cell(row["graphcore"]),
                     _cell(row["tensorflow"]), ratio])
    widths = [max(len(r[i]) for r in [header] + body) for i in range(len(header))]
    fmt = "  ".join(f"{{:<{w}}}" if i < 2 else f"{{:>{w}}}" for i, w in enumerate(widths))
    lines.append(fmt.format(*header))
    lines.append("  ".join("-" * w for w in widths))
    lines.extend(fmt.format(*r) for r in body)
    lines.append("")
    lines.extend(f"{name}: {desc}" for name, (desc, _) in WORKLOADS.items())
    lines.extend(f"note: {n}" for n in NOTES)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON results path")
    p.add_argument("--quick", action="store_true", help="smoke run: tiny N and R")
    p.add_argument("--no-tf", action="store_true", help="skip TensorFlow even if installed")
    p.add_argument("-n", type=int, default=None, help="calls per timed loop (default 2000)")
    p.add_argument("-r", "--repeats", type=int, default=None, help="timed loops (default 7)")
    p.add_argument("--warmup", type=int, default=None, help="warm-up calls (default 200)")
    p.add_argument("--workloads", nargs="+", choices=list(WORKLOADS), default=list(WORKLOADS))
    args = p.parse_args(argv)
    n, repeats, warmup = (50, 3, 10) if args.quick else (2000, 7, 200)
    n = args.n or n
    repeats = args.repeats or repeats
    warmup = args.warmup if args.warmup is not None else warmup

    libs, versions = load_libraries(not args.no_tf)
    rows = []
    for name in args.workloads:
        rows.extend(bench_workload(name, libs, warmup, n, repeats))
    result = {
        "benchmark": "session_run_overhead",
        "machine": machine_info(versions),
        "config": {"n": n, "repeats": repeats, "warmup": warmup, "quick": args.quick,
                   "libraries": list(libs)},
        "notes": NOTES,
        "workloads": {name: WORKLOADS[name][0] for name in args.workloads},
        "rows": rows,
    }
    print(format_table(result))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nwrote {args.out}")
    return result


# -- the suite's "tiny" workload (python -m bench --only tiny) ----------------------------

NAME = "tiny"
NEEDS_RAY = False


def run(cfg: Any) -> list[dict[str, Any]]:
    """Rows for bench/run.py: per-call microseconds, graphcore vs TensorFlow."""
    from bench import common

    n, repeats, warmup = (50, 3, 10) if cfg.quick else (2000, 7, 200)
    repeats = cfg.repeats or repeats
    libs, _ = load_libraries(cfg.use_tf)
    rows: list[dict[str, Any]] = []
    for name in WORKLOADS:
        for r in bench_workload(name, libs, warmup, n, repeats):
            samples = {label: r[label]["samples_us"] for label in ("graphcore", "tensorflow")
                       if r[label] is not None}
            case = f"{name} sess.{'run' if r['mode'] == 'run' else 'make_callable()'}"
            rows.extend(common.case_rows(NAME, case, "us/call", samples,
                                         goals={"tensorflow": "<= 0.5"}))
            if "tensorflow" not in samples:
                rows.append(common.skipped_row(NAME, case, "tensorflow", "not installed"))
    return rows


if __name__ == "__main__":
    main()
