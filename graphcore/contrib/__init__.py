"""``tf.contrib`` (TF 1.15): only the parts graphcore has, each where TF 1.15 had it —
data, distributions (the core ones), framework (arg_scope, model variables), layers,
losses, metrics, rnn, slim and training."""

# ruff: noqa: F401
from graphcore.contrib import (
    data,
    distributions,
    framework,
    layers,
    losses,
    metrics,
    rnn,
    slim,
    training,
)
