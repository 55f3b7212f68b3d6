"""Runs a TF1 script on TensorFlow itself (TF 2.x's compat.v1 with v2 behaviour off), with
``tensorflow.examples.tutorials.mnist`` served by graphcore's stand-in (its model module
``mnist.py`` built with TF: its source runs with ``graphcore`` standing for TF): the
reference side of the tutorial tests."""

import importlib.util
import os
import runpy
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow.compat.v1 as tf1  # noqa: E402

import graphcore.tutorials  # noqa: E402
from graphcore.tutorials import mnist  # noqa: E402
from graphcore.tutorials.mnist import input_data  # noqa: E402

tf1.disable_v2_behavior()


def _model_module_on_tf():
    """graphcore.tutorials.mnist.mnist, imported with ``import graphcore as tf`` giving TF."""
    spec = importlib.util.find_spec("graphcore.tutorials.mnist.mnist")
    module = importlib.util.module_from_spec(spec)
    graphcore = sys.modules["graphcore"]
    sys.modules["graphcore"] = tf1
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules["graphcore"] = graphcore
    return module


mnist_model = _model_module_on_tf()
mnist.mnist = mnist_model
sys.modules["tensorflow"] = tf1
sys.modules["tensorflow.examples"] = graphcore.tutorials
sys.modules["tensorflow.examples.tutorials"] = graphcore.tutorials
sys.modules["tensorflow.examples.tutorials.mnist"] = mnist
sys.modules["tensorflow.examples.tutorials.mnist.input_data"] = input_data
sys.modules["tensorflow.examples.tutorials.mnist.mnist"] = mnist_model

script = sys.argv[1]
sys.argv = sys.argv[1:]
runpy.run_path(script, run_name="__main__")
