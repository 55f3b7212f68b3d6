"""tf.lookup.experimental: the mutable hash table."""

# ruff: noqa: F401
from graphcore.ops.lookup_ops import MutableHashTable
