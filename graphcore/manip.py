"""``tf.manip``: TF1's older home of a few array manipulations (the same functions as the
top level). ``space_to_batch_nd``/``batch_to_space_nd`` join when their ops exist."""

# ruff: noqa: F401, I001
from graphcore.ops.array_ops import reshape, reverse, tile
from graphcore.ops.manip_ops import roll
from graphcore.ops.scatter_ops import gather_nd, scatter_nd
