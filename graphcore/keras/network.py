"""The functional network: a Keras layer made of the layers between ``inputs`` and
``outputs`` (found through the Nodes their calls recorded), or of the layers a subclass sets
as attributes and uses in its own ``call``. It gathers the layers' weights, updates and
losses, runs them again on new inputs, prints ``summary()`` and saves/loads its weights as
a TF checkpoint with Keras' object-based keys (``layer_with_weights-0/kernel/.ATTRIBUTES/
VARIABLE_VALUE``) or as Keras' HDF5 weights file (with h5py), so both interchange with TF's
``save_weights``."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from graphcore.framework import nest
from graphcore.keras import backend as K
from graphcore.keras.engine import (
    InputLayer,
    Layer,
    deserialize_layer,
    keras_history,
    serialize_layer,
)
from graphcore.keras.layer_utils import print_summary
from graphcore.layers import base as base_layer

__all__ = ["Network"]

_ATTRIBUTE_KEY = ".ATTRIBUTES/VARIABLE_VALUE"
KERAS_VERSION = "2.21.0"  # the tf_keras whose file formats these are


def _dedup(weights: list) -> list:
    seen, out = set(), []
    for w in weights:
        if id(w) not in seen:
            seen.add(id(w))
            out.append(w)
    return out


def _node_of(tensor: Any) -> Any:
    layer, node_index, _ = keras_history(tensor)
    return layer._inbound_nodes[node_index]


class Network(Layer):
    """``Model(inputs, outputs)`` or a subclass with its own ``call``."""

    # Whether the layers are checkpoint dependencies by index even before the model is
    # a graph network (Keras' Functional, which Sequential is).
    _layers_by_index = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        inputs = kwargs.pop("inputs", args[0] if args else None)
        outputs = kwargs.pop("outputs", args[1] if len(args) > 1 else None)
        super().__init__(name=kwargs.pop("name", None), trainable=kwargs.pop("trainable", True),
                         **kwargs)
        self._layers: list = []
        self._is_graph_network = False
        self.inputs: list = []
        self.outputs: list = []
        self._nodes_in_order: list = []
        if inputs is not None:
            if outputs is None:
                raise ValueError("A functional Model needs both `inputs` and `outputs`.")
            self._init_graph_network(inputs, outputs)

    def __setattr__(self, name: str, value: Any) -> None:
        # A subclassed model's layers are the Layer attributes it sets, in order.
        if isinstance(value, base_layer.Layer) and "_layers" in self.__dict__ and \
                not name.startswith("_") and all(value is not x for x in self._layers):
            self._layers.append(value)
        super().__setattr__(name, value)

    def _trackable_children(self) -> dict[str, Any]:
        """A functional model's (and a Sequential's) layers first, as Keras':
        ``layer_with_weights-<k>`` for the k-th layer with weights and ``layer-<i>`` for
        each, then the layer's own dependencies."""
        children: dict[str, Any] = {}
        if self._is_graph_network or self._layers_by_index:
            with_weights = 0
            for index, layer in enumerate(self.layers):
                if layer.weights:
                    children[f"layer_with_weights-{with_weights}"] = layer
                    with_weights += 1
                children[f"layer-{index}"] = layer
        children.update(super()._trackable_children())
        return children

    # -- the graph ------------------------------------------------------------------------
    def _init_graph_network(self, inputs: Any, outputs: Any) -> None:
        self._nested_inputs, self._nested_outputs = inputs, outputs
        self.inputs, self.outputs = nest.flatten(inputs), nest.flatten(outputs)
        for x in self.inputs:
            history = keras_history(x)
            if history is None or not isinstance(history[0], InputLayer):
                raise ValueError("Input tensors to a Functional must come from "
                                 f"`tf.keras.Input`. Received: {x} (missing previous layer "
                                 "metadata).")
        input_ids = {id(x) for x in self.inputs}
        nodes: list = []
        seen: set = set()
        layer_index: dict = {}

        def visit(tensor: Any) -> None:
            history = keras_history(tensor)
            if history is None:
                raise ValueError("Output tensors of a Functional model must be the output "
                                 "of a TensorFlow `Layer` (thus holding past layer "
                                 f"metadata). Found: {tensor}")
            layer = history[0]
            node = _node_of(tensor)
            layer_index.setdefault(id(layer), len(layer_index))
            if id(node) in seen:
                return
            seen.add(id(node))
            if isinstance(layer, InputLayer) and id(tensor) not in input_ids:
                raise ValueError(f"Graph disconnected: cannot obtain value for tensor "
                                 f"{tensor} at layer \"{layer.name}\". The following "
                                 "previous layers were accessed without issue: "
                                 f"{[n.layer.name for n in nodes]}")
            for x in node.inputs:
                visit(x)
            nodes.append(node)

        for x in self.outputs:
            visit(x)
        node_depth: dict = {}
        layer_depth: dict = {}
        for node in reversed(nodes):
            depth = max(node_depth.setdefault(id(node), 0), layer_depth.get(id(node.layer), 0))
            node_depth[id(node)] = depth
            layer_depth[id(node.layer)] = depth
            for x in node.inputs:
                parent = _node_of(x)
                node_depth[id(parent)] = max(node_depth.get(id(parent), 0), depth + 1)
        order = {id(n): i for i, n in enumerate(nodes)}
        self._nodes_in_order = sorted(nodes, key=lambda n: (-node_depth[id(n)], order[id(n)]))
        self._network_node_ids = set(order)
        self._nodes_by_depth: dict = {}
        for n in nodes:
            self._nodes_by_depth.setdefault(node_depth[id(n)], []).append(n)
        layers = _dedup([n.layer for n in nodes])
        self._layers = sorted(layers, key=lambda la: (-layer_depth[id(la)],
                                                      layer_index[id(la)]))
        self._is_graph_network = True
        self.built = True

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        del mask
        if not self._is_graph_network:
            raise NotImplementedError("When subclassing the `Model` class, you should "
                                      "implement a `call` method.")
        return self._run_internal_graph(inputs, training)

    def _run_internal_graph(self, inputs: Any, training: Any) -> Any:
        values = {id(x): y for x, y in zip(self.inputs, nest.flatten(inputs))}
        for node in self._nodes_in_order:
            if isinstance(node.layer, InputLayer):
                continue
            args = nest.pack_sequence_as(node.input_structure,
                                         [values[id(x)] for x in node.inputs])
            kwargs = dict(node.kwargs)
            if training is not None and "training" in kwargs:
                kwargs["training"] = training
            outputs = node.layer(args, **kwargs)
            for x, y in zip(node.outputs, nest.flatten(outputs)):
                values[id(x)] = y
        return nest.pack_sequence_as(self._nested_outputs,
                                     [values[id(x)] for x in self.outputs])

    # -- config -----------------------------------------------------------------------------
    def get_config(self) -> dict:
        """Keras' functional config: each layer's config with its ``inbound_nodes``
        (``[layer name, node index, tensor index, kwargs]`` per input, node indices
        counted within this model), and the ``input_layers``/``output_layers``."""
        if not self._is_graph_network:
            name = type(self).__name__
            raise NotImplementedError(f"Layer {name} has arguments in `__init__` and "
                                      "therefore must override `get_config()`.")
        kept = {id(la): [n for n in la._inbound_nodes if id(n) in self._network_node_ids]
                for la in self.layers}
        index = {id(n): i for nodes in kept.values() for i, n in enumerate(nodes)}

        def ref(tensor: Any) -> list:
            layer, node_index, tensor_index = keras_history(tensor)
            return [layer.name, index[id(layer._inbound_nodes[node_index])], tensor_index]

        layer_configs = []
        for layer in self.layers:
            entry = serialize_layer(layer)
            if isinstance(layer, InputLayer):
                entry.pop("build_config", None)
            entry["name"] = layer.name
            entry["inbound_nodes"] = [] if isinstance(layer, InputLayer) else [
                [ref(x) + [_json_kwargs(node.kwargs)] for x in node.inputs]
                for node in kept[id(layer)]]
            layer_configs.append(entry)
        return {"name": self.name, "trainable": self.trainable, "layers": layer_configs,
                "input_layers": [ref(x) for x in self.inputs],
                "output_layers": [ref(x) for x in self.outputs]}

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> Network:
        """The functional model a get_config describes, its layers called again node by
        node (a node waits until the nodes it takes inputs from exist)."""
        created: dict = {}
        pending: list = []
        for layer_data in config["layers"]:
            layer = deserialize_layer(layer_data, custom_objects)
            created[layer_data["name"]] = layer
            pending.extend((layer, node) for node in layer_data["inbound_nodes"])

        def tensor(name: str, node_index: int, tensor_index: int) -> Any:
            return created[name]._inbound_nodes[node_index].outputs[tensor_index]

        while pending:
            remaining: list = []
            for layer, node_data in pending:
                refs = [_node_ref(x) for x in node_data]
                # A layer's nodes are made in their order: one waiting holds the rest.
                if any(la is layer for la, _ in remaining) or any(
                        len(created[name]._inbound_nodes) <= i for name, i, _, _ in refs):
                    remaining.append((layer, node_data))
                    continue
                inputs = [tensor(name, i, t) for name, i, t, _ in refs]
                layer(inputs[0] if len(inputs) == 1 else inputs, **refs[0][3])
            if len(remaining) == len(pending):
                raise ValueError("Cannot reconstruct the model: the inbound nodes of "
                                 f"{[la.name for la, _ in remaining]} cannot be resolved.")
            pending = remaining
        inputs = [tensor(*x[:3]) for x in config["input_layers"]]
        outputs = [tensor(*x[:3]) for x in config["output_layers"]]
        return cls(inputs=inputs[0] if len(inputs) == 1 else inputs,
                   outputs=outputs[0] if len(outputs) == 1 else outputs,
                   name=config.get("name"))

    def to_json(self, **kwargs: Any) -> str:
        """The model's config as Keras' JSON (``model_from_json`` reads it)."""
        return json.dumps(model_config(self), default=_json_default, **kwargs)

    def to_yaml(self, **kwargs: Any) -> str:
        raise RuntimeError("Method `model.to_yaml()` has been removed due to security risk "
                           "of arbitrary code execution. Please use `model.to_json()` "
                           "instead.")

    # -- what it was built on ----------------------------------------------------------------
    def _built_on(self, what: str) -> Any:
        if not self.inputs:
            raise AttributeError(f"Layer {self.name} is not connected, no {what} to return.")
        return self._nested_inputs if what == "input" else self._nested_outputs

    # Layer's input_shape/output_shape read these.
    input = property(lambda self: self._built_on("input"))
    output = property(lambda self: self._built_on("output"))

    # -- layers and their state -----------------------------------------------------------
    @property
    def layers(self) -> list:
        return list(self._layers)

    def get_layer(self, name: str | None = None, index: int | None = None) -> Layer:
        if index is not None:
            if len(self.layers) <= index:
                raise ValueError(f"Was asked to retrieve layer at index {index} but model "
                                 f"only has {len(self.layers)} layers.")
            return self.layers[index]
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name}. Existing layers are: "
                         f"{[la.name for la in self.layers]}.")

    @property
    def trainable_weights(self) -> list:
        if not self.trainable:
            return []
        weights = [w for la in self._layers for w in la.trainable_weights]
        return _dedup(weights + self._trainable_weights)

    @property
    def non_trainable_weights(self) -> list:
        if not self.trainable:
            return _dedup([w for la in self._layers for w in la.weights] +
                          self._trainable_weights + self._non_trainable_weights)
        weights = [w for la in self._layers for w in la.non_trainable_weights]
        return _dedup(weights + self._non_trainable_weights)

    @property
    def weights(self) -> list:
        """Layer by layer, each layer's trainable then non-trainable weights (Keras'
        order, which ``get_weights``/``set_weights`` follow)."""
        return _dedup([w for la in self._layers for w in la.weights] +
                      self._trainable_weights + self._non_trainable_weights)

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    variables = weights

    @property
    def updates(self) -> list:
        if not self.trainable:
            return []
        return [u for la in self._layers for u in la.updates] + list(self._updates)

    @property
    def losses(self) -> list:
        return [x for la in self._layers for x in la.losses] + list(self._losses)

    def summary(self, line_length: int | None = None, positions: list | None = None,
                print_fn: Any = None) -> None:
        if not self.built:
            raise ValueError("This model has not yet been built. Build the model first by "
                             "calling `build()` or by calling the model on a batch of data.")
        print_summary(self, line_length=line_length, positions=positions, print_fn=print_fn)

    # -- weights as a checkpoint ------------------------------------------------------------
    def _checkpoint_keys(self, prefix: str = "") -> dict:
        """TF's object-graph keys of the weights: ``layer_with_weights-<i>/`` per layer
        with weights, then the layer's own path (``cell/`` of an RNN...)."""
        keys: dict = {}
        with_weights = [la for la in self.layers if la.weights]
        for i, layer in enumerate(with_weights):
            _layer_keys(layer, f"{prefix}layer_with_weights-{i}/", keys)
        return keys

    def save_weights(self, filepath: str, overwrite: bool = True,
                     save_format: str | None = None) -> None:
        """Writes the weights as a TF checkpoint at prefix ``filepath``, or as Keras' HDF5
        weights file for a ``.h5``/``.keras``/``.hdf5`` path or ``save_format="h5"``."""
        del overwrite
        if save_format == "h5" or _is_hdf5(filepath):
            _save_hdf5(self, str(filepath))
            return
        from graphcore.keras import weights_checkpoint
        weights_checkpoint.save(self, str(filepath), self._checkpoint_keys(), _optimizer(self))

    def load_weights(self, filepath: str, by_name: bool = False) -> None:
        """Restores the weights from a TF checkpoint (graphcore's or TF's save_weights) or
        from an HDF5 weights file, layer by layer in order (or by layer name)."""
        if _is_hdf5(filepath):
            _load_hdf5(self, str(filepath), by_name)
            return
        if by_name:
            raise NotImplementedError("Weights may only be loaded based on topology into "
                                      "Models when loading TensorFlow-formatted weights "
                                      "(got by_name=True to load_weights).")
        from graphcore.train import saver as saver_lib
        keys = self._checkpoint_keys()
        optimizer_keys = _optimizer_keys(self, keys)
        if optimizer_keys or _optimizer(self) is not None:
            reader = saver_lib.load_checkpoint(str(filepath))
            stored = set(reader.get_variable_to_shape_map())
            keys.update((k, v) for k, v in optimizer_keys.items() if k in stored)
            _defer_optimizer_values(self, reader, stored, keys, optimizer_keys)
        saver_lib.Saver(keys).restore(K.get_session(), str(filepath))


def _node_ref(data: list) -> tuple:
    name, node_index, tensor_index = data[:3]
    return name, node_index, tensor_index, dict(data[3]) if len(data) > 3 else {}


def _json_kwargs(kwargs: dict) -> dict:
    """A node's call arguments that a config can hold (the learning phase Keras passes
    is left out)."""
    return {k: v for k, v in kwargs.items()
            if isinstance(v, (bool, int, float, str, type(None), list, tuple, dict))}


def _json_default(value: Any) -> Any:
    if isinstance(value, (np.ndarray, np.generic)):
        return value.tolist()
    if hasattr(value, "as_list"):
        return value.as_list()
    if isinstance(value, bytes):
        return value.decode("utf8")
    raise TypeError(f"Not JSON Serializable: {value!r}")


def model_config(model: Network) -> dict:
    """``{"class_name", "config", "keras_version", "backend"}`` of a model, as to_json
    writes it (a functional ``Model`` is Keras' "Functional")."""
    class_name = type(model).__name__
    if class_name == "Model" and model._is_graph_network:
        class_name = "Functional"
    return {"class_name": class_name, "config": model.get_config(),
            "keras_version": KERAS_VERSION, "backend": "tensorflow"}


def _layer_keys(layer: Any, path: str, keys: dict) -> None:
    if isinstance(layer, Network):
        keys.update(layer._checkpoint_keys(path))
        return
    children = getattr(layer, "_checkpoint_children", None)
    if children is not None:
        for child_path, child in children():
            _layer_keys(child, path + child_path, keys)
        return
    for w in layer.weights:
        short = getattr(w, "_keras_name", w.op.name.rpartition("/")[2])
        keys[f"{path}{short}/{_ATTRIBUTE_KEY}"] = w


_SLOT_KEY = ".OPTIMIZER_SLOT/optimizer/"


def _optimizer(model: Any) -> Any:
    """The model's Keras optimizer (one with checkpointable state), if compiled with one."""
    optimizer = getattr(model, "optimizer", None)
    return optimizer if hasattr(optimizer, "_checkpoint_weights") else None


def _optimizer_keys(model: Any, keys: dict) -> dict:
    """TF's object-graph keys of the optimizer's variables: ``optimizer/<name>/...`` for
    iter, the hyperparameters and other state, and ``<weight's path>/.OPTIMIZER_SLOT/
    optimizer/<slot>/...`` for the slots of each weight."""
    optimizer = _optimizer(model)
    if optimizer is None:
        return {}
    out = {f"optimizer/{name}/{_ATTRIBUTE_KEY}": v
           for name, v in optimizer._checkpoint_weights().items()}
    for key, var in keys.items():
        base = key[:-len(_ATTRIBUTE_KEY)]
        for slot_name, slot in optimizer._slots.get(var.op.name, {}).items():
            out[f"{base}{_SLOT_KEY}{slot_name}/{_ATTRIBUTE_KEY}"] = slot
    return out


def _defer_optimizer_values(model: Any, reader: Any, stored: set, keys: dict,
                            optimizer_keys: dict) -> None:
    """The checkpoint's optimizer values whose variables do not exist yet: kept by the
    optimizer, which starts them from these values when it creates them (TF's deferred
    restoration of a checkpoint loaded before training)."""
    optimizer = _optimizer(model)
    for key in sorted(stored - set(optimizer_keys)):
        if not key.endswith(_ATTRIBUTE_KEY):
            continue
        if key.startswith("optimizer/") and key.count("/") == 3:
            optimizer._defer_restore(("weight", key.split("/")[1]), reader.get_tensor(key))
        elif _SLOT_KEY in key:
            base, _, rest = key.partition(_SLOT_KEY)
            var = keys.get(base + _ATTRIBUTE_KEY)
            if var is not None:
                optimizer._defer_restore(("slot", var.op.name, rest.split("/")[0]),
                                         reader.get_tensor(key))


def _is_hdf5(filepath: Any) -> bool:
    return str(filepath).endswith((".h5", ".keras", ".hdf5"))


def _h5py() -> Any:
    try:
        import h5py
    except ImportError:
        raise ImportError("`save_weights`/`load_weights` requires h5py for HDF5 "
                          "files.") from None
    return h5py


def _names(values: Any) -> list:
    return [v.decode("utf8") if isinstance(v, bytes) else str(v) for v in values]


def _save_hdf5(model: Network, filepath: str) -> None:
    with _h5py().File(filepath, "w") as f:
        save_weights_to_hdf5_group(f, model)


def save_weights_to_hdf5_group(f: Any, model: Network) -> None:
    """Keras' layout: ``layer_names`` on the group, a group per layer with its
    ``weight_names``, each weight a dataset at ``<layer>/<weight name>``."""
    layers = model.layers
    values = K.batch_get_value([w for la in layers for w in la.weights])
    f.attrs["layer_names"] = [la.name.encode("utf8") for la in layers]
    f.attrs["backend"] = b"tensorflow"
    f.attrs["keras_version"] = KERAS_VERSION.encode("utf8")
    for layer in layers:
        group = f.create_group(layer.name)
        group.attrs["weight_names"] = [w.name.encode("utf8") for w in layer.weights]
        for w in layer.weights:
            group.create_dataset(w.name, data=values.pop(0))


def _load_hdf5(model: Network, filepath: str, by_name: bool) -> None:
    with _h5py().File(filepath, "r") as f:
        if "layer_names" not in f.attrs and "model_weights" in f:
            f = f["model_weights"]
        load_weights_from_hdf5_group(f, model, by_name)


def load_weights_from_hdf5_group(f: Any, model: Network, by_name: bool = False) -> None:
    """Sets the model's weights from a group save_weights_to_hdf5_group wrote (layer by
    layer in order, or by layer name)."""
    stored = {}
    for name in _names(f.attrs["layer_names"]):
        group = f[name]
        weight_names = _names(group.attrs["weight_names"])
        if weight_names:
            stored[name] = [np.asarray(group[w]) for w in weight_names]
    layers = [la for la in model.layers if la.weights]
    if by_name:
        pairs = [(la, stored[la.name]) for la in layers if la.name in stored]
    else:
        if len(stored) != len(layers):
            raise ValueError(f"Layer count mismatch when loading weights from file. "
                             f"Model expected {len(layers)} layers, found "
                             f"{len(stored)} saved layers.")
        pairs = list(zip(layers, stored.values()))
    tuples = []
    for layer, arrays in pairs:
        if len(arrays) != len(layer.weights):
            raise ValueError(f"Weight count mismatch for layer {layer.name}: expected "
                             f"{len(layer.weights)} weights, found {len(arrays)}.")
        tuples.extend(zip(layer.weights, arrays))
    K.batch_set_value(tuples)
