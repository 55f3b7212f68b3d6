"""tf.initializers: the variable initializers under their short names."""

# ruff: noqa: F401
from graphcore.ops.init_ops import (
    Constant as constant,
)
from graphcore.ops.init_ops import (
    GlorotNormal as glorot_normal,
)
from graphcore.ops.init_ops import (
    GlorotUniform as glorot_uniform,
)
from graphcore.ops.init_ops import Identity as identity
from graphcore.ops.init_ops import (
    Ones as ones,
)
from graphcore.ops.init_ops import Orthogonal as orthogonal
from graphcore.ops.init_ops import (
    RandomNormal as random_normal,
)
from graphcore.ops.init_ops import (
    RandomUniform as random_uniform,
)
from graphcore.ops.init_ops import (
    TruncatedNormal as truncated_normal,
)
from graphcore.ops.init_ops import UniformUnitScaling as uniform_unit_scaling
from graphcore.ops.init_ops import (
    VarianceScaling as variance_scaling,
)
from graphcore.ops.init_ops import (
    Zeros as zeros,
)
from graphcore.ops.init_ops import he_normal, he_uniform, lecun_normal, lecun_uniform
from graphcore.ops.lookup_ops import tables_initializer
from graphcore.ops.variables import global_variables_initializer as global_variables
from graphcore.ops.variables import local_variables_initializer as local_variables
from graphcore.ops.variables import variables_initializer as variables
