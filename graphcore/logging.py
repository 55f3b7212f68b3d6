"""``tf.logging`` (TF1's tf.compat.v1.logging), over the "tensorflow" Python logger."""

# ruff: noqa: F401, F403
from graphcore.platform.tf_logging import *
from graphcore.platform.tf_logging import __all__
