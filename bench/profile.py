"""cProfile of graphcore's side of a workload, to see where a step's time goes.

    python -m bench.profile mlp-digits|mlp-synth|convnet[-summaries|-mobilenet]|matmul|tiny-fetch10[-callable]|transfer [--steps N]
                            [--top 25] [--sort tottime|cumulative]

Builds the same graph as the workload, warms up, then profiles ``--steps`` steps in
this process and prints the top functions.  For the Ray workloads only the client's
share is visible here (the actors are other processes: use ``py-spy record --pid``).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
from collections.abc import Callable
from typing import Any

import numpy as np


def _mlp(case: str) -> tuple[Callable[[], Any], Callable[[], None]]:
    import graphcore
    from bench import common, mlp

    sizes, batch, opt, lr, data = mlp.CASES[case]
    model = mlp.GraphMLP(graphcore, sizes, batch, opt, lr, mlp.init_params(sizes))
    return common.cycling_steps(model, mlp.make_data(sizes, batch, data)), model.close


def _convnet(case: str) -> tuple[Callable[[], Any], Callable[[], None]]:
    from bench import common, convnet

    model, batches, _ = convnet.make_model("graphcore", case, quick=False)
    return common.cycling_steps(model, batches), model.close


def _matmul() -> tuple[Callable[[], Any], Callable[[], None]]:
    import graphcore
    from bench.matmul import GraphChain

    rng = np.random.default_rng(0)
    mats = [rng.standard_normal((2048, 2048)).astype(np.float32) for _ in range(5)]
    chain = GraphChain(graphcore, mats)
    return chain, chain.close


def _tiny(mode: str) -> tuple[Callable[[], Any], Callable[[], None]]:
    import graphcore
    from bench.overhead import Harness, build_fetch10

    h = Harness(graphcore, build_fetch10)
    return h.fn(mode), h.close


def _transfer() -> tuple[Callable[[], Any], Callable[[], None]]:
    import graphcore as tf
    import ray_runtime
    from bench.transfer import build_graph

    graph, init, y = build_graph(tf, 16 * 1024 * 1024)
    sess = ray_runtime.session("ray://auto", cluster={"ps": 1, "worker": 1}, graph=graph,
                               cluster_name="bench-profile")
    sess.run(init)

    def close() -> None:
        sess.close()
        ray_runtime.shutdown_cluster("bench-profile", {"ps": 1, "worker": 1})

    return (lambda: sess.run(y)), close


TARGETS = {"mlp-digits": lambda: _mlp("digits"), "mlp-synth": lambda: _mlp("synth"),
           "convnet": lambda: _convnet("deep-mnist"),
           "convnet-summaries": lambda: _convnet("summaries"),
           "convnet-mobilenet": lambda: _convnet("mobilenet"),
           "matmul": _matmul, "tiny-fetch10": lambda: _tiny("run"),
           "tiny-fetch10-callable": lambda: _tiny("make_callable"), "transfer": _transfer}


def main(argv: list[str] | None = None) -> str:
    p = argparse.ArgumentParser(prog="python -m bench.profile")
    p.add_argument("target", choices=list(TARGETS))
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--sort", default="tottime")
    args = p.parse_args(argv)
    step, close = TARGETS[args.target]()
    try:
        for _ in range(min(10, args.steps)):
            step()
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(args.steps):
            step()
        prof.disable()
    finally:
        close()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).strip_dirs().sort_stats(args.sort).print_stats(args.top)
    text = buf.getvalue()
    print(text)
    return text


if __name__ == "__main__":
    main()
