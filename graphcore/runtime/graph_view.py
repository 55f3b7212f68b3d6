"""The engine's own view of a GraphDef: nodes with parsed inputs and resolved types.

Built from GraphDef bytes only (never from Python Graph objects), and extended in
place when the client sends the ops it added since (TF's Extend).
"""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import errors, op_registry
from graphcore.framework.graph_util import topological_order
from graphcore.framework.importer import parse_graph_def
from graphcore.framework.op_def_library import arg_types, output_types_from_attrs

_MERGE_OPS = frozenset({"Merge", "RefMerge"})
_NEXT_ITERATION_OPS = frozenset({"NextIteration", "RefNextIteration"})
# Stateful ops that only read state: variables themselves, their reads and init checks.
_READ_OPS = frozenset({"VariableV2", "Variable", "VarHandleOp", "ReadVariableOp",
                       "IsVariableInitialized", "VarIsInitializedOp"})
# Ops taking a ref input only to pass the reference on; any other op with a ref input
# (Assign, Apply*, Scatter*...) writes through it.
_REF_FORWARD_OPS = frozenset({"RefIdentity", "RefSwitch", "RefMerge", "RefEnter", "RefExit",
                              "RefNextIteration", "RefSelect"})


class NodeInfo:
    """One node: its NodeDef, registration, parsed inputs and dtypes."""

    __slots__ = ("name", "node_def", "op", "reg", "inputs", "control_inputs", "input_types",
                 "output_types", "input_is_ref", "index", "pure")

    def __init__(self, node_def: Any, reg: op_registry.RegisteredOp, index: int):
        self.name: str = node_def.name
        self.node_def = node_def
        self.op: str = node_def.op
        self.reg = reg
        self.index = index
        self.pure = False  # set when the view places it (see GraphView.extend)
        self.inputs: list[tuple[str, int]] = []
        self.control_inputs: list[str] = []
        attrs = dict(node_def.attr)
        for attr_def in reg.op_def.attr:
            if attr_def.name not in attrs and attr_def.name in reg.defaults:
                node_def.attr[attr_def.name].CopyFrom(reg.defaults[attr_def.name])
                attrs[attr_def.name] = reg.defaults[attr_def.name]
        self.output_types = output_types_from_attrs(reg, attrs)
        self.input_types: list[dtypes_lib.DType] = []
        self.input_is_ref: list[bool] = []
        for arg in reg.op_def.input_arg:
            types = arg_types(arg, attrs)
            self.input_types.extend(types)
            self.input_is_ref.extend([arg.is_ref] * len(types))
        for inp in node_def.input:
            if inp.startswith("^"):
                self.control_inputs.append(inp[1:])
            else:
                src, sep, idx = inp.rpartition(":")
                if sep and idx.isdigit():
                    self.inputs.append((src, int(idx)))
                else:
                    self.inputs.append((inp, 0))


class GraphView:
    """All nodes the client has sent, in a topological order."""

    def __init__(self) -> None:
        self.nodes: dict[str, NodeInfo] = {}
        self.order: list[str] = []
        self.version = 0
        # The graph's function library (FunctionDefs by name), run by runtime.function.
        self.functions: dict[str, Any] = {}

    def extend(self, graph_def: Any) -> None:
        """Adds the nodes of ``graph_def`` (bytes or GraphDef); all or nothing.

        Raises InvalidArgumentError for unparsable bytes, unknown ops, duplicate names,
        dangling inputs or inputs that do not match the op's signature.
        """
        gd = parse_graph_def(graph_def)
        new: dict[str, NodeInfo] = {}
        for nd in gd.node:
            if nd.name in self.nodes or nd.name in new:
                raise errors.InvalidArgumentError(
                    nd, None, f"Duplicate node name in graph: '{nd.name}'")
            reg = op_registry.lookup(nd.op)
            if reg is None:
                raise errors.NotFoundError(
                    nd, None, f"Op type not registered '{nd.op}' (node '{nd.name}')")
            try:
                info = NodeInfo(nd, reg, 0)
            except (KeyError, TypeError, ValueError) as e:
                raise errors.InvalidArgumentError(
                    nd, None, f"Node '{nd.name}' ({nd.op}) has invalid attrs: {e}") from None
            if len(info.inputs) != len(info.input_types):
                raise errors.InvalidArgumentError(
                    nd, None, f"Node '{nd.name}' ({nd.op}) has {len(info.inputs)} inputs, its "
                              f"op takes {len(info.input_types)}")
            new[nd.name] = info
        for info in new.values():
            for src, idx in info.inputs:
                producer = new.get(src) or self.nodes.get(src)
                if producer is None:
                    raise errors.InvalidArgumentError(
                        info.node_def, None, f"Node '{info.name}': unknown input node '{src}'")
                if idx >= len(producer.output_types):
                    raise errors.InvalidArgumentError(
                        info.node_def, None, f"Node '{info.name}': input '{src}:{idx}' does "
                                             f"not exist ({src} has "
                                             f"{len(producer.output_types)} outputs)")
            for i, ((src, idx), want) in enumerate(zip(info.inputs, info.input_types)):
                producer = new.get(src) or self.nodes.get(src)
                got = producer.output_types[idx]
                if got != want and not (not want._is_ref_dtype and got.base_dtype == want):
                    raise errors.InvalidArgumentError(
                        info.node_def, None, f"Input {i} of node {info.name} was passed "
                                             f"{got.name} from {src}:{idx} incompatible with "
                                             f"expected {want.name}.")
            for src in info.control_inputs:
                if src not in new and src not in self.nodes:
                    raise errors.InvalidArgumentError(
                        info.node_def, None, f"Node '{info.name}': unknown control input "
                                             f"'{src}'")
        def deps(n: str) -> list[str]:
            info = new[n]
            srcs = [s for s, _ in info.inputs]
            if info.op in _MERGE_OPS:
                # A loop's back edge (NextIteration -> Merge) is not an ordering dependency.
                srcs = [s for s in srcs
                        if (new.get(s) or self.nodes[s]).op not in _NEXT_ITERATION_OPS]
            return srcs + info.control_inputs

        try:
            order = topological_order(list(new), deps)
            # Pure nodes (no side effect anywhere upstream but reading variables) go
            # before the ready stateful ones, as TF's executor runs cheap ready ops at
            # once: a step's reads of a variable see its value from before the step's
            # updates (the hooks' ``global_step`` read, summaries of weights).
            for name in order:
                info = new[name]
                info.pure = (info.op in _READ_OPS or not (
                    info.reg.op_def.is_stateful or
                    (any(info.input_is_ref) and info.op not in _REF_FORWARD_OPS))) and \
                    all((new.get(d) or self.nodes[d]).pure for d in deps(name))
            order = topological_order(order, deps, urgent=lambda n: new[n].pure)
        except ValueError as e:
            raise errors.InvalidArgumentError(None, None, str(e)) from None
        base = len(self.order)
        for i, name in enumerate(order):
            new[name].index = base + i
        self.nodes.update(new)
        self.order.extend(order)
        for fdef in gd.library.function:
            self.functions[fdef.signature.name] = fdef
        self.version += 1
