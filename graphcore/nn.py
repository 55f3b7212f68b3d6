"""tf.nn: neural-network ops."""

# ruff: noqa: F401, F403
from graphcore.ops.nn_ops import *
from graphcore.ops.nn_ops import __all__ as _nn_all
from graphcore.ops.nn_ops import dropout_v2

__all__ = list(_nn_all)
