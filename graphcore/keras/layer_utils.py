"""``model.summary()``: Keras' table of layers, output shapes, parameter counts (and, for a
non-sequential graph, the layers each one is connected to), then the totals."""

from __future__ import annotations

from typing import Any

import numpy as np

from graphcore.keras.engine import InputLayer, keras_history

__all__ = ["count_params", "print_summary"]


def count_params(weights: list) -> int:
    return int(sum(np.prod(w.shape.as_list(), dtype=np.int64) for w in
                   {id(w): w for w in weights}.values()))


def _readable_memory_size(size: float) -> str:
    units = ["Byte", "KB", "MB", "GB", "TB", "PB"]
    for unit in units:
        if size / 1024 < 1:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} {units[-1]}"


def _memory_size(weights: list) -> int:
    return int(sum(np.prod(w.shape.as_list(), dtype=np.int64) * w.dtype.base_dtype.size
                   for w in {id(w): w for w in weights}.values()))


def _print_row(fields: list, positions: list, print_fn: Any) -> None:
    left = [str(x) for x in fields]
    while any(left):
        line = ""
        for col in range(len(left)):
            start = positions[col - 1] if col > 0 else 0
            last = col == len(positions) - 1
            space = 0 if last else 2
            cutoff = positions[col] - start - space - (0 if last else 1)
            fit = left[col][:cutoff]
            breaks = [fit.find(x) + len(x) for x in ("),", "},", "],", "',") if fit.find(x) >= 0]
            if breaks:
                cutoff = min(breaks)
                fit = fit[:cutoff]
            if col == 0:
                line += " "
            line += fit + " " * space
            left[col] = left[col][cutoff:]
            line += " " * (positions[col] - len(line))
        print_fn(line)


def _sequential_like(model: Any) -> bool:
    if type(model).__name__ == "Sequential" or not model._is_graph_network:
        return True
    nodes = []
    for group in model._nodes_by_depth.values():
        if len(group) > 1 or (len(group) == 1 and len(group[0].inputs) > 1):
            return False
        nodes += group
    ids = {id(n) for n in nodes}
    return all(sum(id(n) in ids for n in la._inbound_nodes) <= 1 for la in model.layers)


def _output_shape(layer: Any) -> str:
    def shape(x: Any) -> Any:
        return tuple(x.shape.as_list()) if x.shape.ndims is not None else None

    if isinstance(layer, InputLayer):
        return str([shape(layer.output)])
    per_node = {str([shape(x) for x in node.outputs]) if len(node.outputs) > 1
                else str(shape(node.outputs[0])) for node in layer._inbound_nodes}
    return per_node.pop() if len(per_node) == 1 else "multiple"


def print_summary(model: Any, line_length: int | None = None, positions: list | None = None,
                  print_fn: Any = None) -> None:
    print_fn = print_fn or print
    sequential_like = _sequential_like(model)
    if sequential_like:
        line_length = line_length or 65
        positions = positions or [0.45, 0.85, 1.0]
        to_display = ["Layer (type)", "Output Shape", "Param #"]
    else:
        line_length = line_length or 98
        positions = positions or [0.3, 0.6, 0.7, 1.0]
        to_display = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]
    print_fn(f'Model: "{model.name}"')
    print_fn("_" * line_length)
    _print_row(to_display, positions, print_fn)
    print_fn("=" * line_length)
    layers = model.layers
    for layer in layers:
        params = layer.count_params() if layer.built else "0 (unused)"
        fields = [f"{layer.name} ({type(layer).__name__})", _output_shape(layer), params]
        if not sequential_like:
            connections = []
            for node in layer._inbound_nodes:
                if id(node) not in model._network_node_ids:
                    continue
                for x in node.inputs:
                    inbound, node_index, tensor_index = keras_history(x)
                    connections.append(f"{inbound.name}[{node_index}][{tensor_index}]")
            fields.append(connections)
        _print_row(fields, positions, print_fn)
        print_fn(" " * line_length)
    print_fn("=" * line_length)
    trainable = model.trainable_weights
    non_trainable = model.non_trainable_weights
    n_trainable, n_non = count_params(trainable), count_params(non_trainable)
    mem_trainable, mem_non = _memory_size(trainable), _memory_size(non_trainable)
    print_fn(f"Total params: {n_trainable + n_non} "
             f"({_readable_memory_size(mem_trainable + mem_non)})")
    print_fn(f"Trainable params: {n_trainable} ({_readable_memory_size(mem_trainable)})")
    print_fn(f"Non-trainable params: {n_non} ({_readable_memory_size(mem_non)})")
    print_fn("_" * line_length)
