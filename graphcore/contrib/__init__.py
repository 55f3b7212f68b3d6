"""``tf.contrib`` (TF 1.15): only the parts graphcore has, each where TF 1.15 had it —
framework (arg_scope, model variables), layers, losses, metrics, rnn, slim and training."""

# ruff: noqa: F401
from graphcore.contrib import framework, layers, losses, metrics, rnn, slim, training
