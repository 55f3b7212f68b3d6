"""tf.keras.models: Model and Sequential."""

# ruff: noqa: F401
from graphcore.keras.sequential import Sequential
from graphcore.keras.training import Model
