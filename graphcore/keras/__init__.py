"""tf.keras (graph mode, TF1's ``tf.compat.v1.keras``): layers, Sequential and functional
Models trained by compile/fit in the Keras session, backend, optimizers, losses, metrics,
callbacks and utils. Not here: datasets (downloads), applications, HDF5 model files."""

# ruff: noqa: F401
from graphcore.keras import (
    activations,
    backend,
    callbacks,
    initializers,
    layers,
    losses,
    metrics,
    models,
    optimizers,
    regularizers,
    utils,
)
from graphcore.keras.engine import Input
from graphcore.keras.sequential import Sequential
from graphcore.keras.training import Model
