"""``tf.contrib.slim`` (TF 1.15): one namespace over contrib's arg_scope and variables
(``tf.contrib.framework``), layers, initializers and regularizers (``tf.contrib.layers``),
``slim.losses`` (``tf.contrib.losses``), ``slim.metrics`` (``tf.contrib.metrics``) and
``slim.learning.create_train_op``."""

# ruff: noqa: F401, F403
from graphcore.contrib import losses, metrics
from graphcore.contrib.framework import *
from graphcore.contrib.layers import *
from graphcore.contrib.slim import learning
