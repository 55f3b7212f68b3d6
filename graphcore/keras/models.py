"""tf.keras.models: Model and Sequential, and whole models as files and configs."""

# ruff: noqa: F401
from graphcore.keras.saving import load_model, model_from_config, model_from_json, save_model
from graphcore.keras.sequential import Sequential
from graphcore.keras.training import Model
