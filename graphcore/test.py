"""tf.test: gradient checks (``compute_gradient``, ``compute_gradient_error``)."""

# ruff: noqa: F401
from graphcore.ops.gradient_checker import compute_gradient, compute_gradient_error
