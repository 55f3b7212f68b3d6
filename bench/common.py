"""Shared timing and reporting for the benchmark suite (``python -m bench``).

A workload module exposes ``NAME``, ``NEEDS_RAY`` and ``run(cfg) -> list[row]``.  A row
is one implementation of one case::

    {"workload", "case", "impl", "unit", "higher_is_better",
     "median", "min", "max", "samples",      # absent when skipped
     "ratio",      # graphcore median / this impl's median (None on graphcore rows)
     "goal",       # e.g. "<= 0.5" for the ratio, or None
     "goal_met",   # bool or None
     "skipped",    # reason string, or None
     "note"}

Ratios are always graphcore/anchor of the medians, in the row's unit: for times lower is
better for graphcore, for rates (GFLOP/s, steps/s, GB/s) higher is.
"""

from __future__ import annotations

import gc
import json
import os
import platform
import socket
import statistics
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

GRAPHCORE = "graphcore"


@dataclass
class Config:
    quick: bool = False
    use_tf: bool = True
    use_ray: bool = True
    repeats: int | None = None  # overrides the workload's default
    extra: dict[str, Any] = field(default_factory=dict)

    def reps(self, full: int, quick: int = 3) -> int:
        return self.repeats or (quick if self.quick else full)


# -- timing -------------------------------------------------------------------------------


def time_call(fn: Callable[[], Any], n: int = 1) -> float:
    """Seconds per call over a loop of ``n`` calls."""
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n


def calls_for(fn: Callable[[], Any], target_s: float, max_n: int = 100_000) -> int:
    """How many calls make a timed loop of about ``target_s`` seconds (one probe call)."""
    dt = max(time_call(fn), 1e-7)
    return int(max(1, min(max_n, target_s / dt)))


def cycling_steps(model: Any, batches: list) -> Callable[[], None]:
    """A step function: ``model.step(x, y)`` on the next (x, y) of ``batches``, in a
    cycle."""
    state = {"i": 0}
    k = len(batches)

    def fn() -> None:
        x, y = batches[state["i"] % k]
        state["i"] += 1
        model.step(x, y)

    return fn


def interleaved(fns: dict[str, Callable[[], Any]], warmup: int, repeats: int,
                n: int | dict[str, int] = 1) -> dict[str, list[float]]:
    """Seconds per call of each function: ``warmup`` calls each, then ``repeats`` rounds
    in which every function runs a loop of ``n`` calls (rounds interleave the
    implementations so load drift hits all alike)."""
    ns = n if isinstance(n, dict) else {k: n for k in fns}
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    out: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(repeats):
        for k, fn in fns.items():
            gc.collect()
            out[k].append(time_call(fn, ns[k]))
    return out


# -- rows ---------------------------------------------------------------------------------


def stats_row(workload: str, case: str, impl: str, unit: str, samples: list[float],
              higher_is_better: bool = False, note: str | None = None) -> dict[str, Any]:
    return {"workload": workload, "case": case, "impl": impl, "unit": unit,
            "higher_is_better": higher_is_better,
            "median": statistics.median(samples), "min": min(samples), "max": max(samples),
            "samples": list(samples), "ratio": None, "goal": None, "goal_met": None,
            "skipped": None, "note": note}


def skipped_row(workload: str, case: str, impl: str, reason: str,
                unit: str = "") -> dict[str, Any]:
    return {"workload": workload, "case": case, "impl": impl, "unit": unit,
            "higher_is_better": False, "ratio": None, "goal": None, "goal_met": None,
            "skipped": reason, "note": None}


def case_rows(workload: str, case: str, unit: str, samples: dict[str, list[float]],
              higher_is_better: bool = False, goals: dict[str, str] | None = None,
              scale: float = 1.0, invert: bool = False,
              notes: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Rows of one case from per-implementation samples (seconds per call unless
    ``invert``: then ``scale / seconds`` makes a rate; else ``seconds * scale``).  The
    graphcore row comes first; every other row gets ratio = graphcore/it and, where
    ``goals`` names it, the goal (a string like ``"<= 1.0"``) and whether it holds."""
    goals = goals or {}
    notes = notes or {}
    conv = {k: [(scale / s if invert else s * scale) for s in v] for k, v in samples.items()}
    order = [GRAPHCORE] + [k for k in conv if k != GRAPHCORE]
    rows = [stats_row(workload, case, k, unit, conv[k], higher_is_better, notes.get(k))
            for k in order if k in conv]
    add_ratios(rows, goals)
    return rows


def add_ratios(rows: list[dict[str, Any]], goals: dict[str, str] | None = None) -> None:
    """Fills ratio / goal / goal_met of the anchor rows from the graphcore row."""
    goals = goals or {}
    gc_row = next((r for r in rows if r["impl"] == GRAPHCORE and not r["skipped"]), None)
    for r in rows:
        if r["impl"] == GRAPHCORE:
            continue
        r["goal"] = goals.get(r["impl"])
        if gc_row is None or r["skipped"] or not r.get("median"):
            continue
        r["ratio"] = gc_row["median"] / r["median"]
        if r["goal"]:
            r["goal_met"] = check_goal(r["ratio"], r["goal"])


def check_goal(ratio: float, goal: str) -> bool:
    op, value = goal.split()
    return ratio <= float(value) if op == "<=" else ratio >= float(value)


# -- environment --------------------------------------------------------------------------


def tf_installed() -> bool:
    """Whether TensorFlow can be imported (without importing it)."""
    import importlib.util

    return importlib.util.find_spec("tensorflow") is not None


def import_tf() -> Any | None:
    """``tensorflow.compat.v1`` in graph mode, or None when not installed."""
    try:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        import tensorflow

        tf1 = tensorflow.compat.v1
        tf1.disable_eager_execution()
        return tf1
    except Exception:
        return None


def versions() -> dict[str, str]:
    out = {"numpy": np.__version__}
    for mod in ("graphcore", "tensorflow", "ray", "cupy"):
        try:
            m = __import__(mod)
            out[mod] = getattr(m, "__version__", "unknown")
        except Exception as e:
            out[mod] = f"unavailable ({type(e).__name__})"
    return out


def machine_info() -> dict[str, Any]:
    info: dict[str, Any] = {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "python": sys.version.split()[0],
        **versions(),
    }
    try:
        info["loadavg"] = os.getloadavg()
    except OSError:
        pass
    return info


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def free_ports(n: int) -> list[int]:
    """``n`` distinct free TCP ports on 127.0.0.1 (bound together, then released)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


# -- table --------------------------------------------------------------------------------


def _num(x: float) -> str:
    if x == 0:
        return "0"
    a = abs(x)
    if a >= 1000:
        return f"{x:,.0f}"
    if a >= 100:
        return f"{x:.1f}"
    if a >= 1:
        return f"{x:.2f}"
    return f"{x:.3g}"


def format_table(rows: Iterable[dict[str, Any]]) -> str:
    header = ["workload", "case", "impl", "median", "[min - max]", "unit", "gc/impl", "goal",
              "note"]
    body = []
    for r in rows:
        if r["skipped"]:
            body.append([r["workload"], r["case"], r["impl"], "skipped", "", "", "",
                         r["skipped"], ""])
            continue
        ratio = "" if r["ratio"] is None else f"{r['ratio']:.2f}x"
        goal = ""
        if r["goal"]:
            goal = f"{r['goal']} {'ok' if r['goal_met'] else 'MISSED'}"
        body.append([r["workload"], r["case"], r["impl"], _num(r["median"]),
                     f"[{_num(r['min'])} - {_num(r['max'])}]", r["unit"], ratio, goal,
                     r.get("note") or ""])
    widths = [max(len(b[i]) for b in [header] + body) for i in range(len(header))]
    right = {3, 4, 6}
    lines = []
    for i, b in enumerate([header] + body):
        cells = [c.rjust(w) if j in right else c.ljust(w)
                 for j, (c, w) in enumerate(zip(b, widths))]
        lines.append("  ".join(cells).rstrip())
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def write_json(path: str | os.PathLike, result: dict[str, Any]) -> None:
    from pathlib import Path

    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(result, indent=2, default=_json_default) + "\n")


def _json_default(o: Any) -> Any:
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, tuple):
        return list(o)
    raise TypeError(f"not JSON serializable: {type(o).__name__}")
