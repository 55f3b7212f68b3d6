"""``tf.contrib`` (TF 1.x): only the parts graphcore has, each where TF 1.15 had it."""

# ruff: noqa: F401
from graphcore.contrib import training
