"""``Model.save_weights`` in TF's checkpoint format: the variables under their object-graph
keys plus the TrackableObjectGraph TF writes with them (``_CHECKPOINTABLE_OBJECT_GRAPH``),
so that TF's ``load_weights`` (which walks that graph) restores graphcore's checkpoints.

The graph is the one tf_keras' v1 models write: the root's dependencies are
``layer_with_weights-<j>`` and ``layer-<i>`` for each layer (both names for a layer with
weights), ``optimizer`` once compiled with a Keras optimizer, and ``root`` (the model
itself); a layer depends on its weights (and sub-objects such as an RNN's ``cell``) by the
paths of the keys; the optimizer on ``iter``, its hyperparameters and other state in
creation order, with its slots as slot variables of the weights they belong to.
"""

from __future__ import annotations

import os
from typing import Any

from graphcore.keras import backend as K
from graphcore.train import checkpoint as checkpoint_lib
from graphcore.train import saver as saver_lib

__all__ = ["save"]

_ATTRIBUTE_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"


class _Node:
    """An object of the checkpoint's graph: its dependencies by local name."""

    def __init__(self) -> None:
        self.children: dict[str, Any] = {}

    def _trackable_children(self) -> dict[str, Any]:
        return self.children


class _OptimizerNode(_Node):
    """The optimizer's node: its non-slot variables, and its slots looked up by weight."""

    def __init__(self, optimizer: Any) -> None:
        super().__init__()
        self._optimizer = optimizer
        self.children.update(optimizer._checkpoint_weights())

    def get_slot_names(self) -> list:
        return self._optimizer.get_slot_names()

    def get_slot(self, var: Any, slot_name: str) -> Any:
        return self._optimizer.get_slot(var, slot_name)


def _tree(keys: dict) -> _Node:
    """The nodes along each key's path (``layer_with_weights-0/cell/kernel``)."""
    root = _Node()
    for key, var in keys.items():
        parts = key[:-len(_ATTRIBUTE_SUFFIX)].split("/")
        node = root
        for part in parts[:-1]:
            node = node.children.setdefault(part, _Node())
        node.children.setdefault(parts[-1], var)
    return root


def object_root(model: Any, keys: dict, optimizer: Any) -> _Node:
    """The root of ``model``'s checkpoint graph, from its weights' keys."""
    tree = _tree(keys)
    root = _Node()
    with_weights = 0
    for index, layer in enumerate(model.layers):
        if layer.weights:
            node = tree.children.get(f"layer_with_weights-{with_weights}", _Node())
            root.children[f"layer_with_weights-{with_weights}"] = node
            with_weights += 1
        else:
            node = _Node()
        root.children[f"layer-{index}"] = node
    if optimizer is not None:
        root.children["optimizer"] = _OptimizerNode(optimizer)
    root.children["root"] = root
    return root


def save(model: Any, filepath: str, keys: dict, optimizer: Any) -> None:
    """Writes ``model``'s weights (and its optimizer's variables) at prefix ``filepath``
    with their object graph, and records it in the directory's ``checkpoint`` file."""
    root = object_root(model, keys, optimizer)
    session = K.get_session()
    # One saver per model and graph, as tf_keras' model._trackable_saver: its save op is
    # built once and reused while the keys and variables stay the same, so saving every
    # epoch does not grow the graph.
    graph, saver = getattr(model, "_weights_saver", (None, None))
    if saver is None or graph is not session.graph:
        saver = checkpoint_lib._TrackableSaver(root)
        object.__setattr__(model, "_weights_saver", (session.graph, saver))
    else:
        saver._root = root
    saver.save(filepath, session=session)
    save_dir = os.path.dirname(filepath)
    if os.path.isabs(save_dir):
        path = os.path.basename(filepath)
    else:
        save_dir = save_dir or "."
        path = filepath
    saver_lib.update_checkpoint_state(save_dir, path, [path])
