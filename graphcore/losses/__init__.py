"""tf.losses (TF1's ``tf.compat.v1.losses``)."""

# ruff: noqa: F401, F403
from graphcore.losses.losses_impl import *
from graphcore.losses.losses_impl import __all__
