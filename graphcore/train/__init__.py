"""tf.train: optimizers, Saver, and training utilities."""

# ruff: noqa: F401, F403
from graphcore.train.device_setter import *
from graphcore.train.saver import *
from graphcore.train.server_lib import *
