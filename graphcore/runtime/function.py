"""Running the graph's functions (TF's FunctionLibraryRuntime): a FunctionDef of the
GraphDef's library becomes a partition GraphDef (``_Arg`` -> body -> ``_Retval``) compiled
once by the local executor; kernels that call functions (dataset ``map``, ``filter``...)
get this runtime as ``KernelContext.function_library``, so kernels never import runtime.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from graphcore.framework import errors, op_registry
from graphcore.framework.op_def_library import arg_types
from graphcore.protobuf import graph_pb2
from graphcore.runtime.devices import Device
from graphcore.runtime.executor import PartitionExecutor, Step


def _output_offsets(node_def: Any) -> dict[str, int]:
    """Flat output index of each output arg of ``node_def``'s op."""
    reg = op_registry.get(node_def.op)
    attrs = dict(node_def.attr)
    for name, value in reg.defaults.items():
        attrs.setdefault(name, value)
    offsets = {}
    pos = 0
    for arg in reg.op_def.output_arg:
        offsets[arg.name] = pos
        pos += len(arg_types(arg, attrs))
    return offsets


def function_to_graph_def(fdef: Any) -> graph_pb2.GraphDef:
    """The body of ``fdef`` as a GraphDef: ``_Arg`` nodes named as the input args,
    ``node:out_arg:i`` inputs as flat ``node:k``, a ``_Retval`` per output arg."""
    gd = graph_pb2.GraphDef()
    for i, arg in enumerate(fdef.signature.input_arg):
        nd = gd.node.add(name=arg.name, op="_Arg")
        nd.attr["T"].type = arg.type
        nd.attr["index"].i = i
    offsets = {nd.name: _output_offsets(nd) for nd in fdef.node_def}

    def flat(ref: str) -> str:
        if ref.startswith("^"):
            return ref
        parts = ref.split(":")
        if len(parts) == 1:
            return ref  # an input arg
        node, out_arg, index = parts
        return f"{node}:{offsets[node][out_arg] + int(index)}"

    for body in fdef.node_def:
        nd = gd.node.add()
        nd.CopyFrom(body)
        del nd.input[:]
        nd.input.extend(flat(x) for x in body.input)
    for i, arg in enumerate(fdef.signature.output_arg):
        nd = gd.node.add(name=f"_retval_{arg.name}_{i}", op="_Retval")
        nd.input.append(flat(fdef.ret[arg.name]))
        nd.attr["T"].type = arg.type
        nd.attr["index"].i = i
    return gd


class FunctionLibraryRuntime:
    """Instantiates the functions of one engine's graph on one device."""

    def __init__(self, view: Any, device: Device, resources: Any):
        self._view = view
        self._device = device
        self._resources = resources
        # Reentrant: compiling a function compiles the functions its kernels call.
        self._lock = threading.RLock()
        self._executors: dict[str, PartitionExecutor] = {}

    def instantiate(self, name: str) -> Callable[..., list]:
        """``call(*args) -> list of outputs`` running the function ``name``."""
        executor = self._executors.get(name)
        if executor is None:
            with self._lock:
                executor = self._executors.get(name)
                if executor is None:
                    fdef = self._view.functions.get(name)
                    if fdef is None:
                        raise errors.NotFoundError(
                            None, None, f"Function {name} is not defined.")
                    executor = self._executors[name] = PartitionExecutor(
                        function_to_graph_def(fdef), self._device, self._resources, {}, {},
                        function_library=self)
        n_out = len(self._view.functions[name].signature.output_arg)

        def call(*args: Any) -> list:
            step = Step(list(args), n_out, None)
            executor.run(step)
            return step.retvals

        return call
