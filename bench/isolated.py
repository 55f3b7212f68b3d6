"""Implementations timed each in a child process of its own, interleaved per repetition.

Compute-bound anchors must not share a process: OpenBLAS's worker threads spin-wait after
every call and TF's Eigen/oneDNN pools keep their own threads, so in one process each
library's idle threads take cores from the next one timed (in-process, the 2048^3 matmul
chain measured TF at half its speed here). A child builds its callable from a factory,
``module:function(**kwargs) -> (fn, info)``, reports ``info`` (a JSON object: the BLAS
kernel it runs, a first-step loss to cross-check), and then times loops on request. The
parent runs one child at a time, round robin, after a pause that lets the previous
child's threads go to sleep.

    python -m bench.isolated    (the child: one JSON spec on stdin, then commands)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import common

_ROOT = Path(__file__).resolve().parents[1]
_TAG = "@@bench "  # marks protocol lines among whatever the libraries print
# OpenBLAS's idle threads spin for about 2^28 cycles (0.1 s) before they sleep.
SETTLE_S = 0.15


@dataclass
class Impl:
    """How to build one implementation in its child: ``factory`` is "module:function",
    called with ``kwargs``; ``env`` is applied to the child's environment (a value of
    None removes the variable)."""

    factory: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str | None] = field(default_factory=dict)


class _Child:
    def __init__(self, impl: Impl):
        env = dict(os.environ)
        for k, v in impl.env.items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = v
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(_ROOT),
                                                          env.get("PYTHONPATH")]))
        self.proc = subprocess.Popen([sys.executable, "-m", "bench.isolated"], cwd=_ROOT,
                                     env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True)
        self._send({"factory": impl.factory, "kwargs": impl.kwargs})

    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def receive(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith(_TAG):
                reply = json.loads(line[len(_TAG):])
                if "error" in reply:
                    raise RuntimeError(f"benchmark child failed: {reply['error']}")
                return reply
        raise RuntimeError(f"benchmark child exited with code {self.proc.wait()}")

    def time(self, n: int) -> float:
        self._send({"time": n})
        return self.receive()["seconds"]

    def close(self) -> None:
        if self.proc.poll() is None:
            self._send({"quit": True})
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def interleaved(impls: dict[str, Impl], warmup: int, repeats: int,
                target_s: float | None = None,
                n: int = 1) -> tuple[dict[str, list[float]], dict[str, dict[str, Any]]]:
    """Seconds per call of each implementation (loops of ``n`` calls, or of about
    ``target_s`` seconds when given), and each child's info."""
    children: dict[str, _Child] = {}
    try:
        for name, impl in impls.items():
            children[name] = _Child(impl)
        infos = {name: child.receive()["info"] for name, child in children.items()}
        loops: dict[str, int] = {}
        for name, child in children.items():
            if warmup:
                child.time(warmup)
            probe = child.time(1)
            loops[name] = n if target_s is None else int(max(1, min(100_000,
                                                                    target_s / probe)))
        samples: dict[str, list[float]] = {name: [] for name in children}
        for _ in range(repeats):
            for name, child in children.items():
                time.sleep(SETTLE_S)
                samples[name].append(child.time(loops[name]))
        return samples, infos
    finally:
        for child in children.values():
            child.close()


def _serve() -> None:
    """The child's loop: build the implementation, then time loops until told to quit."""
    out = sys.stdout
    sys.stdout = sys.stderr  # library prints must not interleave with replies

    def reply(message: dict[str, Any]) -> None:
        out.write(_TAG + json.dumps(message, default=str) + "\n")
        out.flush()

    spec = json.loads(sys.stdin.readline())
    try:
        module, function = spec["factory"].split(":")
        factory = getattr(__import__(module, fromlist=[function]), function)
        fn, info = factory(**spec["kwargs"])
    except Exception as e:  # the parent reports it with the row
        reply({"error": f"{type(e).__name__}: {e}"})
        return
    reply({"info": info})
    for line in sys.stdin:
        command = json.loads(line)
        if command.get("quit"):
            break
        reply({"seconds": common.time_call(fn, command["time"])})


def blas_kernel() -> str:
    """The BLAS numpy runs in this process, as threadpoolctl reports it."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "unknown (no threadpoolctl)"
    import numpy as np

    np.ones((2, 2)) @ np.ones((2, 2))
    numpy_libs = os.path.dirname(np.__file__) + ".libs"
    for pool in threadpool_info():
        if pool["user_api"] == "blas" and pool["filepath"].startswith(numpy_libs):
            return f"{pool['internal_api']} {pool.get('architecture')}"
    return "unknown"


FORCING_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def numpy_anchors(factory: str, kwargs: dict[str, Any]) -> dict[str, Impl]:
    """numpy with the fastest kernel its OpenBLAS detects ("numpy"), and, when this
    machine forces a kernel through OPENBLAS_CORETYPE, numpy as forced too."""
    fastest = Impl(factory, {**kwargs, "impl": "numpy"},
                   env=dict.fromkeys(FORCING_VARIABLES))
    impls = {"numpy": fastest}
    if any(v in os.environ for v in FORCING_VARIABLES):
        impls["numpy (forced kernel)"] = Impl(factory, {**kwargs, "impl": "numpy"})
    return impls


def child_notes(infos: dict[str, dict[str, Any]]) -> dict[str, str]:
    return {name: info["blas"] for name, info in infos.items() if info.get("blas")}


if __name__ == "__main__":
    _serve()
