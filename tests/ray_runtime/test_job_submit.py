"""`ray job submit` of the data-parallel example against a `ray start --head` cluster."""

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ray_cli() -> str:
    exe = Path(sys.executable).with_name("ray")
    if exe.exists():
        return str(exe)
    found = shutil.which("ray")
    if found is None:
        pytest.skip("the ray CLI is not installed")
    return found


@pytest.mark.timeout(600)
def test_ray_job_submit_train_ps_ray():
    ray = _ray_cli()
    gcs, dash = _free_port(), _free_port()
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    env.pop("RAY_ADDRESS", None)
    temp_dir = tempfile.mkdtemp(prefix="gcray")  # short: Ray's socket paths must fit
    # --block keeps the head node in this process group, so stopping it later cannot
    # touch the test session's own Ray cluster (as `ray stop` would).
    head = subprocess.Popen(
        [ray, "start", "--head", "--block", "--node-ip-address=127.0.0.1", f"--port={gcs}",
         "--num-cpus=2", "--include-dashboard=true", "--dashboard-host=127.0.0.1",
         f"--dashboard-port={dash}", f"--temp-dir={temp_dir}", "--disable-usage-stats"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        address = f"http://127.0.0.1:{dash}"
        for _ in range(90):  # the job server comes up shortly after the head node
            probe = subprocess.run([ray, "job", "list", "--address", address], env=env,
                                   capture_output=True, text=True, timeout=60)
            if probe.returncode == 0:
                break
            time.sleep(1)
        submit = subprocess.run(
            [ray, "job", "submit", "--address", address, "--working-dir", str(ROOT), "--",
             "python", "examples/train_ps_ray.py", "--epochs", "20"],
            env=env, capture_output=True, text=True, timeout=480, cwd=ROOT)
        out = submit.stdout + submit.stderr
        assert submit.returncode == 0, out
        assert "SUCCEEDED" in out, out
        match = re.search(r"test accuracy (\d\.\d+)", out)
        assert match, out
        assert float(match.group(1)) >= 0.95
    finally:
        os.killpg(head.pid, signal.SIGTERM)
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
