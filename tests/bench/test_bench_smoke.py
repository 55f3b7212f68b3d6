"""Smoke test of the suite (python -m bench --quick): table and JSON structure.

The non-Ray workloads always run; the Ray ones (ps_async, transfer) only with
GRAPHCORE_BENCH_RAY=1 (they start a local Ray cluster and TF servers; ~40 s)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ROW_KEYS = {"workload", "case", "impl", "unit", "higher_is_better", "ratio", "goal",
            "goal_met", "skipped", "note"}


def _run(tmp_path: Path, *args: str, timeout: float) -> tuple[str, dict]:
    out = tmp_path / "results.json"
    proc = subprocess.run([sys.executable, "-m", "bench", "--quick", "--out", str(out), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-4000:]
    return proc.stdout, json.loads(out.read_text())


def _check_rows(result: dict, workloads: set[str]) -> None:
    assert set(result["config"]["workloads"]) == workloads
    assert not result["errors"], result["errors"]
    rows = result["rows"]
    assert {r["workload"] for r in rows} == workloads
    for r in rows:
        assert ROW_KEYS <= set(r), r
        if r["skipped"]:
            continue
        assert 0 < r["min"] <= r["median"] <= r["max"], r
        assert len(r["samples"]) >= 2
        if r["impl"] == "graphcore":
            assert r["ratio"] is None
        else:
            assert r["ratio"] > 0
            assert r["ratio"] == pytest.approx(
                next(g["median"] for g in rows if g["impl"] == "graphcore"
                     and g["workload"] == r["workload"] and g["case"] == r["case"])
                / r["median"])
            if r["goal"]:
                assert isinstance(r["goal_met"], bool)
    for key in ("platform", "cpu_count", "python", "numpy", "graphcore"):
        assert key in result["machine"]
    assert all(g["goal"] for g in result["goals"])


@pytest.mark.timeout(120)
def test_quick_suite_without_ray(tmp_path):
    stdout, result = _run(tmp_path, "--only", "tiny,mlp,matmul,gpu", timeout=110)
    _check_rows(result, {"tiny", "mlp", "matmul", "gpu"})
    assert "gc/impl" in stdout and "median" in stdout
    impls = {(r["workload"], r["impl"]) for r in result["rows"] if not r["skipped"]}
    assert {("tiny", "graphcore"), ("mlp", "graphcore"), ("mlp", "numpy"),
            ("matmul", "graphcore"), ("matmul", "numpy")} <= impls
    mlp_cases = {r["case"] for r in result["rows"] if r["workload"] == "mlp"}
    assert len(mlp_cases) == 2
    gpu = [r for r in result["rows"] if r["workload"] == "gpu"]
    assert gpu and (gpu[0]["skipped"] or gpu[0]["median"] > 0)
    # One line per row in the table.
    for r in result["rows"]:
        assert any(r["case"] in line and r["impl"] in line for line in stdout.splitlines())


@pytest.mark.timeout(60)
def test_only_rejects_unknown_workload(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "bench", "--only", "nope",
                           "--out", str(tmp_path / "r.json")],
                          cwd=ROOT, capture_output=True, text=True, timeout=50)
    assert proc.returncode != 0
    assert "unknown workload" in proc.stderr


@pytest.mark.timeout(200)
@pytest.mark.skipif(os.environ.get("GRAPHCORE_BENCH_RAY") != "1",
                    reason="starts Ray and TF servers; set GRAPHCORE_BENCH_RAY=1")
def test_quick_suite_ray_workloads(tmp_path):
    _, result = _run(tmp_path, "--only", "ps_async,transfer", timeout=190)
    _check_rows(result, {"ps_async", "transfer"})
    units = {r["workload"]: r["unit"] for r in result["rows"] if not r["skipped"]}
    assert units == {"ps_async": "steps/s", "transfer": "GB/s"}
