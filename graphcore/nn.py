"""tf.nn: neural-network ops."""

# ruff: noqa: F401, F403
from graphcore.ops.nn_ops import *
