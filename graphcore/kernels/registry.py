"""The kernel registry: one kernel factory per (op type, device type), with dtype
constraints, looked up when a plan is built (never per step).

A factory takes a :class:`KernelContext` (the node's attrs, device, resources) and
returns ``compute(*inputs) -> tuple of outputs``.  A factory decorated with
``needs_step=True`` returns ``compute(step, *inputs)`` and gets the step context
(rendezvous, feeds, fetches, tracing) as its first argument.  Kernels run with numpy's
floating-point errors ignored (the executor sets ``np.errstate`` once per step).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import op_registry

Factory = Callable[["KernelContext"], Callable[..., tuple]]


class _Dead:
    """The value of a tensor on an untaken branch of a cond (TF's dead tensors)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<dead>"


DEAD = _Dead()


@dataclass
class KernelDef:
    op_type: str
    device_type: str
    factory: Factory
    constraints: dict[str, frozenset[int]] = field(default_factory=dict)
    needs_step: bool = False

    def matches(self, attrs: dict) -> bool:
        for name, allowed in self.constraints.items():
            av = attrs.get(name)
            if av is None:
                return False
            types = list(av.list.type) if av.HasField("list") else [av.type]
            if any(t not in allowed for t in types):
                return False
        return True


class KernelContext:
    """What a kernel factory may know about its node, fixed for the plan's lifetime."""

    def __init__(self, node_def: Any, device: str, device_type: str, resources: Any,
                 input_types: list[dtypes_lib.DType], output_types: list[dtypes_lib.DType],
                 device_context: Any = None, rendezvous_slots: dict[str, int] | None = None):
        self.node_def = node_def
        self.name: str = node_def.name
        self.op_type: str = node_def.op
        self.device = device
        self.device_type = device_type
        self.resources = resources
        self.input_types = input_types
        self.output_types = output_types
        self.device_context = device_context
        # Rendezvous key -> slot of the step's mailbox (Send/Recv kernels).
        self.rendezvous_slots = rendezvous_slots or {}
        # The graph's functions, callable by name (TF's FunctionLibraryRuntime), for
        # kernels that run functions (dataset map/filter); set by the executor.
        self.function_library: Any = None

    def attr(self, name: str) -> Any:
        """The attr as Python: DType for types, proto values otherwise (get_attr's rules)."""
        return op_registry.attr_value_to_python(self.node_def.attr[name])

    def has_attr(self, name: str) -> bool:
        return name in self.node_def.attr


_lock = threading.Lock()
_kernels: dict[tuple[str, str], list[KernelDef]] = {}


def register_kernel(op_type: str, device_type: str = "CPU",
                    constraints: dict[str, Any] | None = None,
                    needs_step: bool = False) -> Callable[[Factory], Factory]:
    """Decorator registering a kernel factory for ``op_type`` on ``device_type``;
    ``constraints`` maps a type attr to the dtypes this kernel handles."""

    def decorate(factory: Factory) -> Factory:
        cons = {k: frozenset(dtypes_lib.as_dtype(t).as_datatype_enum for t in v)
                for k, v in (constraints or {}).items()}
        with _lock:
            _kernels.setdefault((op_type, device_type), []).append(
                KernelDef(op_type, device_type, factory, cons, needs_step))
        return factory

    return decorate


def find_kernel(op_type: str, device_type: str, attrs: dict) -> KernelDef | None:
    """The first kernel for (op_type, device_type) whose constraints accept ``attrs``."""
    for kdef in _kernels.get((op_type, device_type), ()):
        if kdef.matches(attrs):
            return kdef
    return None


def supported_device_types(op_type: str, attrs: dict) -> list[str]:
    return [dev for (op, dev), defs in _kernels.items()
            if op == op_type and any(k.matches(attrs) for k in defs)]


def registered_kernels() -> dict[tuple[str, str], list[KernelDef]]:
    return {k: list(v) for k, v in _kernels.items()}
