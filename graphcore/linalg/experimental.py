"""tf.linalg.experimental: conjugate gradients over a LinearOperator."""

# ruff: noqa: F401
from graphcore.ops.linalg_impl import conjugate_gradient
