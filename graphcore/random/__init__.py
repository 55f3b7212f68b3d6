"""tf.random: the random ops under their short names."""

# ruff: noqa: F401
from graphcore.ops.candidate_sampling_ops import (
    all_candidate_sampler,
    fixed_unigram_candidate_sampler,
    learned_unigram_candidate_sampler,
    log_uniform_candidate_sampler,
    uniform_candidate_sampler,
)
from graphcore.ops.random_distribution_ops import (
    categorical,
    multinomial,
    poisson,
    stateless_categorical,
    stateless_multinomial,
)
from graphcore.ops.random_distribution_ops import random_gamma as gamma
from graphcore.ops.random_ops import get_seed, set_random_seed, truncated_normal
from graphcore.ops.random_ops import random_normal as normal
from graphcore.ops.random_ops import random_shuffle as shuffle
from graphcore.ops.random_ops import random_uniform as uniform
from graphcore.ops.random_ops import set_random_seed as set_seed
from graphcore.ops.stateful_random_ops import (
    Generator,
    get_global_generator,
    set_global_generator,
)
from graphcore.ops.stateless_random_ops import (
    Algorithm,
    create_rng_state,
    fold_in,
    split,
    stateless_parameterized_truncated_normal,
    stateless_truncated_normal,
)
from graphcore.ops.stateless_random_ops import stateless_random_binomial as stateless_binomial
from graphcore.ops.stateless_random_ops import stateless_random_gamma as stateless_gamma
from graphcore.ops.stateless_random_ops import stateless_random_normal as stateless_normal
from graphcore.ops.stateless_random_ops import stateless_random_poisson as stateless_poisson
from graphcore.ops.stateless_random_ops import (
    stateless_random_uniform as stateless_uniform,
)
from graphcore.random import experimental
