"""tf.sets: set operations over the last dimension of dense and sparse tensors."""

# ruff: noqa: F401
from graphcore.ops.sets_ops import set_difference, set_intersection, set_size, set_union
from graphcore.ops.sets_ops import set_difference as difference
from graphcore.ops.sets_ops import set_intersection as intersection
from graphcore.ops.sets_ops import set_size as size
from graphcore.ops.sets_ops import set_union as union

__all__ = ["difference", "intersection", "set_difference", "set_intersection", "set_size",
           "set_union", "size", "union"]
