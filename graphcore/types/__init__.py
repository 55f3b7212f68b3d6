"""``tf.types``: type annotations for TF values."""

from graphcore.types import experimental

__all__ = ["experimental"]
