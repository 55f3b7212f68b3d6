"""tf.random.experimental: the Generator API and the stateless seed ops under their
experimental names."""

# ruff: noqa: F401
from graphcore.ops.stateful_random_ops import (
    Generator,
    get_global_generator,
    set_global_generator,
)
from graphcore.ops.stateless_random_ops import (
    Algorithm,
    create_rng_state,
    index_shuffle,
    stateless_shuffle,
)
from graphcore.ops.stateless_random_ops import fold_in as stateless_fold_in
from graphcore.ops.stateless_random_ops import split as stateless_split
