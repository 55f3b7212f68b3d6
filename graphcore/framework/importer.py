"""``import_graph_def``: GraphDef (ours or TensorFlow's) into a Graph, all or nothing."""

from __future__ import annotations

from typing import Any

from google.protobuf import message as pb_message

from graphcore.framework import device as device_lib
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import errors, op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework.graph_util import topological_order
from graphcore.framework.op_def_library import arg_types, output_types_from_attrs
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.protobuf import attr_value_pb2, graph_pb2


def parse_graph_def(data: bytes | graph_pb2.GraphDef) -> graph_pb2.GraphDef:
    """Parses serialized GraphDef bytes; InvalidArgumentError when they are not one."""
    if isinstance(data, graph_pb2.GraphDef):
        return data
    if not isinstance(data, (bytes, bytearray, memoryview)):
        # A GraphDef message of another library (e.g. TensorFlow's): go through bytes.
        serialize = getattr(data, "SerializeToString", None)
        if serialize is None:
            raise TypeError(f"graph_def must be a GraphDef proto or its bytes, got "
                            f"{type(data).__name__}")
        data = serialize()
    gd = graph_pb2.GraphDef()
    try:
        gd.ParseFromString(bytes(data))
    except pb_message.DecodeError as e:
        raise errors.InvalidArgumentError(
            None, None, f"Invalid GraphDef: {len(data)} bytes do not parse ({e})") from None
    if data and not gd.node and not gd.HasField("versions") and not gd.HasField("library"):
        raise errors.InvalidArgumentError(
            None, None, f"Invalid GraphDef: {len(data)} bytes hold no GraphDef fields")
    return gd


# AttrDef type -> the AttrValue oneof field that holds it ("list(...)" -> "list").
_ATTR_KIND = {"type": "type", "int": "i", "float": "f", "bool": "b", "string": "s",
              "shape": "shape", "tensor": "tensor", "func": "func", "placeholder": "placeholder"}
_KIND_NAME = {v: k for k, v in _ATTR_KIND.items()}


def _parse_input(name: str) -> tuple[str, int, bool]:
    """'^a' -> ('a', -1, True); 'a:1' -> ('a', 1, False); 'a' -> ('a', 0, False)."""
    if name.startswith("^"):
        return name[1:], -1, True
    op_name, sep, idx = name.rpartition(":")
    if sep and idx.isdigit():
        return op_name, int(idx), False
    return name, 0, False


# A while loop's back edge runs from a NextIteration op into its Merge: not an
# ordering dependency (the Merge is created first and rewired afterwards, as TF does).
_NEXT_ITERATION_OPS = frozenset({"NextIteration", "RefNextIteration"})


def _topological_order(nodes: list) -> list:
    by_name = {nd.name: nd for nd in nodes}

    def deps(n: str) -> list[str]:
        out = []
        for i in by_name[n].input:
            src = _parse_input(i)[0]
            src_nd = by_name.get(src)
            if src_nd is None or src_nd.op not in _NEXT_ITERATION_OPS:
                out.append(src)
        return out

    names = topological_order(list(by_name), deps)
    return [by_name[n] for n in names]


def import_graph_def(graph_def: Any, input_map: dict | None = None,
                     return_elements: list | None = None, name: str | None = None,
                     op_dict: Any = None, producer_op_list: Any = None) -> list | None:
    """Imports ``graph_def`` into the default graph under the scope ``name``
    (default "import"; "" for none), all or nothing.

    ``input_map`` maps tensor names of ``graph_def`` to Tensors that replace them;
    ``return_elements`` names ops ("x") or tensors ("x:0") to return.  Every node is
    checked against the op registry (NotFoundError for an unknown op type, ValueError
    for bad inputs, attrs or dtypes, naming the node); on any error nothing is added.
    """
    del op_dict, producer_op_list
    gd = parse_graph_def(graph_def)
    input_map = dict(input_map or {})
    for k, v in list(input_map.items()):
        if not isinstance(k, str):
            raise TypeError("input_map must be a dictionary mapping strings to Tensor objects.")
        input_map[k] = convert_to_tensor(v)
        if ":" not in k and not k.startswith("^"):
            input_map[k + ":0"] = input_map.pop(k)
    graph = ops_lib.get_default_graph()
    seen: set[str] = set()
    for nd in gd.node:
        if nd.name in seen:
            raise ValueError(f"Duplicate node name in graph: '{nd.name}'")
        seen.add(nd.name)
    order = _topological_order(list(gd.node))
    loop_sources = {nd.name for nd in gd.node if nd.op in _NEXT_ITERATION_OPS}

    with graph._transaction(), graph.name_scope(
            "import" if name is None else name) as scope:
        created: dict[str, ops_lib.Operation] = {}
        back_edges: list[tuple[ops_lib.Operation, int, str, int]] = []
        for nd in order:
            created[nd.name] = _import_node(graph, nd, scope, created, input_map, back_edges,
                                            loop_sources)
        for op, index, src, idx in back_edges:
            src_op = created[src]
            if idx >= len(src_op._outputs):
                raise ValueError(f"Node '{op.name}': Connecting to invalid output {idx} of "
                                 f"source node {src} which has {len(src_op._outputs)} "
                                 "outputs.")
            try:
                op._update_input(index, src_op._outputs[idx])
            except TypeError as e:
                raise ValueError(str(e)) from None
        _rename_colocation_groups(created)
        used = {k for k in input_map if k.split(":")[0] in created or k.split(":")[0] in seen}
        missing = set(input_map) - used
        if missing:
            raise ValueError(f"Attempted to map inputs that were not found in graph_def: "
                             f"[{', '.join(sorted(missing))}]")
        if return_elements is None:
            return None
        out = []
        for elem in return_elements:
            op_name, idx, _ = _parse_input(elem)
            op = created.get(op_name)
            if op is None:
                raise ValueError(f"Requested return_element '{elem}' not found in graph_def.")
            if ":" in elem:
                if idx >= len(op._outputs):
                    raise ValueError(f"Requested return_element '{elem}' not found in "
                                     "graph_def.")
                out.append(op._outputs[idx])
            else:
                out.append(op)
        return out


def _import_node(graph: ops_lib.Graph, nd: Any, scope: str,
                 created: dict[str, ops_lib.Operation],
                 input_map: dict[str, ops_lib.Tensor],
                 back_edges: list[tuple[ops_lib.Operation, int, str, int]],
                 loop_sources: set[str]) -> ops_lib.Operation:
    reg = op_registry.lookup(nd.op)
    if reg is None:
        raise errors.NotFoundError(
            None, None, f"Op type not registered '{nd.op}' (node '{nd.name}' of the imported "
                        "GraphDef)")
    attrs: dict[str, attr_value_pb2.AttrValue] = {k: v for k, v in nd.attr.items()}
    for attr_def in reg.op_def.attr:
        if attr_def.name not in attrs:
            if attr_def.name not in reg.defaults:
                raise ValueError(f"NodeDef '{nd.name}' missing attr '{attr_def.name}' from "
                                 f"Op<name={nd.op}>")
            attrs[attr_def.name] = reg.defaults[attr_def.name]
        else:
            kind = attrs[attr_def.name].WhichOneof("value")
            want = _ATTR_KIND.get(attr_def.type, "list")
            if kind is not None and kind != want:
                raise ValueError(f"Node '{nd.name}': AttrValue had value with type "
                                 f"'{_KIND_NAME.get(kind, kind)}' when '{attr_def.type}' "
                                 f"expected for attr '{attr_def.name}'")
            try:
                op_registry._check_attr_constraints(attr_def, attrs[attr_def.name], nd.op)
            except (TypeError, ValueError) as e:
                raise ValueError(f"Node '{nd.name}': {e}") from None
    data_inputs: list[ops_lib.Tensor | None] = []
    control_inputs: list[ops_lib.Operation] = []
    deferred: list[tuple[int, str, int]] = []  # back edges from a later NextIteration
    for inp in nd.input:
        src, idx, is_control = _parse_input(inp)
        if is_control:
            if "^" + src in input_map:
                control_inputs.append(input_map["^" + src].op)
                continue
            src_op = created.get(src)
            if src_op is None:
                raise ValueError(f"Node '{nd.name}': Unknown input node '{inp}'")
            control_inputs.append(src_op)
            continue
        key = f"{src}:{idx}"
        if key in input_map:
            data_inputs.append(input_map[key])
            continue
        src_op = created.get(src)
        if src_op is None and src in loop_sources:
            deferred.append((len(data_inputs), src, idx))
            data_inputs.append(None)
            continue
        if src_op is None:
            raise ValueError(f"Node '{nd.name}': Unknown input node '{inp}'")
        if idx >= len(src_op._outputs):
            raise ValueError(f"Node '{nd.name}': Connecting to invalid output {idx} of source "
                             f"node {src} which has {len(src_op._outputs)} outputs.")
        data_inputs.append(src_op._outputs[idx])
    if deferred:
        # Until the NextIteration exists, a back edge borrows another input of the
        # same node (a Merge's Enter); it is rewired once every node is created.
        stand_in = next((t for t in data_inputs if t is not None), None)
        if stand_in is None:
            raise ValueError(f"Node '{nd.name}': every data input is a loop back edge")
        data_inputs = [stand_in if t is None else t for t in data_inputs]
    try:
        expected: list[dtypes_lib.DType] = []
        for arg in reg.op_def.input_arg:
            expected.extend(arg_types(arg, attrs))
        output_types = output_types_from_attrs(reg, attrs)
    except (KeyError, TypeError) as e:
        raise ValueError(f"Node '{nd.name}' has attrs that do not define its types: {e}") \
            from None
    if len(expected) != len(data_inputs):
        raise ValueError(f"NodeDef expected inputs '{len(expected)}' do not match "
                         f"{len(data_inputs)} inputs specified; node '{nd.name}' "
                         f"(op {nd.op})")
    for i, (t, want) in enumerate(zip(data_inputs, expected)):
        got = t.dtype
        ok = got == want or (not want._is_ref_dtype and got.base_dtype == want)
        if not ok:
            raise ValueError(f"Input {i} of node {nd.name} was passed {got.name} from "
                             f"{t.name} incompatible with expected {want.name}.")
    try:
        name = graph._unique_import_name(scope + nd.name)
        op = graph._create_op_internal(reg, data_inputs, output_types, name + "/", attrs,
                                       control_inputs=control_inputs,
                                       device=device_lib.canonical_name(nd.device))
    except ValueError as e:
        raise ValueError(f"Node '{nd.name}' (op {nd.op}): {e}") from None
    back_edges.extend((op, index, src, idx) for index, src, idx in deferred)
    return op


def _rename_colocation_groups(created: dict[str, ops_lib.Operation]) -> None:
    """Points ``_class: loc:@x`` attrs at the imported (prefixed, uniquified) names."""
    for op in created.values():
        cls = op._attrs.get("_class")
        if cls is None:
            continue
        groups = []
        for s in cls.list.s:
            target = created.get(s[5:].decode()) if s.startswith(b"loc:@") else None
            groups.append(f"loc:@{target.name}".encode() if target is not None else s)
        op._attrs["_class"] = attr_value_pb2.AttrValue(
            list=attr_value_pb2.AttrValue.ListValue(s=groups))
