"""Scaling of the async distributed step as workers go 1 -> 2 -> 4 (1 ps), graphcore on
a local Ray cluster vs TF gRPC on 127.0.0.1 (see bench/dist.py).

All tasks run on this one machine (a local Ray cluster, not separate nodes), so with
few cores the aggregate rate cannot grow much: the rows show the overhead of more
tasks as much as any scaling."""

from __future__ import annotations

from typing import Any

from bench import common, dist

NAME = "scaling"
NEEDS_RAY = True
WORKERS = (1, 2, 4)


def run(cfg: common.Config) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for n in WORKERS:
        case = f"1ps+{n}w async SGD (one machine)"
        note = "one machine: local Ray cluster / 127.0.0.1"
        if n == 2:
            note += "; the ps_async measurement when both ran"
        rows.extend(dist.rows_for(NAME, case, n, cfg, note=note))
    return rows
