"""Several Ray nodes (ray.cluster_utils.Cluster): task actors spread over the nodes by a
SPREAD placement group, a step runs across them, and losing a node is an
UnavailableError naming the task (ray_runtime/master.py, ray_runtime/actors.py).

A ray.cluster_utils.Cluster cannot share a process with the session's Ray cluster,
so multinode_script.py runs in a subprocess of its own; this test reads its result.
"""

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def result():
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("RAY_ADDRESS", None)
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "ray_runtime",
                                                        "multinode_script.py")],
                          capture_output=True, text=True, timeout=150, env=env, cwd=ROOT)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, proc.stdout[-3000:] + proc.stderr[-5000:]
    return json.loads(lines[-1][len("RESULT "):])


def test_tasks_spread_over_nodes_with_a_spread_placement_group(result):
    assert result["node_count"] == 3
    assert result["strategy"] == "SPREAD"
    # 3 tasks, 3 nodes: one task per node.
    assert len(set(result["nodes"].values())) == 3


def test_a_step_runs_across_nodes(result):
    # w = [[0, 1], [2, 3], [4, 5]]; worker i computes (i + 1) * ones(1, 3) @ w.
    assert result["total"] == [[18.0, 27.0]]


def test_node_loss_is_unavailable_error_naming_the_task(result):
    kind, message = result["error"]
    job, task = result["victim"].split("/")
    assert kind == "UnavailableError"
    assert f"/job:{job}/replica:0/task:{task}" in message
    assert result["error_secs"] < 30.0
