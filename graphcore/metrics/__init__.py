"""tf.metrics (TF1's ``tf.compat.v1.metrics``): streaming metrics.

Each metric returns ``(value_tensor, update_op)``: running ``update_op`` folds a batch into
local variables (in LOCAL_VARIABLES and METRIC_VARIABLES, zeroed by
``tf.local_variables_initializer()``) and returns the updated value; ``value_tensor`` reads
the value without updating."""

# ruff: noqa: F401, F403
from graphcore.metrics.at_k import *
from graphcore.metrics.metrics_impl import *
from graphcore.metrics.metrics_impl import metric_variable
