"""``tf.graph_util``: GraphDef surgery for deployment (TF's graph_util_impl) —
``extract_sub_graph``, ``remove_training_nodes``, ``convert_variables_to_constants``
(freezing: each variable the outputs need becomes a Const of its value in a session),
``must_run_on_cpu`` and ``tensor_shape_from_node_def_name``."""

from __future__ import annotations

import copy
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import tensor_util
from graphcore.protobuf import attr_value_pb2, graph_pb2, node_def_pb2

__all__ = ["convert_variables_to_constants", "extract_sub_graph", "must_run_on_cpu",
           "remove_training_nodes", "tensor_shape_from_node_def_name"]

_VARIABLE_OPS = ("Variable", "VariableV2", "VarHandleOp")


def _node_name(name: str) -> str:
    name = name[1:] if name.startswith("^") else name
    return name.split(":")[0]


def extract_sub_graph(graph_def: graph_pb2.GraphDef,
                      dest_nodes: list[str]) -> graph_pb2.GraphDef:
    """The nodes of ``graph_def`` that ``dest_nodes`` need (data and control inputs),
    in their original order."""
    if not isinstance(graph_def, graph_pb2.GraphDef):
        raise TypeError("graph_def must be a graph_pb2.GraphDef proto.")
    if isinstance(dest_nodes, str):
        raise TypeError("dest_nodes must be an iterable of strings.")
    by_name = {n.name: n for n in graph_def.node}
    for d in dest_nodes:
        if d not in by_name:
            raise AssertionError(f"{d} is not in graph")
    keep: set[str] = set()
    stack = list(dest_nodes)
    while stack:
        name = stack.pop()
        if name in keep:
            continue
        keep.add(name)
        stack.extend(_node_name(i) for i in by_name[name].input)
    out = graph_pb2.GraphDef()
    out.node.extend(copy.deepcopy(n) for n in graph_def.node if n.name in keep)
    out.library.CopyFrom(graph_def.library)
    out.versions.CopyFrom(graph_def.versions)
    return out


def remove_training_nodes(input_graph: graph_pb2.GraphDef,
                          protected_nodes: list[str] | None = None) -> graph_pb2.GraphDef:
    """``input_graph``'s nodes (no library, no versions, as TF's) without what only
    training needs, as TF's: CheckNumerics nodes are dropped (with the inputs that
    named them), then Identity and StopGradient nodes are spliced out (their consumers
    take their input) unless protected, colocated with, carrying control inputs or
    used as one."""
    protected = set(protected_nodes or [])
    dropped = {n.name for n in input_graph.node
               if n.op == "CheckNumerics" and n.name not in protected}
    kept = []
    for node in input_graph.node:
        if node.name in dropped:
            continue
        new = node_def_pb2.NodeDef()
        new.CopyFrom(node)
        del new.input[:]
        new.input.extend(i for i in node.input if i.lstrip("^") not in dropped)
        kept.append(new)
    control_inputs, with_control_input, colocated = set(), set(), set()
    for node in kept:
        for i in node.input:
            if i.startswith("^"):
                control_inputs.add(i[1:])
                with_control_input.add(node.name)
        if "_class" in node.attr:
            colocated.update(c.decode()[len("loc:@"):] if c.startswith(b"loc:@") else c.decode()
                             for c in node.attr["_class"].list.s)
    splice = {n.name: n.input[0] for n in kept
              if n.op in ("Identity", "StopGradient") and n.name not in protected
              and n.name not in colocated and n.name not in with_control_input
              and n.name not in control_inputs}
    out = graph_pb2.GraphDef()
    for node in kept:
        if node.name in splice:
            continue
        new = out.node.add()
        new.CopyFrom(node)
        del new.input[:]
        for full in node.input:
            name = full.lstrip("^")
            while name in splice:
                full = splice[name]
                name = full.lstrip("^")
            new.input.append(full)
    return out


# Ops that pass their input 0 on (TF's converter updates their dtype and drops their
# recorded shapes when that input becomes a constant).
_PASS_THROUGH_OPS = frozenset({"Enter", "Exit", "Identity", "NextIteration", "Switch",
                               "_SwitchN"})


def convert_variables_to_constants(sess: Any, input_graph_def: graph_pb2.GraphDef,
                                   output_node_names: list[str],
                                   variable_names_whitelist: Any = None,
                                   variable_names_blacklist: Any = None) -> graph_pb2.GraphDef:
    """The subgraph ``output_node_names`` need, with each of its variables replaced by a
    Const holding the variable's value in ``sess`` (a ref variable's node becomes the
    Const; a resource variable's reads become Identities of it)."""
    graph_def = extract_sub_graph(input_graph_def, output_node_names)
    wanted = []
    for node in graph_def.node:
        if node.op in _VARIABLE_OPS:
            if variable_names_whitelist is not None and \
                    node.name not in variable_names_whitelist:
                continue
            if variable_names_blacklist is not None and node.name in variable_names_blacklist:
                continue
            wanted.append(node)
    resource_reads = {}
    for node in graph_def.node:
        if node.op == "ReadVariableOp" and _node_name(node.input[0]) in \
                {v.name for v in wanted if v.op == "VarHandleOp"}:
            resource_reads[node.name] = node
    fetch_names = []
    for v in wanted:
        if v.op == "VarHandleOp":
            read = next((r for r in resource_reads.values()
                         if _node_name(r.input[0]) == v.name), None)
            fetch_names.append(None if read is None else read.name + ":0")
        else:
            fetch_names.append(v.name + ":0")
    values = {}
    present = [(v.name, f) for v, f in zip(wanted, fetch_names) if f is not None]
    if present:
        results = sess.run([f for _, f in present])
        values = {name: value for (name, _), value in zip(present, results)}
    out = graph_pb2.GraphDef()
    converted: dict[str, int] = {}  # node -> dtype of the constant value its output 0 is
    for node in graph_def.node:
        new = out.node.add()
        if node.name in values:
            value = values[node.name]
            dtype = dtypes_lib.as_dtype(node.attr["dtype"].type)
            new.op = "Const"
            new.name = node.name
            new.attr["dtype"].CopyFrom(attr_value_pb2.AttrValue(type=dtype.as_datatype_enum))
            new.attr["value"].CopyFrom(attr_value_pb2.AttrValue(
                tensor=tensor_util.make_tensor_proto(value, dtype=dtype)))
            converted[node.name] = dtype.as_datatype_enum
        elif node.name in resource_reads and _node_name(node.input[0]) in values:
            new.op = "Identity"
            new.name = node.name
            new.input.append(node.input[0])
            new.attr["T"].CopyFrom(node.attr["dtype"])
            if "_class" in node.attr:
                new.attr["_class"].CopyFrom(node.attr["_class"])
            converted[node.name] = node.attr["dtype"].type
        else:
            new.CopyFrom(node)
            source = _node_name(node.input[0]) if node.input else ""
            if node.op in _PASS_THROUGH_OPS and source in converted and "T" in node.attr:
                # As TF: a pass-through of a converted variable takes its value's dtype
                # (no longer a reference) and loses its recorded output shapes.
                new.attr["T"].type = converted[source]
                new.attr.pop("_output_shapes", None)
                converted[node.name] = converted[source]
    out.library.CopyFrom(graph_def.library)
    out.versions.CopyFrom(graph_def.versions)
    return out


def must_run_on_cpu(node: Any, pin_variables_on_cpu: bool = False) -> bool:
    """Whether ``node`` (a NodeDef or Operation) has to run on a CPU: string outputs,
    and variables when ``pin_variables_on_cpu``."""
    node_def = node.node_def if hasattr(node, "node_def") else node
    if pin_variables_on_cpu and node_def.op in _VARIABLE_OPS:
        return True
    if node_def.op == "Const":
        return node_def.attr["dtype"].type == dtypes_lib.string.as_datatype_enum
    if node_def.op in ("DynamicStitch", "ParallelDynamicStitch"):
        return node_def.attr["T"].type == dtypes_lib.int32.as_datatype_enum
    if node_def.op in ("Cast",):
        return node_def.attr["SrcT"].type == dtypes_lib.string.as_datatype_enum
    return False


def tensor_shape_from_node_def_name(graph: Any, input_name: str) -> Any:
    """The static shape of tensor ``input_name`` (``:0`` when it names a node)."""
    if ":" not in input_name:
        input_name += ":0"
    return graph.get_tensor_by_name(input_name).get_shape()
