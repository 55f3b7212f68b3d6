"""python -m ray_runtime.launch on unmodified scripts (ray_runtime/script_launch.py): every
ps and worker task runs the script as __main__, with TF's cluster flags and TF_CONFIG."""

import io
import json
import os
import subprocess
import sys

import pytest

from graphcore.framework import errors
from ray_runtime import script_launch

HERE = os.path.dirname(os.path.abspath(__file__))


def _left(ray, name):
    return [a["name"] for a in ray.util.list_named_actors(all_namespaces=True)
            if a["name"].startswith(f"graphcore/{name}/")]


@pytest.mark.parametrize("mode", ["session", "monitored", "supervisor"])
def test_cli_runs_the_replica_script_in_every_task(ray_cluster, cluster_name, tmp_path, mode):
    env = {**os.environ, "RAY_ADDRESS": ray_cluster.get_runtime_context().gcs_address}
    extra = {"session": [], "supervisor": ["--supervisor"],
             "monitored": ["--monitored", f"--checkpoint_dir={tmp_path}"]}[mode]
    out = subprocess.run(
        [sys.executable, "-m", "ray_runtime.launch", os.path.join(HERE, "replica_script.py"),
         "--ps", "1", "--workers", "2", "--timeout", "90", "--cluster-name", cluster_name,
         "--", "--train_steps=150", *extra],
        capture_output=True, text=True, timeout=120, env=env, cwd="/")
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert "[ps/0] ps: job over" in lines
    # Under MonitoredTrainingSession and Supervisor the non-chief may only join at the end
    # (it waits for the chief's initialization): the chief's loss is what must fall there.
    for i in range(2 if mode == "session" else 1):
        assert f"[worker/{i}] RESULT loss_decreased=True" in lines, out.stdout
        assert any(line.startswith(f"[worker/{i}] worker {i}: step ") for line in lines)
    assert any(line.startswith("[worker/1] worker 1: ") for line in lines)
    assert all(line.startswith(("[ps/0] ", "[worker/0] ", "[worker/1] ")) for line in lines)
    if mode == "monitored":  # the chief's CheckpointSaverHook saved the last step, which
        # the other worker's steps may have taken past 150 (asynchronous training)
        steps = [int(n[len("model.ckpt-"):-len(".index")]) for n in os.listdir(tmp_path)
                 if n.startswith("model.ckpt-") and n.endswith(".index")]
        assert max(steps) >= 150, sorted(os.listdir(tmp_path))
        # ...and its summary hooks (StepCounterHook's global_step/sec) wrote events.
        assert any(n.startswith("events.out.tfevents.") for n in os.listdir(tmp_path))
    assert _left(ray_cluster, cluster_name) == []


def test_flags_tf_config_sibling_imports_and_failures(ray_cluster, cluster_name, tmp_path):
    (tmp_path / "sibling_mod.py").write_text("GREETING = 'hello from a sibling'\n")
    script = tmp_path / "flags.py"
    script.write_text(
        "import argparse, json, os, sys\n"
        "import sibling_mod\n"
        "p = argparse.ArgumentParser()\n"
        "p.add_argument('--job_name'); p.add_argument('--task_index', type=int)\n"
        "p.add_argument('--extra')\n"
        "a = p.parse_args()\n"
        "print(sibling_mod.GREETING)\n"
        "print('argv', sys.argv[1:])\n"
        "print('TF_CONFIG', os.environ['TF_CONFIG'])\n"
        "if (a.job_name, a.task_index) == ('worker', 1):\n"
        "    raise RuntimeError('worker 1 breaks')\n"
        "if a.job_name == 'ps':\n"
        "    sys.exit(0)\n")
    out = io.StringIO()
    status = script_launch.launch_script(str(script), ["--extra=x"], ps=1, workers=2,
                                         cluster_name=cluster_name, timeout=60, out=out)
    assert status == {"ps/0": 0, "worker/0": 0, "worker/1": 1}
    lines = out.getvalue().splitlines()
    # Only the flags the script defines are added (no --ps_hosts/--worker_hosts here).
    assert "[worker/1] argv ['--job_name=worker', '--task_index=1', '--extra=x']" in lines
    assert "[ps/0] hello from a sibling" in lines
    config = json.loads(next(line for line in lines if line.startswith("[worker/0] TF_CONFIG"))
                        .split(" ", 2)[2])
    assert config["cluster"] == {"ps": ["localhost:2222"],
                                 "worker": ["localhost:2223", "localhost:2224"]}
    assert config["task"] == {"type": "worker", "index": 0}
    assert "[worker/1] RuntimeError: worker 1 breaks" in lines
    assert _left(ray_cluster, cluster_name) == []


@pytest.mark.parametrize("case", ["timeout", "never_starts"])
def test_timeout_and_start_barrier_name_the_tasks(ray_cluster, cluster_name, tmp_path, case):
    script = tmp_path / "slow.py"
    script.write_text("import time, argparse\n"
                      "p = argparse.ArgumentParser(); p.add_argument('--job_name')\n"
                      "p.add_argument('--task_index', type=int)\n"
                      "a = p.parse_args()\n"
                      "time.sleep(60 if a.task_index == 1 else 0)\n")
    kwargs = dict(timeout=3) if case == "timeout" else dict(
        start_timeout=2, job_resources={"worker": {"num_gpus": 1}})
    with pytest.raises(errors.DeadlineExceededError) as e:
        script_launch.launch_script(str(script), ps=0, workers=2, cluster_name=cluster_name,
                                    out=io.StringIO(), **kwargs)
    expected = ("Launched tasks still running after 3 s: worker/1" if case == "timeout"
                else "Tasks never started within 2 s: worker/0, worker/1")
    assert e.value.message == expected
    assert _left(ray_cluster, cluster_name) == []


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM", "SIGKILL"])
def test_an_interrupted_launcher_removes_its_actors(ray_cluster, cluster_name, tmp_path, sig):
    """Ctrl-C and SIGTERM (`ray job stop`): the launcher removes its actors; SIGKILL: they
    die with its Ray job (they are not detached)."""
    import signal
    import time

    script = tmp_path / "forever.py"
    script.write_text("import time\nprint('started', flush=True)\ntime.sleep(120)\n")
    env = {**os.environ, "RAY_ADDRESS": ray_cluster.get_runtime_context().gcs_address}
    # The launcher as started from a terminal: Ctrl-C raises KeyboardInterrupt in it even
    # when this test process ignores or blocks SIGINT (a child inherits both, and Python
    # then leaves an ignored SIGINT ignored); in the whole suite it did.
    foreground = ("import runpy, signal, sys; "
                  "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT}); "
                  "signal.signal(signal.SIGINT, signal.default_int_handler); "
                  "sys.argv[0] = 'launch'; "
                  "runpy.run_module('ray_runtime.launch', run_name='__main__')")
    proc = subprocess.Popen(
        [sys.executable, "-c", foreground, str(script), "--ps", "1", "--workers",
         "1", "--cluster-name", cluster_name], stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True, env=env)
    try:
        seen = [proc.stdout.readline() for _ in range(2)]  # both tasks are running
        assert sorted(seen) == ["[ps/0] started\n", "[worker/0] started\n"]
        assert len(_left(ray_cluster, cluster_name)) == 2
        proc.send_signal(getattr(signal, sig))
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0
    deadline = time.time() + 30  # a killed actor's name is released asynchronously
    while _left(ray_cluster, cluster_name) and time.time() < deadline:
        time.sleep(0.2)
    assert _left(ray_cluster, cluster_name) == []
