"""The Keras layer base in graph mode (tf.keras.layers.Layer), InputLayer and Input.

A Keras layer is a tf.layers Layer (graphcore/layers/base.py) whose weights are plain
``tf.Variable``s made under the name scope of the layer's unique name (``dense/kernel:0``),
as Keras makes them, not ``get_variable`` in a variable scope. Each call opens a fresh name
scope (``dense``, then ``dense_1``...), passes ``training=K.learning_phase()`` to a ``call``
that takes ``training`` and none was given, and records a ``Node`` (inputs, outputs) so that
``tf.keras.Model(inputs, outputs)`` can find the layers between them. Losses go to
``layer.losses`` and updates to ``layer.updates`` only (no graph collections), as Keras'.
"""

from __future__ import annotations

import inspect
import itertools
from typing import Any

import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import nest
from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.keras import activations, constraints, initializers, regularizers
from graphcore.keras import backend as K
from graphcore.keras import custom_objects as custom_lib
from graphcore.layers import base as base_layer
from graphcore.ops import array_ops
from graphcore.ops import variables as variables_lib
from graphcore.train import trackable

__all__ = ["Input", "InputLayer", "InputSpec", "Layer", "Node", "deserialize_layer",
           "get_mask", "keras_history", "serialize_layer", "set_mask"]

InputSpec = base_layer.InputSpec
_NODE_COUNTER = itertools.count()


class Node:
    """One call of ``layer``: its (flat) input and output tensors and call kwargs."""

    def __init__(self, layer: Any, inputs: Any, outputs: Any, kwargs: dict) -> None:
        self.layer = layer
        self.input_structure = inputs
        self.inputs = nest.flatten(inputs)
        self.output_structure = outputs
        self.outputs = nest.flatten(outputs)
        self.kwargs = kwargs
        self.order = next(_NODE_COUNTER)


def keras_history(tensor: Any) -> tuple | None:
    """``(layer, node_index, tensor_index)`` of the call that made ``tensor``, or None."""
    return tensor.graph.__dict__.get("_keras_history", {}).get(tensor)


def _set_history(tensor: Any, history: tuple) -> None:
    tensor.graph.__dict__.setdefault("_keras_history", {})[tensor] = history


def get_mask(tensor: Any) -> Any:
    """The Keras mask of ``tensor`` (TF's ``tensor._keras_mask``), or None."""
    graph = getattr(tensor, "graph", None)
    if graph is None:
        return None
    return graph.__dict__.get("_keras_masks", {}).get(tensor)


def set_mask(tensor: Any, mask: Any) -> None:
    masks = tensor.graph.__dict__.setdefault("_keras_masks", {})
    if mask is None:
        masks.pop(tensor, None)
    else:
        masks[tensor] = mask


_KERAS_CLASSES: dict = {}

# Attributes graphcore's Keras sets for its own bookkeeping: never checkpoint dependencies
# (Keras sets its own in __init__s under no_automatic_dependency_tracking).
_NOT_TRACKED = frozenset({
    "_tracked", "_inbound_nodes", "_trainable_weights", "_non_trainable_weights",
    "_updates", "_losses", "_layers", "_stack", "_input_layer", "_nodes_in_order",
    "_nodes_by_depth", "_network_node_ids", "_nested_inputs", "_nested_outputs",
    "_outputs_structure", "_graph_fns", "_compiled", "_init_args", "_build_input_shape",
    "_batch_input_shape", "_sample_weights", "_targets", "_train_function", "_test_fetches",
    "_fn_kwargs", "_scope", "_current_scope", "inputs", "outputs", "input_spec",
    "metrics_names", "history", "input_structure", "output_structure",
})


class Layer(base_layer.Layer):
    """tf.keras.layers.Layer: ``build(input_shape)``, ``call(inputs)``, ``add_weight``."""

    _build_input_shape = None
    # Whether the layer passes its input's mask on (Keras' ``supports_masking``).
    _supports_masking = False
    # False for the classes whose Keras versions have no ``build`` of their own: Keras
    # writes no ``build_config`` for them.
    _has_build_config = True
    # The class's attributes that are no checkpoint dependencies in Keras either.
    _untracked: frozenset = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # Keras' own classes, by the names configs use (deserialize_layer).
        if cls.__module__.startswith("graphcore.keras") and not cls.__name__.startswith("_"):
            _KERAS_CLASSES.setdefault(cls.__name__, cls)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        batch_input_shape = kwargs.pop("batch_input_shape", None)
        input_shape = kwargs.pop("input_shape", None)
        input_dim = kwargs.pop("input_dim", None)
        batch_size = kwargs.pop("batch_size", None)
        if kwargs.pop("weights", None) is not None:
            raise NotImplementedError("The `weights` argument of Keras layers is not "
                                      "implemented in graphcore: call set_weights after "
                                      "the layer is built.")
        if input_shape is None and input_dim is not None:
            input_shape = (input_dim,)
        if batch_input_shape is None and input_shape is not None:
            batch_input_shape = (batch_size,) + tuple(input_shape)
        self._batch_input_shape = tuple(batch_input_shape) if batch_input_shape \
            is not None else None
        super().__init__(*args, **kwargs)
        self.supports_masking = self._supports_masking
        self._inbound_nodes: list = []
        self._expects_training = "training" in inspect.signature(self.call).parameters
        self._expects_mask_arg = "mask" in inspect.signature(self.call).parameters

    # -- weights ------------------------------------------------------------------------
    def add_weight(self, name: str, shape: Any = (), dtype: Any = None,
                   initializer: Any = None, regularizer: Any = None,
                   trainable: bool | None = None, constraint: Any = None,
                   **kwargs: Any) -> Any:
        """A ``tf.Variable`` named ``name`` under the current (layer's) name scope."""
        del kwargs
        trainable = True if trainable is None else trainable
        dtype = dtypes_lib.as_dtype(dtype or self.dtype or K.floatx())
        initializer = initializers.get(initializer)
        if initializer is None:
            initializer = initializers.get("glorot_uniform" if dtype.is_floating
                                           else "zeros")
        shape = [int(d) for d in shape]
        variable = variables_lib.Variable(
            lambda: initializer(shape, dtype=dtype), name=name, dtype=dtype,
            trainable=trainable, constraint=constraints.get(constraint))
        variable._keras_name = name
        K.track_variable(variable)
        self._track(name, variable)
        (self._trainable_weights if trainable else self._non_trainable_weights).append(variable)
        if regularizer is not None:
            with ops_lib.name_scope(name + "/Regularizer"):
                self.add_loss(regularizer(variable))
        return variable

    # -- checkpoint dependencies (tf.train.Checkpoint) ------------------------------------
    def _track(self, name: str, value: Any) -> None:
        tracked = self.__dict__.get("_tracked")
        if tracked is None:
            tracked = {}
            object.__setattr__(self, "_tracked", tracked)
        tracked[name] = value

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if name in _NOT_TRACKED or name in self._untracked:
            return
        if trackable.is_trackable(value):
            self._track(name, value)
        elif name in self.__dict__.get("_tracked", ()):
            del self._tracked[name]

    def _trackable_children(self) -> dict[str, Any]:
        """The weights by their names and the trackable attributes (sublayers, variables,
        lists of them), in the order they were made or set, as Keras'."""
        return dict(self.__dict__.get("_tracked", {}))

    def add_loss(self, losses: Any, inputs: Any = None) -> None:
        del inputs
        for loss in nest.flatten(losses):
            loss = loss() if callable(loss) else loss
            if loss is not None:
                self._losses.append(convert_to_tensor(loss))

    def get_weights(self) -> list:
        return K.batch_get_value(self.weights)

    def set_weights(self, weights: list) -> None:
        params = self.weights
        if len(params) != len(weights):
            raise ValueError(f"You called `set_weights(weights)` on layer \"{self.name}\" "
                             f"with a weight list of length {len(weights)}, but the layer "
                             f"was expecting {len(params)} weights.")
        for p, w in zip(params, weights):
            if tuple(p.shape.as_list()) != np.shape(w):
                raise ValueError(f"Layer {self.name} weight shape {tuple(p.shape.as_list())} "
                                 f"is not compatible with provided weight shape "
                                 f"{np.shape(w)}.")
        K.batch_set_value(list(zip(params, weights)))

    def count_params(self) -> int:
        if not self.built:
            raise ValueError(f"You tried to call `count_params` on layer {self.name}, but "
                             "the layer isn't built. You can build it manually via: "
                             f"`{self.name}.build(batch_input_shape)`.")
        return int(sum(np.prod(w.shape.as_list(), dtype=np.int64) for w in self.weights))

    # -- calling ------------------------------------------------------------------------
    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        if self._expects_training and kwargs.get("training") is None and not args:
            kwargs["training"] = K.learning_phase()
        call_kwargs = dict(kwargs)
        with ops_lib.name_scope(self.name):
            inputs = nest.map_structure(convert_to_tensor, inputs)
            # Keras masks: the inputs' masks (or the ``mask`` given) go to a ``call``
            # that takes ``mask``, and ``compute_mask`` gives the outputs theirs.
            if "mask" in kwargs:
                input_masks = kwargs["mask"]
            else:
                input_masks = nest.map_structure(get_mask, inputs)
                if all(m is None for m in nest.flatten(input_masks)):
                    input_masks = None
                if input_masks is not None and self._expects_mask_arg:
                    kwargs["mask"] = input_masks
            base_layer._assert_input_compatibility(self.input_spec, inputs, self.name)
            if not self.built:
                first = nest.flatten(inputs)[0]
                if self._dtype is None:
                    self._dtype = first.dtype.base_dtype.name if first.dtype.is_floating \
                        else K.floatx()
                self.build(nest.map_structure(lambda x: x.shape, inputs))
                self.built = True
                self._build_input_shape = nest.map_structure(
                    lambda x: tuple(x.shape.as_list()) if x.shape.ndims is not None
                    else None, inputs)
            outputs = self.call(inputs, *args, **kwargs)
            if outputs is None:
                raise ValueError("A layer's `call` method should return a Tensor or a "
                                 f"list of Tensors, not None (layer: {self.name}).")
            # As Keras: an input returned unchanged is copied, so that its own history
            # (the layer that made it) stays.
            input_ids = {id(x) for x in nest.flatten(inputs)}
            outputs = nest.map_structure(
                lambda x: array_ops.identity(x) if id(x) in input_ids else x, outputs)
            if self._activity_regularizer is not None:
                self._handle_activity_regularization(inputs, outputs)
            self._set_output_masks(inputs, outputs, input_masks)
        self._add_node(inputs, outputs, call_kwargs)
        return outputs

    # -- masks ----------------------------------------------------------------------------
    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """The outputs' mask: the input mask for a layer that supports masking, else
        None (a mask given to a layer that does not is an error)."""
        if not self.supports_masking:
            if any(m is not None for m in nest.flatten(mask)):
                raise TypeError(f"Layer {self.name} does not support masking, but was "
                                f"passed an input_mask: {mask}")
            return None
        return mask

    def _set_output_masks(self, inputs: Any, outputs: Any, input_masks: Any) -> None:
        flat_outputs = nest.flatten(outputs)
        if all(get_mask(x) is not None for x in flat_outputs):
            return  # set by ``call`` itself
        if not self.supports_masking and type(self).compute_mask is Layer.compute_mask:
            masks = [None] * len(flat_outputs)
        else:
            masks = self.compute_mask(inputs, input_masks)
            masks = [None] * len(flat_outputs) if masks is None else nest.flatten(masks)
        for x, m in zip(flat_outputs, masks):
            set_mask(x, m)

    def _add_node(self, inputs: Any, outputs: Any, kwargs: dict) -> None:
        node = Node(self, inputs, outputs, kwargs)
        self._inbound_nodes.append(node)
        for i, tensor in enumerate(node.outputs):
            _set_history(tensor, (self, len(self._inbound_nodes) - 1, i))

    # -- what the first call saw ----------------------------------------------------------
    def _first_node(self, what: str) -> Node:
        if not self._inbound_nodes:
            raise AttributeError(f"Layer {self.name} is not connected, no input to return." if
                                 what == "input" else f"Layer {self.name} has no inbound "
                                 "nodes.")
        return self._inbound_nodes[0]

    @property
    def input(self) -> Any:
        return self._first_node("input").input_structure

    @property
    def output(self) -> Any:
        return self._first_node("output").output_structure

    def _node_at(self, node_index: int, what: str) -> Node:
        if not self._inbound_nodes:
            raise RuntimeError(f"The layer {self.name} has never been called and thus has "
                               f"no defined {what}.")
        if not 0 <= node_index < len(self._inbound_nodes):
            raise ValueError(f"Asked to get {what} at node {node_index}, but the layer has "
                             f"only {len(self._inbound_nodes)} inbound nodes.")
        return self._inbound_nodes[node_index]

    def get_input_at(self, node_index: int) -> Any:
        return self._node_at(node_index, "input").input_structure

    def get_output_at(self, node_index: int) -> Any:
        return self._node_at(node_index, "output").output_structure

    def get_input_shape_at(self, node_index: int) -> Any:
        return nest.map_structure(lambda t: tuple(t.shape.as_list()),
                                  self.get_input_at(node_index))

    def get_output_shape_at(self, node_index: int) -> Any:
        return nest.map_structure(lambda t: tuple(t.shape.as_list()),
                                  self.get_output_at(node_index))

    def get_input_mask_at(self, node_index: int) -> Any:
        return nest.map_structure(get_mask, self.get_input_at(node_index))

    def get_output_mask_at(self, node_index: int) -> Any:
        return nest.map_structure(get_mask, self.get_output_at(node_index))

    @property
    def input_mask(self) -> Any:
        """The mask of the layer's input (its first call's)."""
        return nest.map_structure(get_mask, self.input)

    @property
    def output_mask(self) -> Any:
        return nest.map_structure(get_mask, self.output)

    @property
    def input_shape(self) -> Any:
        return nest.map_structure(lambda t: tuple(t.shape.as_list()), self.input)

    @property
    def output_shape(self) -> Any:
        return nest.map_structure(lambda t: tuple(t.shape.as_list()), self.output)

    @property
    def activity_regularizer(self) -> Any:
        return self._activity_regularizer

    @activity_regularizer.setter
    def activity_regularizer(self, regularizer: Any) -> None:
        self._activity_regularizer = regularizer

    # -- config -------------------------------------------------------------------------
    # The keys a layer class adds to the base config (Keras' get_config), read from the
    # layer's attributes of the same names; ``_config_defaults`` for the keys the layer
    # keeps no attribute for.
    _config_keys: tuple = ()
    _config_defaults: dict = {}

    def get_config(self) -> dict:
        """Keras' config: name, trainable, batch_input_shape (when given), dtype and the
        class's arguments, initializers/regularizers as their Keras configs and
        activations by name."""
        _check_config_overridden(self)
        config = {"name": self.name, "trainable": self.trainable}
        if self._batch_input_shape is not None:
            config["batch_input_shape"] = self._batch_input_shape
        config["dtype"] = self.dtype or K.floatx()
        for key in self._config_keys:
            value = getattr(self, key) if hasattr(self, key) else self._config_defaults[key]
            config[key] = serialize_argument(key, value)
        return config

    @classmethod
    def from_config(cls, config: dict) -> Layer:
        return cls(**config)


_BASE_INIT_ARGS = {"self", "trainable", "name", "dtype", "dynamic", "kwargs"}


def _check_config_overridden(layer: Layer) -> None:
    """As Keras: a layer class of the user's whose ``__init__`` takes arguments must
    define its own ``get_config``."""
    cls = type(layer)
    for klass in cls.__mro__:
        if klass.__module__.startswith("graphcore."):
            return
        if "get_config" in klass.__dict__:
            return
        if "__init__" in klass.__dict__:
            extra = [p for p in inspect.signature(klass.__init__).parameters
                     if p not in _BASE_INIT_ARGS]
            if extra:
                raise NotImplementedError(
                    f"Layer {cls.__name__} has arguments {extra}\nin `__init__` and "
                    "therefore must override `get_config()`.")


def serialize_argument(key: str, value: Any) -> Any:
    """A layer argument as Keras writes it in a config."""
    if key.endswith("_initializer"):
        return initializers.serialize(value)
    if key.endswith("_regularizer"):
        return regularizers.serialize(value)
    if key.endswith("_constraint"):
        return constraints.serialize(constraints.get(value))
    if key in ("activation", "recurrent_activation"):
        return activations.serialize(value)
    if isinstance(value, (np.ndarray, np.generic)):
        return value.tolist()
    return value


def serialize_layer(layer: Layer) -> dict:
    """``{"module", "class_name", "config", "registered_name"[, "build_config"]}``, as
    Keras' serialize_keras_object writes a layer."""
    out = {"module": "keras.layers", "class_name": type(layer).__name__,
           "config": layer.get_config(), "registered_name": None}
    if layer._build_input_shape is not None and layer._has_build_config:
        out["build_config"] = {"input_shape": layer._build_input_shape}
    return out


def deserialize_layer(config: dict, custom_objects: dict | None = None) -> Layer:
    """The layer (or model) a ``{"class_name", "config"}`` dict describes."""
    name = config["class_name"]
    cls = (custom_objects or {}).get(name) or custom_lib.lookup(name) or \
        _KERAS_CLASSES.get("Model" if name == "Functional" else name)
    if cls is None:
        raise ValueError(f"Unknown layer: '{name}'. Please ensure you are using a "
                         "`keras.utils.custom_object_scope` and that this object is "
                         "included in the scope. See https://www.tensorflow.org/guide/"
                         "keras/save_and_serialize#registering_the_custom_object for "
                         "details.")
    with custom_lib.CustomObjectScope(custom_objects or {}):
        if "custom_objects" in inspect.signature(cls.from_config).parameters:
            return cls.from_config(config["config"], custom_objects=custom_objects)
        return cls.from_config(config["config"])


class InputLayer(Layer):
    """The placeholder a functional model starts from (``input_1``, ``input_2``...)."""

    _has_build_config = False

    def __init__(self, input_shape: Any = None, batch_size: int | None = None,
                 dtype: Any = None, input_tensor: Any = None, sparse: bool = False,
                 name: str | None = None, **kwargs: Any) -> None:
        batch_input_shape = kwargs.pop("batch_input_shape", None)
        if kwargs.pop("ragged", False):
            raise NotImplementedError("ragged Keras inputs are not implemented in graphcore")
        kwargs.pop("optional", None)
        if sparse:
            raise NotImplementedError("sparse Keras inputs are not implemented in graphcore")
        if name is None:
            name = K.unique_object_name("input", zero_based=False)
        super().__init__(name=name, dtype=dtype or K.floatx(), **kwargs)
        if input_tensor is None:
            if batch_input_shape is None:
                if input_shape is None:
                    raise ValueError("Please provide to Input either a `shape` or a "
                                     "`tensor` argument. Note that `shape` does not "
                                     "include the batch dimension.")
                batch_input_shape = (batch_size,) + tuple(input_shape)
            self._batch_input_shape = tuple(batch_input_shape)
            with ops_lib.name_scope(None):
                input_tensor = array_ops.placeholder(self.dtype, shape=batch_input_shape,
                                                     name=self.name)
        else:
            self._batch_input_shape = tuple(input_tensor.shape.as_list())
        self.built = True
        self._add_node([], input_tensor, {})

    def get_config(self) -> dict:
        return {"batch_input_shape": self._batch_input_shape, "dtype": self.dtype,
                "sparse": False, "ragged": False, "name": self.name, "optional": False}


def Input(shape: Any = None, batch_size: int | None = None, name: str | None = None,  # noqa: N802
          dtype: Any = None, sparse: bool = False, tensor: Any = None,
          batch_shape: Any = None, **kwargs: Any) -> Any:
    """A placeholder tensor for a functional model (its InputLayer's output)."""
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments: {list(kwargs)}")
    layer = InputLayer(input_shape=shape, batch_size=batch_size, name=name, dtype=dtype,
                       sparse=sparse, input_tensor=tensor, batch_input_shape=batch_shape)
    return layer.output
