"""What ``tf.contrib.layers`` functions share (TF 1.15's ``layers/utils.py`` and the private
helpers of ``layers.py``): named outputs in ``outputs_collections``, per-variable collection
choice, and the variable getter that makes core-layer weights model variables named
``weights`` / ``biases``."""

from __future__ import annotations

from typing import Any

from graphcore.contrib import framework
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_util
from graphcore.ops import variables as variables_lib

__all__ = ["append_tensor_alias", "collect_named_outputs", "constant_value",
           "convert_collection_to_dict", "get_tensor_aliases", "get_variable_collections"]


def append_tensor_alias(tensor: Any, alias: str) -> Any:
    """Adds ``alias`` (without a trailing '/') to ``tensor.aliases``."""
    if alias[-1] == "/":
        alias = alias[:-1]
    if hasattr(tensor, "aliases"):
        tensor.aliases.append(alias)
    else:
        tensor.aliases = [alias]
    return tensor


def collect_named_outputs(collections: Any, alias: str, outputs: Any) -> Any:
    """``outputs`` aliased ``alias`` and added to ``collections`` (when given)."""
    if collections:
        append_tensor_alias(outputs, alias)
        ops_lib.add_to_collections(collections, outputs)
    return outputs


def get_tensor_aliases(tensor: Any) -> list:
    """The aliases of ``tensor`` (its name without ':0' when it has none)."""
    if hasattr(tensor, "aliases"):
        return list(tensor.aliases)
    name = tensor.name
    return [name[:-2] if name.endswith(":0") else name]


def convert_collection_to_dict(collection: str, clear_collection: bool = False) -> dict:
    """{alias: tensor} of the tensors in ``collection``."""
    from collections import OrderedDict
    output = OrderedDict((alias, tensor) for tensor in ops_lib.get_collection(collection)
                         for alias in get_tensor_aliases(tensor))
    if clear_collection:
        ops_lib.get_default_graph().clear_collection(collection)
    return output


def constant_value(value_or_tensor_or_var: Any, dtype: Any = None) -> Any:
    """The Python/numpy value of a constant or constant tensor; None for a placeholder or a
    variable."""
    if value_or_tensor_or_var is None:
        raise ValueError("value_or_tensor_or_var cannot be None")
    value = value_or_tensor_or_var
    if isinstance(value, variables_lib.Variable):
        return None
    if isinstance(value, ops_lib.Tensor):
        value = tensor_util.constant_value(value)
    if value is not None and dtype is not None:
        value = dtype.as_numpy_dtype(value)
    return value


def get_variable_collections(variables_collections: Any, name: str) -> Any:
    """The collections for variable ``name``: ``variables_collections[name]`` when it is a
    dict, else ``variables_collections`` itself."""
    if isinstance(variables_collections, dict):
        return variables_collections.get(name, None)
    return variables_collections


def add_variable_to_collections(variable: Any, collections_set: Any, name: str) -> None:
    """Adds ``variable`` (each of its partitions) to its collections in ``collections_set``."""
    collections = get_variable_collections(collections_set, name) or []
    parts = list(variable) if isinstance(variable, variables_lib.PartitionedVariable) \
        else [variable]
    for collection in collections:
        present = ops_lib.get_collection(collection)
        for var in parts:
            if not any(var is v for v in present):
                ops_lib.add_to_collection(collection, var)


def model_variable_getter(getter: Any, name: str, shape: Any = None, dtype: Any = None,
                          initializer: Any = None, regularizer: Any = None,
                          trainable: bool = True, collections: Any = None,
                          caching_device: Any = None, partitioner: Any = None,
                          rename: dict | None = None, use_resource: Any = None,
                          **_: Any) -> Any:
    """A custom getter making core-layer variables ``model_variable``s, renaming the last
    name component by ``rename`` (kernel -> weights, bias -> biases)."""
    parts = name.split("/")
    if rename and parts[-1] in rename:
        parts[-1] = rename[parts[-1]]
        name = "/".join(parts)
    return framework.model_variable(
        name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
        collections=collections, trainable=trainable, caching_device=caching_device,
        partitioner=partitioner, custom_getter=getter, use_resource=use_resource)


def build_variable_getter(rename: dict | None = None) -> Any:
    def layer_variable_getter(getter: Any, *args: Any, **kwargs: Any) -> Any:
        kwargs["rename"] = rename
        return model_variable_getter(getter, *args, **kwargs)

    return layer_variable_getter


def layer_bias_renames() -> dict:
    return {"bias": "biases", "kernel": "weights"}
