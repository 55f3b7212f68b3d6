"""tf.random: the random ops under their short names."""

# ruff: noqa: F401
from graphcore.ops.random_ops import get_seed, set_random_seed, truncated_normal
from graphcore.ops.random_ops import random_normal as normal
from graphcore.ops.random_ops import random_shuffle as shuffle
from graphcore.ops.random_ops import random_uniform as uniform
