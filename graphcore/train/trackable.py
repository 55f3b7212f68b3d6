"""The object graph of object-based checkpoints (``tf.train.Checkpoint``): which objects an
object depends on, under which names, and the TrackableObjectGraph proto and checkpoint
keys TensorFlow derives from them.

An object's dependencies are ``obj._trackable_children()`` (an ordered ``{name: child}``)
when it defines one (``tf.Module``, optimizers, Keras layers, ``Checkpoint``); lists,
tuples holding trackables and dicts depend on their trackable items by index or key, as
TF's ListWrapper/_TupleWrapper/_DictWrapper; a Variable has none and saves one attribute,
``VARIABLE_VALUE`` (a mutable lookup table saves ``table``: its ``-keys`` and ``-values``).
As in TF (``checkpoint/util.py``, ``save_util_v1.py``) the nodes are
numbered breadth-first from the root, each object named by its first (shortest) path, and
an optimizer's slot variables follow as extra nodes, keyed
``<variable path>/.OPTIMIZER_SLOT/<optimizer path>/<slot name>``.
"""

from __future__ import annotations

import collections
from typing import Any

from graphcore.ops import variables as variables_lib
from graphcore.protobuf import trackable_object_graph_pb2

__all__ = ["OBJECT_GRAPH_PROTO_KEY", "VARIABLE_VALUE_KEY", "ObjectGraph", "attribute_children",
           "children", "is_trackable", "object_graph"]

OBJECT_GRAPH_PROTO_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
VARIABLE_VALUE_KEY = "VARIABLE_VALUE"
_ESCAPE = "."
TrackableObjectGraph = trackable_object_graph_pb2.TrackableObjectGraph


def is_variable(value: Any) -> bool:
    return isinstance(value, variables_lib.Variable)


def attribute_name(obj: Any) -> str | None:
    """The one attribute an object saves: ``VARIABLE_VALUE`` for a variable, ``table``
    for a mutable lookup table (its ``_checkpoint_attribute``), None for the others."""
    if is_variable(obj):
        return VARIABLE_VALUE_KEY
    return getattr(type(obj), "_checkpoint_attribute", None)


def is_trackable(value: Any) -> bool:
    """Whether TF would track ``value`` as a dependency when assigned to an attribute."""
    if is_variable(value) or hasattr(type(value), "_trackable_children"):
        return True
    if type(value) in (list, dict, collections.OrderedDict):
        return True
    if type(value) is tuple or (isinstance(value, tuple) and hasattr(value, "_fields")):
        return any(is_trackable(v) for v in value)
    return False


def attribute_children(obj: Any, ignored: frozenset = frozenset()) -> dict[str, Any]:
    """AutoTrackable's dependencies: the trackable attribute values in assignment order."""
    return {name: value for name, value in vars(obj).items()
            if name not in ignored and is_trackable(value)}


def children(obj: Any) -> dict[str, Any]:
    """``obj``'s dependencies, ``{local name: object}`` in TF's order."""
    if is_variable(obj):
        return {}
    if hasattr(type(obj), "_trackable_children"):
        return obj._trackable_children()
    if isinstance(obj, dict):
        if any(not isinstance(k, str) for k in obj):
            raise ValueError(
                f"Unable to save the object {obj} (a dictionary wrapper constructed "
                "automatically on attribute assignment). The wrapped dictionary contains a "
                "non-string key which maps to a trackable object or mutable data structure."
                "\n\nIf you don't need this dictionary checkpointed, wrap it in a "
                "non-trackable object; it will be subsequently ignored.")
        return {k: v for k, v in obj.items() if is_trackable(v)}
    if isinstance(obj, (list, tuple)):
        return {str(i): v for i, v in enumerate(obj) if is_trackable(v)}
    return {}


def escape_local_name(name: str) -> str:
    return name.replace(_ESCAPE, _ESCAPE + _ESCAPE).replace("/", _ESCAPE + "S")


def checkpoint_key(object_path: str, local_name: str) -> str:
    return f"{object_path}/{_ESCAPE}ATTRIBUTES/{escape_local_name(local_name)}"


def slot_variable_key(variable_path: str, optimizer_path: str, slot_name: str) -> str:
    return (f"{variable_path}/{_ESCAPE}OPTIMIZER_SLOT/{optimizer_path}/"
            f"{escape_local_name(slot_name)}")


def full_name(var: Any) -> str:
    """The variable's graph name (its shared name), for name-based restores."""
    info = getattr(var, "_save_slice_info", None)
    if info is not None:
        return info.full_name
    return var.name.rpartition(":")[0] or var.name


class ObjectGraph:
    """The objects reachable from a root, numbered as TF numbers checkpoint nodes.

    ``objects[i]`` is node ``i``; ``names`` maps ``id(obj)`` to its path string;
    ``slot_variables`` maps ``id(optimizer)`` to its SlotVariableReference protos."""

    def __init__(self, root: Any, skip_slot_variables: bool = False):
        self.objects: list[Any] = []
        self.node_ids: dict[int, int] = {}
        self.names: dict[int, str] = {}
        self.children: list[dict[str, Any]] = []
        self._breadth_first(root)
        self.slot_variables: dict[int, list] = {}
        if not skip_slot_variables:
            self._add_slot_variables()

    def _breadth_first(self, root: Any) -> None:
        paths = {id(root): ()}
        queue = collections.deque([root])
        self.node_ids[id(root)] = 0
        while queue:
            obj = queue.popleft()
            self.objects.append(obj)
            kids = children(obj)
            self.children.append(kids)
            for name, child in kids.items():
                if id(child) not in paths:
                    paths[id(child)] = paths[id(obj)] + (name,)
                    self.node_ids[id(child)] = len(self.node_ids)
                    queue.append(child)
        for obj in self.objects:
            self.names[id(obj)] = "/".join(escape_local_name(n) for n in paths[id(obj)])

    def _add_slot_variables(self) -> None:
        non_slot = list(self.objects)
        for optimizer in non_slot:
            if "get_slot_names" not in dir(optimizer):
                continue
            for slot_name in optimizer.get_slot_names():
                for original_id, original in enumerate(non_slot):
                    try:
                        slot = optimizer.get_slot(original, slot_name)
                    except (AttributeError, KeyError, TypeError):
                        slot = None
                    if slot is None:
                        continue
                    if id(slot) in self.node_ids:
                        raise NotImplementedError(
                            "A slot variable was re-used as a dependency of a Trackable "
                            f"object: {slot}. This is not currently allowed. File a feature "
                            "request if this limitation bothers you.")
                    self.names[id(slot)] = slot_variable_key(
                        self.names[id(original)], self.names[id(optimizer)], slot_name)
                    slot_id = len(self.objects)
                    self.node_ids[id(slot)] = slot_id
                    self.objects.append(slot)
                    self.children.append({})
                    self.slot_variables.setdefault(id(optimizer), []).append(
                        TrackableObjectGraph.TrackableObject.SlotVariableReference(
                            slot_name=slot_name, original_variable_node_id=original_id,
                            slot_variable_node_id=slot_id))

    def key_of(self, obj: Any) -> str:
        """The checkpoint key of a variable's value or a table's entries."""
        return checkpoint_key(self.names[id(obj)], attribute_name(obj))

    def saved(self) -> list[tuple[str, Any]]:
        """(checkpoint key, object) of every variable and table in the graph, in node
        order."""
        return [(self.key_of(obj), obj) for obj in self.objects if attribute_name(obj)]

    def proto(self) -> Any:
        """The TrackableObjectGraph TF writes for this graph."""
        graph = TrackableObjectGraph()
        for obj, kids in zip(self.objects, self.children):
            node = graph.nodes.add(slot_variables=self.slot_variables.get(id(obj), ()))
            for name, child in kids.items():
                node.children.add(node_id=self.node_ids[id(child)], local_name=name)
            if is_variable(obj):
                node.attributes.add(name=VARIABLE_VALUE_KEY, full_name=full_name(obj),
                                    checkpoint_key=self.key_of(obj))
            elif attribute_name(obj):
                node.attributes.add(name=attribute_name(obj), checkpoint_key=self.key_of(obj))
        _add_checkpoint_values_check(graph)
        return graph


def _add_checkpoint_values_check(graph: Any) -> None:
    """Marks each node that has values, or a descendant with values (TF's rule)."""
    parents: dict[int, set[int]] = {}
    with_values = set()
    for node_id, node in enumerate(graph.nodes):
        if node.attributes or node.slot_variables or node.HasField("registered_saver"):
            with_values.add(node_id)
        for child in node.children:
            parents.setdefault(child.node_id, set()).add(node_id)
    to_visit = set(with_values)
    while to_visit:
        current = parents.pop(to_visit.pop(), None)
        if current is None:
            continue
        with_values.update(current)
        to_visit.update(p for p in current if p in parents)
    for node_id, node in enumerate(graph.nodes):
        node.has_checkpoint_values.value = node_id in with_values


def object_graph(root: Any, skip_slot_variables: bool = False) -> ObjectGraph:
    return ObjectGraph(root, skip_slot_variables)


def node_names(graph: Any) -> dict[int, str]:
    """TF's ObjectGraphProtoPrettyPrinter names: ``(root).a.b`` and, for slot variables,
    ``<optimizer>'s state '<slot>' for <variable>``."""
    path = {0: ("(root)",)}
    queue = collections.deque([0])
    while queue:
        node_id = queue.popleft()
        for child in graph.nodes[node_id].children:
            if child.node_id not in path:
                path[child.node_id] = path[node_id] + (child.local_name,)
                queue.append(child.node_id)
    names = {node_id: ".".join(p) for node_id, p in path.items()}
    for node_id, node in enumerate(graph.nodes):
        for ref in node.slot_variables:
            names[ref.slot_variable_node_id] = (
                f"{names[node_id]}'s state '{ref.slot_name}' for "
                f"{names[ref.original_variable_node_id]}")
    return names
