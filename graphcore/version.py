"""``tf.version``: the version constants of the TF1 API graphcore implements and of the
GraphDefs it writes (the same values as ``tf.VERSION``, ``tf.GRAPH_DEF_VERSION`` ...)."""

# ruff: noqa: F401, I001
from graphcore.framework.ops import (
    GRAPH_DEF_VERSION, GRAPH_DEF_VERSION_MIN_CONSUMER, GRAPH_DEF_VERSION_MIN_PRODUCER,
)
from graphcore.ops.execution_mode import COMPILER_VERSION, GIT_VERSION, VERSION
