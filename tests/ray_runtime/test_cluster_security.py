"""The local cluster ray_runtime starts (ray_runtime/cluster.py) keeps Ray's token
authentication on and its dashboard off, or on 127.0.0.1 only."""

import logging

import pytest

from ray_runtime import cluster as cluster_lib


@pytest.fixture
def started(monkeypatch):
    calls = []
    monkeypatch.setattr(cluster_lib.ray, "init", lambda **kw: calls.append(kw))
    for name in ("RAY_AUTH_MODE", "GRAPHCORE_RAY_DASHBOARD"):
        monkeypatch.setenv(name, "")  # restored (or removed) after the test
        monkeypatch.delenv(name)
    return calls


def test_embedded_cluster_has_token_auth_and_no_public_dashboard(started):
    import os

    cluster_lib._start_embedded()
    assert os.environ["RAY_AUTH_MODE"] == "token"
    assert started[0]["include_dashboard"] is False
    assert started[0]["dashboard_host"] == "127.0.0.1"


def test_dashboard_on_request_binds_localhost(started, monkeypatch):
    monkeypatch.setenv("GRAPHCORE_RAY_DASHBOARD", "1")
    cluster_lib._start_embedded()
    assert started[0]["include_dashboard"] is True
    assert started[0]["dashboard_host"] == "127.0.0.1"


def test_auth_disabled_by_the_environment_warns(started, monkeypatch, caplog):
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    with caplog.at_level(logging.WARNING, logger="ray_runtime"):
        cluster_lib._start_embedded()
    assert "without token authentication" in caplog.text
