"""Smoke test of bench/overhead.py: a --quick run writes JSON with the three workloads."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "overhead.py"
WORKLOADS = {"counter", "feed", "fetch10"}


def _run(tmp_path: Path, *extra: str) -> dict:
    out = tmp_path / "overhead.json"
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--out", str(out), *extra],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "graphcore us" in proc.stdout
    return json.loads(out.read_text())


def _check(result: dict) -> None:
    assert set(result["workloads"]) == WORKLOADS
    rows = result["rows"]
    assert {r["workload"] for r in rows} == WORKLOADS
    assert {(r["workload"], r["mode"]) for r in rows} == {
        (w, m) for w in WORKLOADS for m in ("run", "make_callable")}
    for r in rows:
        gc = r["graphcore"]
        assert 0 < gc["min_us"] <= gc["median_us"] <= gc["max_us"]
        if r["tensorflow"] is None:
            assert r["ratio"] is None
        else:
            assert r["tensorflow"]["median_us"] > 0
            assert r["ratio"] > 0
    info = result["machine"]
    for key in ("platform", "cpu_count", "python", "numpy", "graphcore", "tensorflow"):
        assert key in info


@pytest.mark.timeout(320)
def test_quick_run(tmp_path):
    _check(_run(tmp_path))


@pytest.mark.timeout(320)
def test_quick_run_without_tensorflow(tmp_path):
    result = _run(tmp_path, "--no-tf")
    _check(result)
    assert all(r["tensorflow"] is None and r["ratio"] is None for r in result["rows"])
