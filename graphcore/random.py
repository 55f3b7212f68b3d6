"""tf.random: the random ops under their short names."""

# ruff: noqa: F401
from graphcore.ops.random_distribution_ops import (
    categorical,
    multinomial,
    poisson,
    stateless_categorical,
    stateless_multinomial,
    stateless_truncated_normal,
)
from graphcore.ops.random_distribution_ops import random_gamma as gamma
from graphcore.ops.random_distribution_ops import stateless_random_normal as stateless_normal
from graphcore.ops.random_distribution_ops import (
    stateless_random_uniform as stateless_uniform,
)
from graphcore.ops.random_ops import get_seed, set_random_seed, truncated_normal
from graphcore.ops.random_ops import random_normal as normal
from graphcore.ops.random_ops import random_shuffle as shuffle
from graphcore.ops.random_ops import random_uniform as uniform
from graphcore.ops.random_ops import set_random_seed as set_seed
