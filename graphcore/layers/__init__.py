"""tf.layers (TF1's ``tf.compat.v1.layers``)."""

# ruff: noqa: F401
from graphcore.layers.core import dense, dropout, flatten
