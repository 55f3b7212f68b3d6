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
    # The test session's own cluster already holds Ray's default agent ports on this
    # machine; a second head node needs ports of its own or its job agent cannot bind.
    ports = {flag: _free_port() for flag in (
        "dashboard-agent-listen-port", "dashboard-agent-grpc-port", "runtime-env-agent-port",
        "metrics-export-port", "ray-client-server-port")}
    # Ray >= 2.5x turns token authentication on for a head node when ~/.ray/auth_token
    # exists (an earlier ray.init() writes it) while the `ray job` CLI stays in the
    # disabled mode; one explicit mode for the head, the CLI and the job keeps them
    # agreeing on a loopback-only test cluster.
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled",
           # the job's `python` is this interpreter, as with an activated venv
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("RAY_ADDRESS", None)
    temp_dir = tempfile.mkdtemp(prefix="gcray")  # short: Ray's socket paths must fit
    # --block keeps the head node in this process group, so stopping it later cannot
    # touch the test session's own Ray cluster (as `ray stop` would).
    head = subprocess.Popen(
        [ray, "start", "--head", "--block", "--node-ip-address=127.0.0.1", f"--port={gcs}",
         "--num-cpus=2", "--include-dashboard=true", "--dashboard-host=127.0.0.1",
         f"--dashboard-port={dash}", f"--temp-dir={temp_dir}", "--disable-usage-stats",
         *(f"--{flag}={port}" for flag, port in ports.items())],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        address = f"http://127.0.0.1:{dash}"
        for _ in range(90):  # the job server comes up shortly after the head node
            probe = subprocess.run([ray, "job", "list", "--address", address], env=env,
                                   capture_output=True, text=True, timeout=60)
            if probe.returncode == 0:
                break
            time.sleep(1)
        for _ in range(10):  # the node's job agent may start after the job server
            submit = subprocess.run(
                [ray, "job", "submit", "--address", address, "--working-dir", str(ROOT), "--",
                 "python", "examples/train_ps_ray.py", "--epochs", "20"],
                env=env, capture_output=True, text=True, timeout=480, cwd=ROOT)
            out = submit.stdout + submit.stderr
            if "No available agent" not in out:
                break
            time.sleep(2)
        assert submit.returncode == 0, out
        assert re.search(r"Job .raysubmit_\w+. succeeded", out), out
        match = re.search(r"test accuracy (\d\.\d+)", out)
        assert match, out
        assert float(match.group(1)) >= 0.95
    finally:
        os.killpg(head.pid, signal.SIGTERM)
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
