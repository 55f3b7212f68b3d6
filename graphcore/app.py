"""``tf.app`` (TF1): ``run`` and ``flags``."""

# ruff: noqa: F401
from graphcore.platform import flags
from graphcore.platform.app import run

__all__ = ["flags", "run"]
