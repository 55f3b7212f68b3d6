"""The local cluster ray_runtime starts (ray_runtime/cluster.py) keeps Ray's token
authentication on and its dashboard off, or on 127.0.0.1 only: a fresh process (its own
home, so no token exists yet) runs a step on the embedded cluster."""

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ray_runtime import cluster as cluster_lib

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import os
import graphcore as tf
import ray_runtime
from ray._raylet import AuthenticationMode, get_authentication_mode
cluster = tf.train.ClusterSpec({"ps": 1, "worker": 1})
with tf.device("/job:ps/task:0"):
    v = tf.Variable(2.0)
with tf.device("/job:worker/task:0"):
    y = v * 3.0
with ray_runtime.session("ray://local", cluster=cluster, cluster_name="sec") as sess:
    sess.run(v.initializer)
    print("value", sess.run(y))
ray_runtime.shutdown_cluster("sec")
print("token", get_authentication_mode() == AuthenticationMode.TOKEN,
      os.path.exists(os.path.expanduser("~/.ray/auth_token")))
"""


def test_embedded_cluster_runs_with_token_auth(tmp_path):
    env = {k: v for k, v in os.environ.items()
           if k not in ("RAY_AUTH_MODE", "RAY_ADDRESS", "GRAPHCORE_RAY_DASHBOARD")}
    env.update(HOME=str(tmp_path), PYTHONPATH=str(ROOT), GRAPHCORE_RAY_CPUS="2",
               RAY_USAGE_STATS_ENABLED="0")
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                         timeout=240, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.splitlines()
    assert "value 6.0" in lines
    assert "token True True" in lines


@pytest.fixture
def started(monkeypatch):
    calls = []
    monkeypatch.setattr(cluster_lib.ray, "init", lambda **kw: calls.append(kw))
    for name in ("RAY_AUTH_MODE", "GRAPHCORE_RAY_DASHBOARD"):
        monkeypatch.setenv(name, "")  # restored (or removed) after the test
        monkeypatch.delenv(name)
    return calls


def test_dashboard_off_or_on_localhost_only(started, monkeypatch):
    cluster_lib._start_embedded()
    assert "RAY_AUTH_MODE" not in os.environ  # left to Ray, which turns token mode on
    assert started[0]["include_dashboard"] is False
    assert started[0]["dashboard_host"] == "127.0.0.1"
    monkeypatch.setenv("GRAPHCORE_RAY_DASHBOARD", "1")
    cluster_lib._start_embedded()
    assert started[1]["include_dashboard"] is True
    assert started[1]["dashboard_host"] == "127.0.0.1"


def test_auth_disabled_by_the_environment_warns(started, monkeypatch, caplog):
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    with caplog.at_level(logging.WARNING, logger="ray_runtime"):
        cluster_lib._start_embedded()
    assert "without token authentication" in caplog.text
