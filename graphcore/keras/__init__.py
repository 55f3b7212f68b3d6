"""tf.keras (graph mode, TF1's ``tf.compat.v1.keras``): layers, Sequential and functional
Models trained by compile/fit in the Keras session, backend, optimizers, losses, metrics,
callbacks and utils; whole models as Keras' HDF5 files and JSON configs (keras/saving.py).
Not here: datasets (downloads), applications, the SavedModel form of model.save."""

# ruff: noqa: F401
from graphcore.keras import (
    activations,
    backend,
    callbacks,
    constraints,
    initializers,
    layers,
    losses,
    metrics,
    models,
    optimizers,
    preprocessing,
    regularizers,
    utils,
)
from graphcore.keras.engine import Input
from graphcore.keras.sequential import Sequential
from graphcore.keras.training import Model
