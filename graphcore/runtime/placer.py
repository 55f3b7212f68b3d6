"""Placement: a full device name for every node of a pruned graph.

Colocation groups come from ``_class: loc:@name`` attrs and from ref edges (an op
taking a variable's ref runs where the variable lives).  A group's requested device
is the merge of its members' requests, completed by the task's defaults; among the
devices that match and have kernels for every member, GPU is preferred over CPU
when no type was asked for.  ``allow_soft_placement`` drops an unsatisfiable device
type/index and falls back to a supported device of the same task.
"""

from __future__ import annotations

import sys
from typing import Any

from graphcore.framework import device as device_lib
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import errors
from graphcore.kernels import registry as kernel_registry
from graphcore.runtime.devices import Device
from graphcore.runtime.graph_view import GraphView

_TYPE_PRIORITY = {"GPU": 0, "CPU": 1}


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        parent = self.parent
        root = x
        while parent.get(root, root) != root:
            root = parent[root]
        while parent.get(x, x) != root:
            parent[x], x = root, parent[x]
        return root

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra


def _merge_requests(members: list[Any], view: GraphView, allow_soft: bool) -> Any:
    merged = device_lib.DeviceSpecV2()
    first = None
    for info in members:
        try:
            spec = device_lib.DeviceSpecV2.from_string(info.node_def.device)
        except ValueError as e:
            raise errors.InvalidArgumentError(
                info.node_def, None, f"Malformed device specification '{info.node_def.device}' "
                                     f"in node '{info.name}': {e}") from None
        for field in ("job", "replica", "task", "device_type", "device_index"):
            mine, theirs = getattr(merged, field), getattr(spec, field)
            if theirs is None:
                continue
            if mine is not None and mine != theirs:
                if allow_soft:
                    continue
                raise errors.InvalidArgumentError(
                    info.node_def, None,
                    f"Cannot colocate nodes {{{{colocation_node {first.name}}}}} and "
                    f"{{{{colocation_node {info.name}}}}}: Cannot merge devices with "
                    f"incompatible {field}s: '{merged.to_string()}' and "
                    f"'{spec.to_string()}'")
            merged = merged.replace(**{field: theirs})
        if first is None and info.node_def.device:
            first = info
    return merged


def place(view: GraphView, names: list[str], devices: list[Device], default_spec: Any,
          allow_soft_placement: bool = False, log_device_placement: bool = False) -> dict[str, Device]:
    """Maps each of ``names`` to a Device (InvalidArgumentError when impossible)."""
    nodes = view.nodes
    uf = _UnionFind()
    name_set = set(names)
    for name in names:
        info = nodes[name]
        cls = info.node_def.attr.get("_class")
        if cls is not None:
            for s in cls.list.s:
                if s.startswith(b"loc:@"):
                    uf.union(s[5:].decode(), name)
        for (src, _), is_ref, dtype in zip(info.inputs, info.input_is_ref, info.input_types):
            if is_ref or dtype == dtypes_lib.resource:  # TF colocates ref and resource edges
                uf.union(src, name)
    groups: dict[str, list[Any]] = {}
    for name in names:
        groups.setdefault(uf.find(name), []).append(nodes[name])
    for root in list(groups):
        # A colocation target outside the pruned set still constrains its group.
        if root not in name_set and root in nodes:
            groups[root].insert(0, nodes[root])

    placement: dict[str, Device] = {}
    for members in groups.values():
        device = _place_group(members, view, devices, default_spec, allow_soft_placement)
        for info in members:
            if info.name in name_set:
                placement[info.name] = device
    if log_device_placement:
        for name in names:
            print(f"{name}: ({nodes[name].op}): {placement[name].name}", file=sys.stderr)
    return placement


def _place_group(members: list[Any], view: GraphView, devices: list[Device],
                 default_spec: Any, allow_soft: bool) -> Device:
    requested = _merge_requests(members, view, allow_soft)
    spec = default_spec.make_merged_spec(requested)
    supported: set[str] | None = None
    for info in members:
        types = set(kernel_registry.supported_device_types(info.op, dict(info.node_def.attr)))
        if not types:
            raise errors.InvalidArgumentError(
                info.node_def, None, f"No OpKernel was registered to support Op '{info.op}' "
                                     f"used by {{{{node {info.name}}}}} with these attrs.")
        supported = types if supported is None else supported & types
    supported = supported or set()
    candidates = _candidates(devices, spec, supported)
    if not candidates and allow_soft:
        relaxed = spec.replace(device_type=None, device_index=None)
        candidates = _candidates(devices, relaxed, supported)
    if not candidates:
        node = next((m for m in members if m.node_def.device), members[0])
        matching = [d for d in devices if d.matches(spec)]
        if matching:
            why = (f"because no supported kernel for {spec.device_type} devices is available"
                   if spec.device_type else "because no device supports every op of its "
                                            "colocation group")
        else:
            why = ("because no devices matching that specification are registered in this "
                   "process; available devices: " + ", ".join(d.name for d in devices))
        raise errors.InvalidArgumentError(
            node.node_def, None, f"Cannot assign a device for operation {node.name}: Could not "
                                 f"satisfy explicit device specification "
                                 f"'{node.node_def.device or spec.to_string()}' {why}")
    return min(candidates, key=lambda d: (_TYPE_PRIORITY.get(d.device_type, 9), d.index))


def _candidates(devices: list[Device], spec: Any, supported: set[str]) -> list[Device]:
    return [d for d in devices if d.matches(spec) and d.device_type in supported]
