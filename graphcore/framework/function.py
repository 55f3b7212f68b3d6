"""Graph functions: a Python function traced into a FuncGraph and serialized as a
FunctionDef in the graph's library (GraphDef.library), as TF's dataset functions are.

Arguments become placeholders named ``args_<i>`` (the FunctionDef's input args), each
output passes through an ``Identity`` (output args ``identity``, ``identity_1``...), and
body inputs take FunctionDef's ``node:out_arg:index`` form. A tensor of an outer graph
used in the body (a lookup table's handle, a constant, a variable's value) is captured as
TF's FuncGraph captures it: a placeholder in the body standing for it, an extra argument
after the traced ones, which the calling op feeds through its ``other_arguments``.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Callable
from typing import Any

from graphcore.framework import nest, op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework.op_def_library import apply_op, arg_types
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.protobuf import function_pb2

_uids = itertools.count(1)


class FuncGraph(ops_lib.Graph):
    """The graph a function is traced into."""

    building_function = True

    def __init__(self, name: str, outer_graph: ops_lib.Graph):
        super().__init__()
        self.name = name
        self.outer_graph = outer_graph
        self.seed = outer_graph.seed
        # (outer tensor, the placeholder standing for it here), in capture order
        self.captures: list[tuple[ops_lib.Tensor, ops_lib.Tensor]] = []
        self._captured: dict[ops_lib.Tensor, ops_lib.Tensor] = {}

    def capture(self, tensor: ops_lib.Tensor) -> ops_lib.Tensor:
        """The placeholder standing for ``tensor`` of an enclosing graph (made on first
        use; through each function graph in between when functions nest)."""
        inner = self._captured.get(tensor)
        if inner is not None:
            return inner
        outer = tensor
        if tensor.graph is not self.outer_graph:
            if not isinstance(self.outer_graph, FuncGraph):
                raise ValueError(f"Tensor {tensor.name} is not an element of this function's "
                                 "graph or of the graphs enclosing it.")
            outer = self.outer_graph.capture(tensor)
        with self.as_default(), self.control_dependencies(None), self.name_scope(None):
            inner = apply_op("Placeholder", name=tensor.op.name.replace("/", "_"),
                             dtype=tensor.dtype.base_dtype, shape=tensor.shape).outputs[0]
        self._captured[tensor] = inner
        self.captures.append((outer, inner))
        return inner


def output_arg_ranges(node_def: Any) -> list[tuple[str, int, int]]:
    """(output arg name, first flat index, end) of each output arg of ``node_def``."""
    reg = op_registry.get(node_def.op)
    attrs = dict(reg.defaults)
    attrs.update(node_def.attr)
    ranges = []
    pos = 0
    for arg in reg.op_def.output_arg:
        n = len(arg_types(arg, attrs))
        ranges.append((arg.name, pos, pos + n))
        pos += n
    return ranges


def add_function(graph: ops_lib.Graph, fdef: function_pb2.FunctionDef) -> None:
    """Adds ``fdef`` to ``graph``'s library (emitted by ``Graph.as_graph_def``)."""
    functions = graph.__dict__.setdefault("_functions", {})
    functions[fdef.signature.name] = fdef


def _function_def(ops: list[ops_lib.Operation], args: list[ops_lib.Tensor],
                  outputs: list[tuple[str, ops_lib.Tensor]],
                  name: str) -> function_pb2.FunctionDef:
    """The FunctionDef of ``ops`` (its body), ``args`` (placeholders standing for the
    input args) and named ``outputs``."""
    fdef = function_pb2.FunctionDef()
    fdef.signature.name = name
    arg_ops = {t.op.name for t in args}
    for t in args:
        fdef.signature.input_arg.add(name=t.op.name, type=t.dtype.as_datatype_enum)
    out_names = {op.name: output_arg_ranges(op._make_node_def(False)) for op in ops
                 if op.name not in arg_ops}

    def ref(tensor_name: str) -> str:
        if tensor_name.startswith("^"):
            return tensor_name
        src, _, idx = tensor_name.rpartition(":")
        if not src:
            src, idx = tensor_name, "0"
        if src in arg_ops:
            return src
        k = int(idx)
        for arg, start, end in out_names[src]:
            if start <= k < end:
                return f"{src}:{arg}:{k - start}"
        raise ValueError(f"{tensor_name} is not an output of {src}")

    for op in ops:
        if op.name in arg_ops:
            continue
        nd = fdef.node_def.add()
        nd.CopyFrom(op._make_node_def(sort_control_inputs=True))
        del nd.input[:]
        nd.input.extend(ref(x) for x in op._make_node_def(sort_control_inputs=True).input)
    for out, t in outputs:
        fdef.signature.output_arg.add(name=out, type=t.dtype.as_datatype_enum)
        fdef.ret[out] = ref(t.name)
    return fdef


def function_from_subgraph(output: ops_lib.Tensor, base_name: str) -> str:
    """A function without arguments that rebuilds ``output`` from copies of the ops it
    depends on (TF's capture by value, as a one-shot iterator's dataset factory); adds it
    to ``output``'s graph and returns its name."""
    graph = output.graph
    seen: dict[str, ops_lib.Operation] = {}
    stack = [output.op]
    while stack:
        op = stack.pop()
        if op.name in seen:
            continue
        if op.type in ("Placeholder", "PlaceholderV2", "PlaceholderWithDefault"):
            raise ValueError(f"Cannot capture a placeholder (name:{op.name}, "
                             f"type:{op.type}) by value.")
        if op.type in ("VariableV2", "VarHandleOp"):
            raise ValueError(f"Failed to capture resource named \"{op.name}\" in a "
                             "function by value; a one-shot iterator cannot depend on "
                             "variables (use an initializable iterator).")
        seen[op.name] = op
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    ops = sorted(seen.values(), key=lambda o: o._id)
    fdef = _function_def(ops, [], [(output.op.name.lower().replace("/", "_"), output)], "")
    digest = hashlib.sha1(fdef.SerializeToString(deterministic=True)).hexdigest()[:11]
    fdef.signature.name = f"{base_name}_{digest}"
    add_function(graph, fdef)
    return fdef.signature.name


def trace(fn: Callable[..., Any], arg_specs: list[tuple[Any, Any]], base_name: str,
          outer_graph: ops_lib.Graph | None = None) -> tuple[str, list, Any, list]:
    """Traces ``fn(*placeholders)`` (``arg_specs``: (dtype, shape) per argument) into a
    FunctionDef added to ``outer_graph``'s library. Returns (function name, the traced
    output tensors flattened, ``fn``'s raw return value, for its structure, and the outer
    tensors it captured: the function's last arguments, the caller's other_arguments)."""
    outer_graph = outer_graph or ops_lib.get_default_graph()
    name = f"__inference_{re.sub(r'[^A-Za-z0-9_]', '', base_name)}_{next(_uids)}"
    graph = FuncGraph(name, outer_graph)
    with graph.as_default():
        args = [apply_op("Placeholder", name=f"args_{i}", dtype=dtype, shape=shape).outputs[0]
                for i, (dtype, shape) in enumerate(arg_specs)]
        result = fn(*args)
        flat = [graph.capture(t) if isinstance(t, ops_lib.Tensor) and t.graph is not graph
                else t for t in nest.flatten(result)]
        outputs = [apply_op("Identity", name="Identity", input=convert_to_tensor(t)).outputs[0]
                   for t in flat]
    named = [("identity" if i == 0 else f"identity_{i}", t) for i, t in enumerate(outputs)]
    inner = [ph for _, ph in graph.captures]
    add_function(outer_graph, _function_def(graph.get_operations(), args + inner, named,
                                            name))
    # Functions the body itself traced (a flat_map's inner map) join the outer library.
    for nested in getattr(graph, "_functions", {}).values():
        add_function(outer_graph, nested)
    return name, outputs, result, [outer for outer, _ in graph.captures]

