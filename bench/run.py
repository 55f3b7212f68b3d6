"""The benchmark suite: every workload for graphcore and its anchors, one table.

    python -m bench [--quick] [--only tiny,mlp,...] [--out bench/results.json] [--no-tf]
                    [--no-ray] [--repeats R]

Workloads (each a module of this package): tiny (Session.run overhead), mlp (training
steps vs TF and a numpy floor), convnet (TF's deep MNIST tutorial step, and with
histogram summaries, vs TF), matmul (GFLOP/s of a 2048^3 matmul chain), ops (single
ops and TF1 idioms on [256, 1024], ms per op vs TF), ps_async
(1 ps + 2 workers async SGD vs TF gRPC), transfer (64 MiB ps->worker vs raw Ray),
scaling (1/2/4 workers), embedding (2M x 64 table on 4 ps + 2 workers, vs 20k rows and TF
gRPC), gpu (CuPy; skipped without a GPU).  Anchors that are not
installed give "skipped" rows.  Ratios are graphcore/anchor of the medians.  Wrap runs
that start Ray on a shared machine in ``flock /tmp/gc-ray.lock``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import shlex
import sys
import time
import traceback
from typing import Any

from bench import common

WORKLOADS = ["tiny", "mlp", "convnet", "matmul", "ops", "ps_async", "transfer", "scaling",
             "embedding", "gpu"]
MODULES = {"tiny": "bench.overhead"}
DEFAULT_OUT = "bench/results.json"

NOTES = [
    "median [min - max] over repetitions after warm-up; implementations interleaved per "
    "repetition",
    "gc/impl = graphcore median / that implementation's median, in the row's unit: for "
    "us/call and ms/step lower is better for graphcore, for GFLOP/s, steps/s and GB/s "
    "higher is",
    "distributed workloads run every task on this one machine (local Ray cluster; TF "
    "servers on 127.0.0.1)",
    "shared machine: other processes may load the CPUs; loadavg is recorded per workload",
]


def module(name: str) -> Any:
    return importlib.import_module(MODULES.get(name, f"bench.{name}"))


def parse_only(values: list[str] | None) -> list[str]:
    if not values:
        return list(WORKLOADS)
    names = [n for v in values for n in v.split(",") if n]
    bad = [n for n in names if n not in WORKLOADS]
    if bad:
        raise SystemExit(f"unknown workload(s) {bad}; choose from {WORKLOADS}")
    return [n for n in WORKLOADS if n in names]


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(prog="python -m bench",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="few repeats, small sizes (smoke)")
    p.add_argument("--only", nargs="+", metavar="NAMES",
                   help=f"workloads to run (comma or space separated): {WORKLOADS}")
    p.add_argument("--out", default=DEFAULT_OUT, help="JSON results path")
    p.add_argument("--no-tf", action="store_true", help="skip TensorFlow anchors")
    p.add_argument("--no-ray", action="store_true", help="skip workloads that start Ray")
    p.add_argument("--repeats", type=int, default=None, help="override repetitions")
    p.add_argument("--blas-threads", type=int, default=None,
                   help="limit the BLAS threads of graphcore's kernels and the numpy floor "
                        "(numpy's OpenBLAS here through threadpoolctl; OMP_NUM_THREADS and "
                        "OPENBLAS_NUM_THREADS for the benchmark's child processes; TF keeps "
                        "its own pools); default: each library's own choice")
    p.add_argument("--trace", default=None, metavar="PATH",
                   help="ps_async: write the Chrome trace (chrome://tracing, ui.perfetto.dev) "
                        "of one traced step of worker 0, taken mid-run, to PATH")
    args = p.parse_args(argv)
    blas = _limit_blas(args.blas_threads)
    names = parse_only(args.only)
    cfg = common.Config(quick=args.quick, use_tf=not args.no_tf, use_ray=not args.no_ray,
                        repeats=args.repeats)
    if args.trace:
        cfg.extra["trace"] = args.trace

    started = time.time()
    rows: list[dict[str, Any]] = []
    timings: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for name in names:
        mod = module(name)
        t0 = time.time()
        load0 = _load()
        if getattr(mod, "NEEDS_RAY", False) and not cfg.use_ray:
            rows.append(common.skipped_row(name, "-", "graphcore", "--no-ray"))
            continue
        print(f"[bench] {name} ...", file=sys.stderr, flush=True)
        try:
            rows.extend(mod.run(cfg))
        except Exception as e:  # one broken workload must not hide the others
            traceback.print_exc()
            errors[name] = f"{type(e).__name__}: {e}"
            rows.append(common.skipped_row(name, "-", "graphcore",
                                           f"error: {type(e).__name__}: {str(e)[:80]}"))
        timings[name] = {"seconds": round(time.time() - t0, 2), "loadavg_before": load0,
                         "loadavg_after": _load()}
    _shutdown_ray()

    result = {
        "command": "python -m bench " + " ".join(shlex.quote(a) for a in (
            argv if argv is not None else sys.argv[1:])),
        "started": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(started)),
        "seconds": round(time.time() - started, 1),
        "machine": common.machine_info(),
        "commit": _commit(),
        "config": {"quick": cfg.quick, "use_tf": cfg.use_tf, "use_ray": cfg.use_ray,
                   "repeats": cfg.repeats, "workloads": names,
                   "blas_threads": args.blas_threads, "blas": blas,
                   "graphcore_blas": _graphcore_blas()},
        "notes": NOTES,
        "workloads": {n: (module(n).__doc__ or "").strip().split("\n\n")[0] for n in names},
        "timings": timings,
        "errors": errors,
        "rows": rows,
        "goals": [{k: r[k] for k in ("workload", "case", "impl", "ratio", "goal", "goal_met")}
                  for r in rows if r["goal"]],
    }
    print(render(result))
    common.write_json(args.out, result)
    print(f"\nwrote {args.out}")
    return result


def render(result: dict[str, Any]) -> str:
    info = result["machine"]
    lines = [
        f"graphcore benchmark suite  ({result['started']}, {result['seconds']} s)",
        f"machine: {info['processor']}, {info['cpu_count']} cpus, {info['platform']}",
        f"commit: {result.get('commit')}",
        "numpy's blas: " + ", ".join(f"{b.get('internal_api')} {b.get('version')} "
                                     f"{b.get('num_threads')} threads"
                                     for b in result["config"].get("blas") or []),
        "graphcore's blas: " + ", ".join(f"{k} {v.split(' (')[0]}" for k, v in
                                         (result["config"].get("graphcore_blas") or {}).items()),
        "versions: " + "  ".join(f"{k} {info.get(k)}" for k in
                                 ("python", "numpy", "graphcore", "tensorflow", "ray")),
        "",
        common.format_table(result["rows"]),
        "",
    ]
    lines.extend(f"note: {n}" for n in result["notes"])
    loads = "  ".join(f"{k} {v['loadavg_before'][0]:.1f}->{v['loadavg_after'][0]:.1f}"
                      for k, v in result["timings"].items() if v.get("loadavg_before"))
    if loads:
        lines.append(f"note: 1-min loadavg per workload: {loads}")
    return "\n".join(lines)


_blas_limiter: Any = None


def _limit_blas(threads: int | None) -> list[dict[str, Any]]:
    """Applies --blas-threads (threadpoolctl) and describes numpy's BLAS pools."""
    global _blas_limiter
    try:
        import threadpoolctl
    except ImportError:
        if threads is not None:
            raise SystemExit("--blas-threads needs threadpoolctl") from None
        return []
    if threads is not None:
        _blas_limiter = threadpoolctl.threadpool_limits(limits=threads, user_api="blas")
        os.environ["OMP_NUM_THREADS"] = os.environ["OPENBLAS_NUM_THREADS"] = str(threads)
    return [{k: i.get(k) for k in ("internal_api", "version", "num_threads")}
            for i in threadpoolctl.threadpool_info() if i.get("user_api") == "blas"]


def _graphcore_blas() -> dict[str, str]:
    """Which library graphcore's matrix kernels use (graphcore.kernels.blas.info())."""
    from graphcore.kernels import blas

    return blas.info()


def _commit() -> str | None:
    """The git commit measured (GRAPHCORE_BENCH_COMMIT names it for a snapshot copy)."""
    if os.environ.get("GRAPHCORE_BENCH_COMMIT"):
        return os.environ["GRAPHCORE_BENCH_COMMIT"]
    import subprocess

    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                             cwd=os.path.dirname(os.path.abspath(__file__)), timeout=10)
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def _load() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def _shutdown_ray() -> None:
    if "ray" in sys.modules:
        import ray

        if ray.is_initialized():
            ray.shutdown()


if __name__ == "__main__":
    main()
