"""``tf.nn.experimental``: general_dropout and stateless_dropout."""

# ruff: noqa: F401
from graphcore.ops.nn_dropout import general_dropout, stateless_dropout
