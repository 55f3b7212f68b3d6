"""A/B of one step mechanism on the MLP workload, in one process, the two variants
interleaved round by round (same load for both):

    python -m bench.mlp_ab forwarding|team [--case digits|synth] [--rounds 30] [--steps 50]
                           [--threads N]

forwarding: buffer forwarding off (A) / on (B) in the straight-line step (two plans built
            with ``executor.FORWARDING`` off and on; their losses must agree to the bit).
team:       oneDNN's team size per product shape: a probe faster than the choice only
            resets the probe interval (A, the rule before) / probes again at once
            (B, ``intra_op.TeamTimings``); C is B with the products under the former
            SERIAL_MACS (2^20) also on one thread.
``--threads 1`` runs the products on one thread (keeps the team choice out of a
forwarding A/B).  Prints wall-clock ms per step (median, p25, p75, min, mean) per variant.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from graphcore.kernels import intra_op


class ProbeResetTeams(intra_op.TeamTimings):
    """The team rule before the re-probe: a probe that was not 1.25x slower than the
    choice only reset the probe interval to TEAM_PROBE (a faster probe did not probe
    again at once)."""

    @staticmethod
    def record(stats: list, one: bool, probe: bool, elapsed: float) -> None:
        if probe:
            slower = elapsed > 1.25 * intra_op._median(stats[4] if one else stats[3])
            stats[2] = min(2 * stats[2], 16 * intra_op.TEAM_PROBE) if slower else intra_op.TEAM_PROBE
            stats[1] = stats[0] + stats[2]
        recent = stats[3] if one else stats[4]
        recent.append(elapsed)
        if len(recent) > intra_op.TEAM_WINDOW:
            del recent[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mechanism", choices=["forwarding", "team"])
    parser.add_argument("--case", default="digits")
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--threads", type=int, default=0)
    args = parser.parse_args()

    import graphcore
    from bench import common, mlp
    from graphcore.kernels import blas
    from graphcore.runtime import executor

    if args.threads:
        intra_op.set_threads(args.threads)
    sizes, batch, opt, lr, data = mlp.CASES[args.case]
    batches = mlp.make_data(sizes, batch, data)

    def build():
        model = mlp.GraphMLP(graphcore, sizes, batch, opt, lr, mlp.init_params(sizes))
        return model, common.cycling_steps(model, batches)

    # variant -> (set it up before a round, step function)
    if args.mechanism == "forwarding":
        variants = {}
        for name, on in (("A off", False), ("B on", True)):
            executor.FORWARDING = on
            model, step = build()
            model.step_loss(*batches[0])  # (the plan compiles with the flag as set)
            variants[name] = (model, step, lambda: None)
        executor.FORWARDING = True
        losses = [[m.step_loss(*batches[i % len(batches)]) for i in range(5)]
                  for m, _, _ in variants.values()]
        print("losses equal:", losses[0] == losses[1])
    else:
        lib = blas._choice().gemm.get(np.dtype(np.float32))
        if not isinstance(lib, blas._OneDNN):
            raise SystemExit("oneDNN is not in use")
        model, step = build()
        serial = blas.SERIAL_MACS
        rules = {"A probe reset": (ProbeResetTeams(), serial),
                 "B re-probe": (intra_op.TeamTimings(), serial),
                 "C re-probe, 2^20": (intra_op.TeamTimings(), 1 << 20)}

        def use(timings: intra_op.TeamTimings, serial_macs: int) -> None:
            lib._timings = timings
            blas.SERIAL_MACS = serial_macs

        variants = {name: (model, step, lambda r=rule: use(*r))
                    for name, rule in rules.items()}
    samples: dict[str, list[float]] = {name: [] for name in variants}
    for r in range(args.rounds + 1):
        for name in (list(variants) if r % 2 == 0 else list(variants)[::-1]):
            _, step, setup = variants[name]
            setup()
            for _ in range(args.steps):
                t0 = time.perf_counter()
                step()
                if r:  # (round 0 warms up)
                    samples[name].append(time.perf_counter() - t0)
    for name, values in samples.items():
        a = np.array(values) * 1e3
        print(f"{name:18s} median {np.median(a):.3f}  p25 {np.percentile(a, 25):.3f}  "
              f"p75 {np.percentile(a, 75):.3f}  min {a.min():.3f}  mean {a.mean():.3f} ms")
    print("1-min load:", round(os.getloadavg()[0], 2))
    for model, _, _ in variants.values():
        model.close()


if __name__ == "__main__":
    main()
