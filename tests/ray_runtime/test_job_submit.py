"""`ray job submit` against one `ray start --head` cluster: the data-parallel example, and
the unmodified mnist_replica-style script through the launcher (the third way to run
it: `ray job submit -- python -m ray_runtime.launch replica_script.py ...`)."""

import json
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


def _submit(ray, address, env, args, timeout=480):
    for _ in range(10):  # the node's job agent may start after the job server
        submit = subprocess.run(
            [ray, "job", "submit", "--address", address, "--working-dir", str(ROOT), "--",
             *args], env=env, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
        out = submit.stdout + submit.stderr
        if "No available agent" not in out:
            break
        time.sleep(2)
    assert submit.returncode == 0, out
    match = re.search(r"Job .(raysubmit_\w+). succeeded", out)
    assert match, out
    return match.group(1), out


def _graphcore_actors(ray, address, env):
    """{state: count} of the graphcore task actors the cluster knows (`ray list actors`)."""
    listed = subprocess.run(
        [ray, "list", "actors", "--address", address, "--format", "json", "--limit", "1000"],
        env=env, capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    states: dict[str, int] = {}
    for a in json.loads(listed.stdout):
        if a.get("class_name") == "TaskActorImpl":
            states[a["state"]] = states.get(a["state"], 0) + 1
    return states


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
        t0 = time.time()
        _, out = _submit(ray, address, env,
                         ["python", "examples/train_ps_ray.py", "--epochs", "20"])
        match = re.search(r"test accuracy (\d\.\d+)", out)
        assert match, out
        assert float(match.group(1)) >= 0.95
        t1 = time.time()
        # The unmodified script, via the launcher, in a job: SyncReplicasOptimizer under
        # MonitoredTrainingSession, the task lines prefixed, nothing left afterwards.
        job_id, out = _submit(ray, address, env, [
            "python", "-m", "ray_runtime.launch", "tests/ray_runtime/replica_script.py",
            "--ps", "1", "--workers", "2", "--timeout", "300", "--",
            "--monitored", "--sync_replicas", "--train_steps=60"])
        logs = subprocess.run([ray, "job", "logs", "--address", address, job_id], env=env,
                              capture_output=True, text=True, timeout=60).stdout
        lines = logs.splitlines()
        for i in range(2):  # synchronous: every worker trains through to the last step
            assert f"[worker/{i}] RESULT loss_decreased=True" in lines, logs
            assert any(line.startswith(f"[worker/{i}] worker {i}: step ") for line in lines)
        assert "[ps/0] ps: job over" in lines, logs
        # The job's 3 task actors (and train_ps_ray's) are listed, and none is alive.
        states = _graphcore_actors(ray, address, env)
        assert "ALIVE" not in states and states.get("DEAD", 0) >= 3, states
        print(f"TIMING train_ps_ray {t1 - t0:.1f}s launcher {time.time() - t1:.1f}s")
    finally:
        os.killpg(head.pid, signal.SIGTERM)
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
