"""Several Ray nodes (ray.cluster_utils.Cluster, 4 nodes with custom resources): task
actors placed on the nodes their job_resources ask for, in a STRICT_SPREAD placement
group; a step across them; a step moving more than a node's object store holds; and
the ps's node, then a worker's node, removed in the middle of MonitoredTrainingSession:
UnavailableError naming the task within seconds, recovery from the last checkpoint on
the nodes left, the same final global step and values as an undisturbed run
(ray_runtime/master.py, ray_runtime/actors.py, graphcore/train/monitored_session.py).

A ray.cluster_utils.Cluster cannot share a process with the session's Ray cluster,
so multinode_script.py runs in a subprocess of its own; the tests read its result.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def result():
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("RAY_ADDRESS", None)
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "ray_runtime",
                                                        "multinode_script.py")],
                          capture_output=True, text=True, timeout=240, env=env, cwd=ROOT)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, proc.stdout[-3000:] + proc.stderr[-5000:]
    return json.loads(lines[-1][len("RESULT "):])


def test_tasks_on_the_nodes_their_job_resources_ask_for(result):
    offers = result["node_resources"]
    assert len(offers) == 4
    nodes = result["strict_nodes"]
    # STRICT_SPREAD: a node per task; each on a node offering its job's resource.
    assert result["strategy"] == "STRICT_SPREAD"
    assert len(set(nodes.values())) == 3
    assert offers[nodes["ps/0"]] == ["ps_host"]
    assert offers[nodes["worker/0"]] == offers[nodes["worker/1"]] == ["worker_host"]
    assert result["assigned"]["ps/0"].get("ps_host", 0) > 0
    assert result["assigned"]["worker/1"].get("worker_host", 0) > 0


def test_a_step_runs_across_nodes(result):
    # w = [[0, 1], [2, 3], [4, 5]]; worker i computes (i + 1) * ones(1, 3) @ w.
    assert result["total"] == [[18.0, 27.0]]


def test_a_step_moving_more_than_the_object_store_spills(result):
    # 120 MiB from the ps's node to a worker's node, whose stores hold 80 MiB each:
    # Ray spills (falls back to disk) and the step gives the right value, in bounded
    # time; it never hangs.
    assert result["pressure_bytes"] > 80 * 1024 * 1024
    assert result["pressure_error"] is None
    assert result["pressure_total"] == 2.0 * result["pressure_bytes"] / 4
    assert result["pressure_secs"] < 30.0


def test_node_loss_mid_training_recovers_from_the_last_checkpoint(result):
    assert [victim for _, victim in result["removals"]][0] == "ps/0"
    assert [at for at, _ in result["removals"]] == [5, 8]
    assert result["recoveries"] == 2
    # Each removal: the next step raised UnavailableError naming the lost task, within
    # seconds, and a new session restored the last checkpoint on the nodes left.
    assert len(result["warnings"]) == 2
    for (_, victim), warning in zip(result["removals"], result["warnings"]):
        job, task = victim.split("/")
        assert warning.startswith("UnavailableError"), warning
        assert f"/job:{job}/replica:0/task:{task}" in warning
    assert all(secs < 10.0 for secs in result["error_secs"]), result["error_secs"]
    assert [step for _, step in result["recovered"]] == [3, 6]
    assert all(secs < 60.0 for secs, _ in result["recovered"]), result["recovered"]
    # The lost tasks run on other nodes now, all of them alive.
    before, after = result["mts_nodes_before"], result["mts_nodes_after"]
    for _, victim in result["removals"]:
        assert after[victim] != before[victim]
    assert set(after.values()) <= set(result["alive_nodes"])
    assert len(result["alive_nodes"]) == 2
    # Nothing committed lost: the same last step, the values of an undisturbed run.
    assert result["final_step"] == 12 and result["steps"][-1] == 12
    assert result["latest"] == "model.ckpt-12"
    np.testing.assert_allclose(result["final"][0], result["reference"][0], rtol=1e-5)
    np.testing.assert_allclose(result["final"][1], result["reference"][1], rtol=1e-5)


def test_nothing_left_behind(result):
    assert result["placement_groups_left"] == []
    assert [a for a in result["actors_left"] if a.startswith("graphcore/")] == []
