"""The ps_async floor over Ray compiled graphs against plain actor calls (issue 20).

The ``ray floor`` row of ps_async (bench/dist.py ``_FloorTask``) makes each worker step's
two calls to the ps as plain ``.remote()`` calls: read the 6 variables, send the 6
gradients. Here the same two calls go either that way or over a Ray compiled graph
(``ray.dag``: one ``InputNode -> ps.cg_step`` graph per worker, compiled and executed by
the worker actor itself, as a launched graphcore worker would drive its ps), 1 ps + N
workers, the two transports interleaved in one run. With ``--work`` the ps encodes the
variables and applies the gradients (transport.encode/decode) and each worker multiplies
a 256x256 matrix per step, so the ends have something to do while the other waits.
``--spin`` measures the CPU a waiting channel reader burns (the client waiting 3 s on an
answer, the ps 3 s on its next input).

    flock /tmp/gc-ray.lock env RAY_AUTH_MODE= python -m bench.cg_floor [--workers 2]
        [--repeats 2] [--work] [--spin]

The ps actor gets ``concurrency_groups={"_ray_system": 8}``: Ray runs a compiled graph's
loop on that group, one thread by default, so a second graph on the same actor (the second
worker's) would never start its loop.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from typing import Any

import numpy as np

from bench import dist


class _Task:
    """A ps (variables; the two calls, plain or as the graph's one method) or a worker."""

    def set_params(self, work: bool) -> None:
        self.params = dist._param_arrays()
        self.work = work

    def ps_begin(self, step: int) -> list[Any]:
        if not self.work:
            return self.params
        from ray_runtime import transport

        return [transport.encode(p) for p in self.params]

    def ps_finish(self, step: int, grads: list[Any]) -> None:
        if self.work:
            from ray_runtime import transport

            for i, g in enumerate(grads):
                self.params[i] = self.params[i] - 0.01 * transport.decode(g)

    def cg_step(self, msg: Any) -> Any:
        """Both calls as one graph method: a step key -> ps_begin, (key, grads) -> ps_finish."""
        return self.ps_finish(*msg) if isinstance(msg, tuple) else self.ps_begin(msg)

    def ping(self) -> int:
        return 1

    def cpu(self) -> float:
        return time.process_time()

    def worker_main(self, compiled_graph: bool, task: int, ps: Any, n_workers: int,
                    barrier: str, warmup: int, window_s: float, windows: int,
                    work: bool) -> dict[str, Any]:
        import ray
        from ray.dag import InputNode

        grads: list[Any] = dist._param_arrays()
        x = np.random.rand(256, 256).astype(np.float32)
        if work:
            from ray_runtime import transport

            grads = [transport.encode(g) for g in grads]
        state = {"i": task << 32}
        if not compiled_graph:
            def step() -> None:
                state["i"] += 1
                ray.get(ps.ps_begin.remote(state["i"]))
                if work:
                    x @ x
                ray.get(ps.ps_finish.remote(state["i"], grads))

            return dist.timed_loop(step, task, n_workers, barrier, warmup, window_s, windows)
        with InputNode() as inp:
            dag = ps.cg_step.bind(inp)
        t0 = time.perf_counter()
        graph = dag.experimental_compile()
        compile_s = time.perf_counter() - t0
        try:
            def cg_step() -> None:
                state["i"] += 1
                params = ray.get(graph.execute(state["i"]))
                if work:
                    x @ x
                del params  # (a zero-copy result held on would block the next read)
                ray.get(graph.execute((state["i"], grads)))

            out = dist.timed_loop(cg_step, task, n_workers, barrier, warmup, window_s,
                                  windows)
        finally:
            graph.teardown()
        out["compile_s"] = compile_s
        return out

    def spin(self, ps: Any) -> dict[str, float]:
        """CPU seconds this process burns waiting 3 s on a graph's answer, and the ps
        burns waiting 3 s for the graph's next input."""
        import ray
        from ray.dag import InputNode

        with InputNode() as inp:
            dag = ps.sleep_echo.bind(inp)
        graph = dag.experimental_compile()
        try:
            ray.get(graph.execute(0.0))
            t0 = time.process_time()
            ray.get(graph.execute(3.0))
            client = time.process_time() - t0
            p0 = ray.get(ps.cpu.remote())
            time.sleep(3.0)
            idle_ps = ray.get(ps.cpu.remote()) - p0
        finally:
            graph.teardown()
        return {"client waiting 3 s on an answer": client,
                "ps waiting 3 s for its next input": idle_ps}

    def sleep_echo(self, seconds: float) -> float:
        time.sleep(seconds)
        return seconds


def run(compiled_graph: bool, n_workers: int, work: bool, warmup: int = 30,
        window_s: float = 1.0, windows: int = 5) -> tuple[list[float], list[Any]]:
    import ray

    cls = ray.remote(num_cpus=0, max_concurrency=32,
                     concurrency_groups={"_ray_system": 8})(_Task)
    ps = cls.remote()
    workers = [cls.remote() for _ in range(n_workers)]
    barrier = tempfile.mkdtemp(prefix="gc-bench-cg-")
    try:
        ray.get([ps.set_params.remote(work), *(w.ping.remote() for w in workers)])
        results = ray.get([w.worker_main.remote(compiled_graph, i, ps, n_workers, barrier,
                                                warmup, window_s, windows, work)
                           for i, w in enumerate(workers)], timeout=180)
    finally:
        for a in [ps, *workers]:
            ray.kill(a)
        shutil.rmtree(barrier, ignore_errors=True)
    return dist._rates(results, window_s), [r.get("compile_s") for r in results]


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.cg_floor")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--work", action="store_true")
    p.add_argument("--spin", action="store_true")
    args = p.parse_args(argv)
    import cloudpickle
    import ray

    import bench.common
    import bench.mlp
    from ray_runtime import cluster as cluster_lib

    cluster_lib.connect("ray://auto")
    for mod in (dist, bench.mlp, bench.common, sys.modules[__name__]):
        cloudpickle.register_pickle_by_value(mod)
    if args.spin:
        cls = ray.remote(num_cpus=0, max_concurrency=4,
                         concurrency_groups={"_ray_system": 4})(_Task)
        ps, client = cls.remote(), cls.remote()
        for what, seconds in ray.get(client.spin.remote(ps)).items():
            print(f"CPU s burnt by a {what}: {seconds:.2f}", flush=True)
        for a in (ps, client):
            ray.kill(a)
    for _ in range(args.repeats):
        for compiled_graph in (False, True):
            rates, compile_s = run(compiled_graph, args.workers, args.work)
            name = "compiled graph" if compiled_graph else "plain calls"
            extra = (f"  compile s {', '.join(f'{c:.2f}' for c in compile_s)}"
                     if compiled_graph else "")
            print(f"{name:14s} {args.workers} workers{' +work' if args.work else ''}: "
                  f"{statistics.median(rates):7.1f} steps/s  windows {rates}{extra}",
                  flush=True)


if __name__ == "__main__":
    main()
