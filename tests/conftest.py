"""Shared fixtures: every test builds in a fresh default graph."""

import pytest

import graphcore as tf


@pytest.fixture(autouse=True)
def _fresh_default_graph():
    tf.reset_default_graph()
    yield
