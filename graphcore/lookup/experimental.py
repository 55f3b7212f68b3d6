"""tf.lookup.experimental: the mutable hash tables."""

# ruff: noqa: F401
from graphcore.ops.lookup_ops import DenseHashTable, MutableHashTable
