"""1 ps + 2 workers, asynchronous between-graph SGD: aggregate steps/s of graphcore on a
local Ray cluster vs TensorFlow's gRPC runtime on 127.0.0.1 (see bench/dist.py)."""

from __future__ import annotations

from typing import Any

from bench import common, dist

NAME = "ps_async"
NEEDS_RAY = True


def run(cfg: common.Config) -> list[dict[str, Any]]:
    case = f"1ps+2w async SGD digits MLP b{dist.BATCH}/worker"
    return dist.rows_for(NAME, case, 2, cfg, goals={"tensorflow": ">= 1.5", "floor + compute": ">= 0.8"},
                         note="all tasks on this one machine", floor=True,
                       trace_path=cfg.extra.get("trace"))
