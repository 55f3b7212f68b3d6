"""Shared fixtures: every test builds in a fresh default graph.

The TensorFlow reference tier compares with TF's own kernels (Eigen): TF swaps in oneDNN
kernels on CPUs with AVX-512 and newer, whose messages (and roundings) differ from TF's
kernels elsewhere, so the reference would depend on the machine. Set before TF loads.
"""

import os

import pytest

os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import graphcore as tf


@pytest.fixture(autouse=True)
def _fresh_default_graph():
    tf.reset_default_graph()
    yield
