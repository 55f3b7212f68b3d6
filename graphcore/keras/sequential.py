"""tf.keras.Sequential: a Model whose layers are called one after the other. Given an input
shape (on its first layer or an InputLayer) it is built as layers are added, on an input
named ``<first layer>_input``; otherwise on its first call or ``fit``."""

from __future__ import annotations

from typing import Any

from graphcore.framework import nest
from graphcore.framework import ops as ops_lib
from graphcore.keras.engine import (
    InputLayer,
    Layer,
    deserialize_layer,
    keras_history,
    serialize_layer,
)
from graphcore.keras.training import Model

__all__ = ["Sequential"]


class Sequential(Model):
    _layers_by_index = True

    def __init__(self, layers: list | None = None, name: str | None = None) -> None:
        super().__init__(name=name)
        self._stack: list = []
        self._input_layer: InputLayer | None = None
        for layer in layers or []:
            self.add(layer)

    @property
    def layers(self) -> list:
        return list(self._stack)

    def add(self, layer: Any) -> None:
        """Appends ``layer`` (calling it on the current output when the model has one)."""
        if isinstance(layer, InputLayer):
            if self._stack or self._input_layer is not None:
                raise ValueError("An InputLayer can only be the first layer of a Sequential")
            self._input_layer = layer
            self._rebuild([])
            return
        if not isinstance(layer, Layer):
            raise TypeError("The added layer must be an instance of class Layer. Received: "
                            f"layer={layer} of type {type(layer)}.")
        if any(layer is x for x in self._stack):
            raise ValueError(f"All layers added to a Sequential model should have unique "
                             f"names. Name \"{layer.name}\" is already the name of a layer "
                             "in this model.")
        if not self._stack and self._input_layer is None and \
                layer._batch_input_shape is not None:
            self._input_layer = InputLayer(batch_input_shape=layer._batch_input_shape,
                                           dtype=layer.dtype, name=layer.name + "_input")
        self._stack.append(layer)
        self._layers = list(self._stack)
        if self._input_layer is not None:
            self._rebuild(self._stack[-1:] if self.outputs else self._stack)

    def pop(self) -> None:
        if not self._stack:
            raise TypeError("There are no layers in the model.")
        self._stack.pop()
        self._layers = list(self._stack)
        self.outputs = []
        if self._input_layer is not None:
            self._rebuild(self._stack)

    def _rebuild(self, new_layers: list) -> None:
        x = self.outputs[0] if self.outputs else self._input_layer.output
        for layer in new_layers:
            x = layer(x)
            if len(nest.flatten(x)) != 1:
                raise ValueError("All layers in a Sequential model should have a single "
                                 "output tensor. For multi-output layers, use the "
                                 "functional API.")
        self._init_graph_network(self._input_layer.output, x)
        self._layers = list(self._stack)

    def get_config(self) -> dict:
        layers = [] if self._input_layer is None else [serialize_layer(self._input_layer)]
        layers += [serialize_layer(layer) for layer in self._stack]
        for entry in layers[:1]:
            if entry["class_name"] == "InputLayer":
                entry.pop("build_config", None)
        return {"name": self.name, "layers": layers}

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> Sequential:
        model = cls(name=config.get("name"))
        for layer_config in config["layers"]:
            model.add(deserialize_layer(layer_config, custom_objects))
        return model

    def build(self, input_shape: Any = None) -> None:
        if self.outputs:
            return
        if input_shape is None:
            raise ValueError("You must provide an `input_shape` argument.")
        shape = list(input_shape.as_list() if hasattr(input_shape, "as_list") else input_shape)
        self._input_layer = InputLayer(batch_input_shape=tuple(shape),
                                       name=(self._stack[0].name + "_input") if self._stack
                                       else None)
        self._rebuild(self._stack)

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        if self.outputs:
            return super().call(inputs, training=training, mask=mask)
        x = inputs
        for layer in self._stack:
            kwargs = {"training": training} if training is not None and \
                layer._expects_training else {}
            x = layer(x, **kwargs)
        return x

    def _build_on_inputs(self, inputs: Any) -> None:
        # As Keras builds a Sequential without an input shape: its layers' weights under
        # the model's name scope (``sequential/dense/kernel``).
        self._input_layer = keras_history(inputs)[0]
        with ops_lib.name_scope(self.name):
            x = self.call(inputs)
        self._init_graph_network(inputs, x)
        self._layers = list(self._stack)
        if self._compiled is not None:
            self._build_training_graph()
