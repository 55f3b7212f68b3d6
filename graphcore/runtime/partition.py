"""Partitioning: one GraphDef per device, cut edges replaced by _Send/_Recv pairs.

Feeds become ``_Arg`` nodes (on the device of their first consumer) and fetches
``_Retval`` nodes (on the device of their producer), so a partition is a function
of the step's feed list that fills the step's fetch list.  Control edges that cross
devices are carried by a dummy scalar sent from the source's device.

Nodes are appended to their partitions in one global topological order (a Send
right before the Recv it feeds), so every partition can run its nodes in list
order without deadlock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.protobuf import attr_value_pb2, graph_pb2, node_def_pb2
from graphcore.runtime.devices import Device
from graphcore.runtime.graph_view import GraphView
from graphcore.runtime.prune import is_fed_placeholder
from graphcore.runtime.rendezvous import rendezvous_key


@dataclass
class Partition:
    device: Device
    graph_def: graph_pb2.GraphDef = field(default_factory=graph_pb2.GraphDef)
    n_args: int = 0
    n_retvals: int = 0


@dataclass
class PartitionedStep:
    """The partitions of one step and the rendezvous keys that connect them."""

    partitions: dict[str, Partition]
    keys: list[str]


def _type_attr(dtype: dtypes_lib.DType) -> attr_value_pb2.AttrValue:
    return attr_value_pb2.AttrValue(type=dtype.base_dtype.as_datatype_enum)


class _Builder:
    def __init__(self, view: GraphView, placement: dict[str, Device], default: Device):
        self.view = view
        self.placement = placement
        self.default = default
        self.partitions: dict[str, Partition] = {}
        self.sendrecv: dict[tuple[str, int, str], str] = {}
        self.keys: list[str] = []
        self.edge_count = 0
        self.used_names: set[str] = set()

    def emit(self, device: Device, nd: node_def_pb2.NodeDef) -> None:
        part = self.partitions.get(device.name)
        if part is None:
            part = self.partitions[device.name] = Partition(device)
        nd.device = device.name
        part.graph_def.node.append(nd)

    def cross(self, src: str, index: int, dtype: dtypes_lib.DType, src_dev: Device,
              dst_dev: Device) -> str:
        """The name of a _Recv on ``dst_dev`` receiving ``src:index`` from ``src_dev``."""
        key = (src, index, dst_dev.name)
        recv = self.sendrecv.get(key)
        if recv is not None:
            return recv
        n = self._fresh_pair(src)
        tensor_name = f"edge_{n}_{src}" if index == 0 else f"edge_{n}_{src}_{index}"
        common = {
            "tensor_name": attr_value_pb2.AttrValue(s=tensor_name.encode()),
            "send_device": attr_value_pb2.AttrValue(s=src_dev.name.encode()),
            "send_device_incarnation": attr_value_pb2.AttrValue(i=src_dev.incarnation),
            "recv_device": attr_value_pb2.AttrValue(s=dst_dev.name.encode()),
            "client_terminated": attr_value_pb2.AttrValue(b=False),
        }
        send = node_def_pb2.NodeDef(name=f"{src}/_{n}", op="_Send",
                                    input=[src if index == 0 else f"{src}:{index}"])
        send.attr["T"].CopyFrom(_type_attr(dtype))
        recv_nd = node_def_pb2.NodeDef(name=f"{src}/_{n + 1}", op="_Recv")
        recv_nd.attr["tensor_type"].CopyFrom(_type_attr(dtype))
        for k, v in common.items():
            send.attr[k].CopyFrom(v)
            recv_nd.attr[k].CopyFrom(v)
        self.emit(src_dev, send)
        self.emit(dst_dev, recv_nd)
        self.keys.append(rendezvous_key(src_dev.name, src_dev.incarnation, dst_dev.name,
                                        tensor_name))
        self.sendrecv[key] = recv_nd.name
        return recv_nd.name

    def _fresh_pair(self, src: str) -> int:
        """An edge number n whose names ``src/_n`` and ``src/_{n+1}`` are free."""
        while True:
            n = self.edge_count
            self.edge_count += 2
            names = (f"{src}/_{n}", f"{src}/_{n + 1}")
            if not any(x in self.view.nodes or x in self.used_names for x in names):
                self.used_names.update(names)
                return n

    def control_cross(self, src: str, src_dev: Device, dst_dev: Device) -> str:
        key = (src, -1, dst_dev.name)
        recv = self.sendrecv.get(key)
        if recv is not None:
            return recv
        k = self.edge_count
        while f"{src}/_ctrl_{k}" in self.view.nodes or f"{src}/_ctrl_{k}" in self.used_names:
            k += 1
        self.used_names.add(f"{src}/_ctrl_{k}")
        dummy = node_def_pb2.NodeDef(name=f"{src}/_ctrl_{k}", op="Const",
                                     input=[f"^{src}"])
        dummy.attr["dtype"].type = dtypes_lib.float32.as_datatype_enum
        dummy.attr["value"].tensor.dtype = dtypes_lib.float32.as_datatype_enum
        dummy.attr["value"].tensor.float_val.append(0.0)
        self.emit(src_dev, dummy)
        recv = self.cross(dummy.name, 0, dtypes_lib.float32, src_dev, dst_dev)
        self.sendrecv[key] = recv
        return recv


def partition(view: GraphView, names: list[str], placement: dict[str, Device],
              feeds: list[str], fetches: list[str], default: Device) -> PartitionedStep:
    """Splits the placed nodes ``names`` (topologically ordered) into per-device
    GraphDefs with _Arg/_Retval for ``feeds``/``fetches`` and _Send/_Recv for cut
    edges."""
    b = _Builder(view, placement, default)
    nodes = view.nodes
    feed_index = {t: i for i, t in enumerate(feeds)}
    feed_set = set(feeds)
    name_set = set(names)
    args: dict[str, tuple[str, Device]] = {}  # fed tensor -> (_Arg node name, device)

    def arg_for(tensor: str, device: Device) -> tuple[str, Device]:
        entry = args.get(tensor)
        if entry is None:
            src, _, idx = tensor.rpartition(":")
            dtype = nodes[src].output_types[int(idx)] if src in nodes else dtypes_lib.float32
            nd = node_def_pb2.NodeDef(name=f"_arg_{tensor.replace(':', '_')}_{feed_index[tensor]}",
                                      op="_Arg")
            nd.attr["T"].CopyFrom(_type_attr(dtype))
            nd.attr["index"].i = feed_index[tensor]
            b.emit(device, nd)
            part = b.partitions[device.name]
            part.n_args += 1
            entry = args[tensor] = (nd.name, device)
        return entry

    for name in names:
        info = nodes[name]
        dev = placement[name]
        nd = node_def_pb2.NodeDef()
        nd.CopyFrom(info.node_def)
        del nd.input[:]
        for (src, idx), dtype in zip(info.inputs, info.input_types):
            tensor = f"{src}:{idx}"
            if tensor in feed_index:
                arg_name, arg_dev = arg_for(tensor, dev)
                if arg_dev.name == dev.name:
                    nd.input.append(arg_name)
                else:
                    nd.input.append(b.cross(arg_name, 0, dtype, arg_dev, dev))
                continue
            src_dev = placement[src]
            if src_dev.name == dev.name:
                nd.input.append(src if idx == 0 else tensor)
            else:
                nd.input.append(b.cross(src, idx, nodes[src].output_types[idx], src_dev, dev))
        for src in info.control_inputs:
            # Pruned (effect-free work nothing needs), or a fed placeholder.
            if src not in name_set or is_fed_placeholder(view, src, feed_set):
                continue
            src_dev = placement[src]
            if src_dev.name == dev.name:
                nd.input.append(f"^{src}")
            else:
                nd.input.append(f"^{b.control_cross(src, src_dev, dev)}")
        b.emit(dev, nd)

    for i, tensor in enumerate(fetches):
        if tensor in feed_index:
            src_name, dev = args.get(tensor) or arg_for(tensor, default)
            src_input = src_name
            dtype = nodes[tensor.rpartition(":")[0]].output_types[int(tensor.rpartition(":")[2])] \
                if tensor.rpartition(":")[0] in nodes else dtypes_lib.float32
        else:
            src, _, idx = tensor.rpartition(":")
            dev = placement[src]
            src_input = src if idx == "0" else tensor
            dtype = nodes[src].output_types[int(idx)]
        nd = node_def_pb2.NodeDef(name=f"_retval_{tensor.replace(':', '_')}_{i}", op="_Retval",
                                  input=[src_input])
        nd.attr["T"].CopyFrom(_type_attr(dtype))
        nd.attr["index"].i = i
        b.emit(dev, nd)
        b.partitions[dev.name].n_retvals += 1
    return PartitionedStep(b.partitions, b.keys)


def dtype_of(view: GraphView, tensor: str) -> Any:
    src, _, idx = tensor.rpartition(":")
    return view.nodes[src].output_types[int(idx)]

