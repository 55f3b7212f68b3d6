"""``tf.bitwise``: the bitwise ops of :mod:`graphcore.ops.bitwise_ops` under TF1's names."""

# ruff: noqa: F401, I001
from graphcore.ops.bitwise_ops import (
    bitwise_and, bitwise_or, bitwise_xor, invert, left_shift, right_shift,
)
