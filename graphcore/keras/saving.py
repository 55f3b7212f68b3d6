"""Whole Keras models as files and configs (tf.keras.models.save_model / load_model,
model_from_config / model_from_json): Keras' HDF5 model file (``model_config`` and
``training_config`` JSON attributes, the weights under ``model_weights``, the Keras
optimizer's weights under ``optimizer_weights`` by their variable names), so that a file
TF's ``model.save("m.h5")`` wrote loads here and one written here loads in TF, training
resuming from the saved optimizer state. Not here: the SavedModel directory and the zipped
``.keras`` format."""

from __future__ import annotations

import json
import os
from typing import Any

from graphcore.keras import backend as K
from graphcore.keras import custom_objects as custom_lib
from graphcore.keras import losses as losses_lib
from graphcore.keras import optimizers
from graphcore.keras.engine import deserialize_layer
from graphcore.keras.network import (
    KERAS_VERSION,
    _h5py,
    _json_default,
    load_weights_from_hdf5_group,
    model_config,
    save_weights_to_hdf5_group,
)
from graphcore.platform import tf_logging as logging

__all__ = ["load_model", "model_from_config", "model_from_json", "save_model"]


def model_from_config(config: dict, custom_objects: dict | None = None) -> Any:
    """The model (or layer) a ``{"class_name", "config"}`` dict describes."""
    if isinstance(config, list):
        raise TypeError("`model_from_config` expects a dictionary, not a list. Received: "
                        f"config={config}. Did you meant to use `Sequential.from_config"
                        "(config)`?")
    return deserialize_layer(config, custom_objects)


def model_from_json(json_string: str, custom_objects: dict | None = None) -> Any:
    """The model ``model.to_json()`` describes (new weights)."""
    return model_from_config(json.loads(json_string), custom_objects)


def _legacy(config: dict) -> dict:
    """The model config as Keras' HDF5 file holds it: its layers as ``{"class_name",
    "config"}`` (with ``name``/``inbound_nodes`` for a functional model)."""
    config = dict(config, config=dict(config["config"]))
    config.pop("keras_version", None)
    config.pop("backend", None)
    layers = []
    for entry in config["config"].get("layers", []):
        entry = dict(entry)
        for key in ("module", "registered_name", "build_config"):
            entry.pop(key, None)
        layers.append(entry)
    if "layers" in config["config"]:
        config["config"]["layers"] = layers
    return config


def _training_config(model: Any) -> dict:
    compiled = model._compiled
    metrics = compiled["metrics"]
    return {"loss": _nested(losses_lib.serialize, compiled["loss"]),
            "metrics": metrics if metrics is None or isinstance(metrics, (list, dict))
            else [metrics],
            "loss_weights": compiled["loss_weights"],
            "sample_weight_mode": compiled["sample_weight_mode"],
            "weighted_metrics": compiled["weighted_metrics"],
            "optimizer_config": optimizers.serialize(model.optimizer)}


def _nested(fn: Any, value: Any) -> Any:
    if isinstance(value, dict) and "class_name" not in value:
        return {k: _nested(fn, v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_nested(fn, v) for v in value]
    return fn(value)


def _is_h5(filepath: Any) -> bool:
    return str(filepath).endswith((".h5", ".hdf5"))


def save_model(model: Any, filepath: Any, overwrite: bool = True,
               include_optimizer: bool = True, save_format: str | None = None,
               signatures: Any = None, options: Any = None,
               save_traces: bool = True) -> None:
    """Writes ``model`` (a Sequential or functional Model) as Keras' HDF5 model file:
    its config, its weights and, when compiled, its compile arguments."""
    del signatures, options, save_traces
    filepath = os.fspath(filepath)
    if save_format not in ("h5", None) or (save_format is None and not _is_h5(filepath)):
        raise NotImplementedError(
            "graphcore saves Keras models in the HDF5 format only: pass a path ending in "
            "'.h5' or save_format='h5' (the SavedModel directory and the '.keras' zip "
            "format are not implemented).")
    if not model._is_graph_network:
        raise NotImplementedError(
            "Saving the model to HDF5 format requires the model to be a Functional model "
            "or a Sequential model. It does not work for subclassed models, because such "
            "models are defined via the body of a Python method, which isn't safely "
            "serializable. Consider saving to the Tensorflow SavedModel format (by "
            "setting save_format=\"tf\") or using `save_weights`.")
    if not overwrite and os.path.isfile(filepath):
        raise NotImplementedError("save_model(overwrite=False) asks on the terminal in "
                                  "Keras; graphcore does not: remove the file first.")
    dirpath = os.path.dirname(filepath)
    if dirpath:
        os.makedirs(dirpath, exist_ok=True)
    with _h5py().File(filepath, "w") as f:
        f.attrs["backend"] = "tensorflow"
        f.attrs["keras_version"] = KERAS_VERSION
        f.attrs["model_config"] = json.dumps(_legacy(model_config(model)),
                                             default=_json_default).encode("utf8")
        if include_optimizer and model.optimizer is not None and \
                isinstance(model.optimizer, optimizers.Optimizer):
            f.attrs["training_config"] = json.dumps(
                _training_config(model), default=_json_default).encode("utf8")
        save_weights_to_hdf5_group(f.create_group("model_weights"), model)
        if include_optimizer and isinstance(model.optimizer, optimizers.Optimizer):
            _save_optimizer_weights(f, model.optimizer)


def load_model(filepath: Any, custom_objects: dict | None = None, compile: bool = True,
               options: Any = None, safe_mode: bool = True) -> Any:
    """The model of a Keras HDF5 model file (TF's or graphcore's): rebuilt from its
    config, its weights set, compiled as it was saved (``compile=True``)."""
    del options, safe_mode
    filepath = os.fspath(filepath)
    if not _is_h5(filepath) and not str(filepath).endswith(".keras") and \
            os.path.isdir(filepath):
        raise NotImplementedError("graphcore loads Keras models from HDF5 files only (a "
                                  "SavedModel directory cannot be loaded).")
    with _h5py().File(filepath, "r") as f, custom_lib.CustomObjectScope(custom_objects or {}):
        config = f.attrs.get("model_config")
        if config is None:
            raise ValueError(f"No model config found in the file at {filepath}.")
        config = json.loads(config.decode("utf8") if hasattr(config, "decode") else config)
        model = model_from_config(config, custom_objects)
        load_weights_from_hdf5_group(f["model_weights"], model)
        if not compile:
            return model
        training_config = f.attrs.get("training_config")
        if training_config is None:
            logging.warning("No training configuration found in the save file, so the "
                            "model was *not* compiled. Compile it manually.")
            return model
        training_config = json.loads(training_config.decode("utf8") if hasattr(
            training_config, "decode") else training_config)
        model.compile(**_compile_args(training_config, custom_objects))
        if "optimizer_weights" in f:
            _load_optimizer_weights(f["optimizer_weights"], model)
    return model


def _save_optimizer_weights(f: Any, optimizer: Any) -> None:
    """Keras' ``optimizer_weights`` group: ``weight_names`` and a dataset per weight at
    its variable's name (``training/Adam/dense/kernel/m:0``)."""
    weights = optimizer.weights
    if not weights:
        return
    group = f.create_group("optimizer_weights")
    names = [w.name.encode("utf8") for w in weights]
    group.attrs["weight_names"] = names
    for name, value in zip(names, K.batch_get_value(weights)):
        group.create_dataset(name, data=value)


def _load_optimizer_weights(group: Any, model: Any) -> None:
    """The saved optimizer state set into the model's optimizer, whose variables are
    made now (outside fit's name scope, as TF's load_model makes them)."""
    optimizer = model.optimizer
    try:
        optimizer._create_all_weights(model.trainable_weights)
    except (NotImplementedError, AttributeError):
        logging.warning(f"Error when creating the weights of optimizer {optimizer}, making "
                        "it impossible to restore the saved optimizer state. As a result, "
                        "your model is starting with a freshly initialized optimizer.")
    names = [n.decode("utf8") if hasattr(n, "decode") else str(n)
             for n in group.attrs["weight_names"]]
    try:
        optimizer.set_weights([group[n][()] for n in names])
    except ValueError:
        logging.warning("Error in loading the saved optimizer state. As a result, your model "
                        "is starting with a freshly initialized optimizer.")


def _compile_args(training_config: dict, custom_objects: dict | None) -> dict:
    loss = training_config.get("loss")
    return {"optimizer": optimizers.deserialize(training_config["optimizer_config"],
                                                custom_objects),
            "loss": None if loss is None else _nested(
                lambda c: losses_lib.deserialize(c, custom_objects), loss),
            "metrics": training_config.get("metrics"),
            "weighted_metrics": training_config.get("weighted_metrics"),
            "loss_weights": training_config.get("loss_weights"),
            "sample_weight_mode": training_config.get("sample_weight_mode")}
