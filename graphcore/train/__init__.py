"""tf.train: optimizers, Saver, and training utilities."""

# ruff: noqa: F401, F403
from graphcore.train.saver import *
