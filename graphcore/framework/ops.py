"""Graph, Operation and Tensor: the dataflow graph and the default-graph stack.

A Graph owns Operations (nodes); each Operation produces Tensors (edges).  Building
state that TF keeps per thread (name scope, control dependencies, device functions,
colocation) lives in a thread-local per graph, so several threads can build one graph
at once; name uniquing and insertion happen under the graph's lock.
"""

from __future__ import annotations

import contextlib
import linecache
import os
import re
import sys
import threading
from collections.abc import Iterator
from typing import Any

from graphcore.framework import device as device_lib
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import errors, op_registry
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.graph_keys import GraphKeys  # noqa: F401 - ops.GraphKeys, as in TF
from graphcore.framework.tensor import Tensor
from graphcore.protobuf import attr_value_pb2, graph_pb2, node_def_pb2

# GraphDef version this library produces (the TF release it was checked against).
GRAPH_DEF_VERSION = 2474
GRAPH_DEF_VERSION_MIN_CONSUMER = 0
GRAPH_DEF_VERSION_MIN_PRODUCER = 0

_VALID_OP_NAME_REGEX = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")
_VALID_SCOPE_NAME_REGEX = re.compile(r"^[A-Za-z0-9_.\\/>-]*$")

_GRAPHCORE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _is_internal_frame(filename: str) -> bool:
    return filename.startswith(_GRAPHCORE_DIR) or filename.startswith("<frozen")


def _capture_stack() -> tuple[tuple[str, int, str], ...]:
    """The creation stack as (file, line, function) tuples, outermost first.

    Lines are looked up lazily, so capture costs a frame walk only.
    """
    frames = []
    f = sys._getframe(2)
    while f is not None:
        code = f.f_code
        frames.append((code.co_filename, f.f_lineno, code.co_name))
        f = f.f_back
    frames.reverse()
    return tuple(frames)


def name_from_scope_name(name: str) -> str:
    """'a/b/' -> 'a/b' (a scope name names the op of the same path)."""
    return name[:-1] if (name and name[-1] == "/") else name


def _tensor_name_parts(name: str) -> tuple[str, int]:
    op_name, _, index = name.partition(":")
    return op_name, int(index) if index else 0


# ---------------------------------------------------------------------------------------
# Operation
# ---------------------------------------------------------------------------------------

class Operation:
    """A node of the graph: an op type, inputs, attrs, a device and output Tensors."""

    __slots__ = ("_graph", "_id", "_name", "_type", "_inputs", "_control_inputs", "_outputs",
                 "_device", "_attrs", "_reg", "_stack", "_control_flow_context",
                 "_original_op", "_requested_device", "__weakref__")

    def __init__(self, graph: Graph, name: str, op_type: str, inputs: list[Tensor],
                 output_types: list[dtypes_lib.DType], attrs: dict[str, attr_value_pb2.AttrValue],
                 reg: op_registry.RegisteredOp, control_inputs: list[Operation] | None = None,
                 device: str = "", stack: tuple | None = None):
        self._graph = graph
        self._id = -1
        self._name = name
        self._type = op_type
        self._inputs = list(inputs)
        self._control_inputs = list(control_inputs or ())
        self._attrs = attrs
        self._reg = reg
        self._device = device
        self._requested_device = device
        self._stack = stack or ()
        self._control_flow_context = None
        self._original_op = None
        self._outputs = [Tensor(self, i, dt) for i, dt in enumerate(output_types)]

    # -- introspection ----------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def type(self) -> str:
        return self._type

    @property
    def graph(self) -> Graph:
        return self._graph

    @property
    def inputs(self) -> list[Tensor]:
        return list(self._inputs)

    @property
    def control_inputs(self) -> list[Operation]:
        return list(self._control_inputs)

    @property
    def outputs(self) -> list[Tensor]:
        return list(self._outputs)

    def values(self) -> tuple[Tensor, ...]:
        return tuple(self._outputs)

    @property
    def device(self) -> str:
        return self._device

    @property
    def op_def(self):
        return self._reg.op_def

    @property
    def node_def(self) -> node_def_pb2.NodeDef:
        return self._make_node_def(sort_control_inputs=False)

    def _make_node_def(self, sort_control_inputs: bool) -> node_def_pb2.NodeDef:
        nd = node_def_pb2.NodeDef(name=self._name, op=self._type, device=self._device)
        nd.input.extend(t._as_node_def_input() for t in self._inputs)
        control = ["^" + c._name for c in self._control_inputs]
        nd.input.extend(sorted(control) if sort_control_inputs else control)
        attr = nd.attr
        for k in sorted(self._attrs):
            attr[k].CopyFrom(self._attrs[k])
        return nd

    @property
    def _is_stateful(self) -> bool:
        return self._reg.op_def.is_stateful

    def get_attr(self, name: str) -> Any:
        """The attr's value: DType for types, raw proto values otherwise (as TF)."""
        av = self._attrs.get(name)
        if av is None:
            raise ValueError(f"Operation '{self._name}' has no attr named '{name}'.")
        return op_registry.attr_value_to_python(av)

    def _set_attr(self, name: str, value: attr_value_pb2.AttrValue) -> None:
        self._attrs[name] = value

    def _set_device(self, device: Any) -> None:
        self._device = device_lib.canonical_name(device)

    def _get_control_flow_context(self) -> Any:
        return self._control_flow_context

    def _update_input(self, index: int, tensor: Tensor) -> None:
        """Rewires data input ``index`` to ``tensor`` of the same base dtype (TF's
        ``Operation._update_input``; how a loop's Merge gets its back edge)."""
        old = self._inputs[index]
        if old is tensor:
            return
        if old.dtype.base_dtype != tensor.dtype.base_dtype:
            raise TypeError(f"Cannot update edge of {self._name}: {old.dtype.name} vs "
                            f"{tensor.dtype.name}")
        self._inputs[index] = tensor
        if self in old._consumers and old not in self._inputs:
            old._consumers.remove(self)
        tensor._consumers.append(self)

    def _add_control_input(self, op: Operation) -> None:
        if op not in self._control_inputs:
            self._control_inputs.append(op)

    def _add_control_inputs(self, ops: list[Operation]) -> None:
        for op in ops:
            self._add_control_input(op)

    @property
    def traceback(self) -> list[tuple[str, int, str, str]]:
        """The user's creation stack: (file, line, function, source line), outermost first.

        Frames inside graphcore itself are left out, so the last entry is the user's
        line that created the op.
        """
        out = []
        for filename, lineno, fn in self._stack:
            if _is_internal_frame(filename):
                continue
            out.append((filename, lineno, fn, linecache.getline(filename, lineno).strip()))
        return out

    def _creation_site(self) -> str:
        tb = self.traceback
        if not tb:
            return "<unknown>"
        filename, lineno, fn, _ = tb[-1]
        return f"{filename}:{lineno} in {fn}"

    def colocation_groups(self) -> list[bytes]:
        cls = self._attrs.get("_class")
        groups = [s for s in cls.list.s if s.startswith(b"loc:@")] if cls is not None else []
        return groups or [f"loc:@{self._name}".encode()]

    def run(self, feed_dict: dict | None = None, session: Any = None) -> None:
        """Runs this operation in ``session`` (default: the default session)."""
        from graphcore.framework import session_stack

        session_stack.run_with_session(self, feed_dict, session)

    def __str__(self) -> str:
        return str(self.node_def)

    def __repr__(self) -> str:
        return f"<tf.Operation '{self._name}' type={self._type}>"


# ---------------------------------------------------------------------------------------
# Graph
# ---------------------------------------------------------------------------------------

class _ControlDependenciesController:
    """One level of ``control_dependencies``: its inputs and the ops created inside."""

    __slots__ = ("control_inputs", "seen")

    def __init__(self, control_inputs: list[Operation]):
        self.control_inputs = control_inputs
        self.seen: set[int] = set()


class _DeviceEntry:
    """One level of the device stack: a merged spec, a device function, or None."""

    __slots__ = ("function", "is_null_merge", "merge")

    def __init__(self, device_name_or_function: Any):
        self.function = device_name_or_function
        self.merge = None
        self.is_null_merge = False
        if device_name_or_function is None:
            return
        if isinstance(device_name_or_function, (str, device_lib.DeviceSpec)):
            self.merge = device_lib.merge_device(device_name_or_function)
            self.is_null_merge = self.merge.is_null_merge
        elif not callable(device_name_or_function):
            raise TypeError(f"device() expects a string, DeviceSpec, function or None, got "
                            f"{device_name_or_function!r}")

    def apply(self, op: Operation) -> str:
        if self.merge is not None:
            return self.merge.shortcut_string_merge(op)
        return device_lib.canonical_name(self.function(op))


class _BuildState(threading.local):
    """Per-thread graph-building state of one Graph."""

    def __init__(self) -> None:
        self.name_stack = ""
        self.control_deps: list[_ControlDependenciesController] = []
        self.device_stack: list[_DeviceEntry] = []
        self.colocation_stack: list[Operation] = []
        self.attr_scope: dict[str, attr_value_pb2.AttrValue] = {}
        self.gradient_override_map: dict[str, str] = {}
        self.control_flow_context: Any = None


class Graph:
    """A TensorFlow-1.x dataflow graph."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._nodes_by_id: dict[int, Operation] = {}
        self._nodes_by_name: dict[str, Operation] = {}
        self._next_id_counter = 0
        self._names_in_use: dict[str, int] = {}
        self._collections: dict[str, list] = {}
        self._finalized = False
        self._state = _BuildState()
        self._seed: int | None = None
        self._building_function = False
        self._container = ""
        self._unfeedable_tensors: set[Tensor] = set()
        self._unfetchable_ops: set[Operation] = set()

    # -- identity and version ---------------------------------------------------------
    @property
    def version(self) -> int:
        """Grows with every op added; sessions use it to find what is new."""
        return self._next_id_counter

    @property
    def finalized(self) -> bool:
        return self._finalized

    def finalize(self) -> None:
        """Makes the graph read-only: adding ops or collection items raises RuntimeError."""
        self._finalized = True

    def _unsafe_unfinalize(self) -> None:
        self._finalized = False

    def _check_not_finalized(self) -> None:
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")

    @property
    def seed(self) -> int | None:
        return self._seed

    @seed.setter
    def seed(self, seed: int | None) -> None:
        self._seed = seed

    # -- default graph ----------------------------------------------------------------
    def as_default(self) -> contextlib.AbstractContextManager[Graph]:
        """Makes this graph the default graph of the current thread inside the block."""
        return _default_graph_stack.get_controller(self)

    # -- names ------------------------------------------------------------------------
    def get_name_scope(self) -> str:
        return self._state.name_stack

    def unique_name(self, name: str, mark_as_used: bool = True) -> str:
        """``name`` prefixed by the current name scope and made unique ('c', 'c_1')."""
        name_stack = self._state.name_stack
        if name_stack:
            name = name_stack + "/" + name
        name_key = name.lower()
        with self._lock:
            names_in_use = self._names_in_use
            i = names_in_use.get(name_key, 0)
            if mark_as_used:
                names_in_use[name_key] = i + 1
            if i > 0:
                base_key = name_key
                while name_key in names_in_use:
                    name_key = f"{base_key}_{i}"
                    i += 1
                if mark_as_used:
                    names_in_use[name_key] = 1
                name = f"{name}_{i - 1}"
        return name

    def _unique_import_name(self, name: str) -> str:
        """``name`` made unique against existing ops only (case-sensitive), the way
        TF's importer renames clashing nodes; the result is marked as used."""
        with self._lock:
            candidate, i = name, 1
            while candidate in self._nodes_by_name:
                candidate = f"{name}_{i}"
                i += 1
            key = candidate.lower()
            self._names_in_use[key] = self._names_in_use.get(key, 0) + 1
            return candidate

    @contextlib.contextmanager
    def name_scope(self, name: str | None) -> Iterator[str]:
        """Pushes a name scope; yields it with a trailing '/'.

        'outer' re-entered becomes 'outer_1'; a name ending in '/' is used as is
        (absolute); None or '' returns to the top level.
        """
        state = self._state
        if name:
            if isinstance(name, bytes):
                name = name.decode()
            regex = _VALID_SCOPE_NAME_REGEX if state.name_stack else _VALID_OP_NAME_REGEX
            if not regex.match(name):
                raise ValueError(f"'{name}' is not a valid scope name")
        old = state.name_stack
        if not name:
            new_stack, returned = "", ""
        elif name[-1] == "/":
            new_stack, returned = name_from_scope_name(name), name
        else:
            new_stack = self.unique_name(name)
            returned = new_stack + "/"
        state.name_stack = new_stack
        try:
            yield returned
        finally:
            state.name_stack = old

    # -- control dependencies ---------------------------------------------------------
    @contextlib.contextmanager
    def control_dependencies(self, control_inputs: list | None) -> Iterator[None]:
        """Ops created inside run after ``control_inputs``; None clears outer ones."""
        state = self._state
        if control_inputs is None:
            # As TF: None also leaves any cond / while context (ops made inside belong
            # to no control flow context unless one is set on them).
            saved = state.control_deps
            saved_context = state.control_flow_context
            state.control_deps = []
            state.control_flow_context = None
            try:
                yield
            finally:
                state.control_deps = saved
                state.control_flow_context = saved_context
            return
        ops: list[Operation] = []
        for c in control_inputs:
            if hasattr(c, "_as_graph_element") and not isinstance(c, (Tensor, Operation)):
                c = c._as_graph_element()
            if isinstance(c, Tensor):
                c = c.op
            elif not isinstance(c, Operation):
                c = self.as_graph_element(c)
                if isinstance(c, Tensor):
                    c = c.op
            if c._graph is not self:
                raise ValueError(f"Control input {c.name} must be from the same graph as the "
                                 "ops it controls.")
            if c not in ops:
                ops.append(c)
        controller = _ControlDependenciesController(ops)
        state.control_deps.append(controller)
        try:
            yield
        finally:
            state.control_deps.pop()

    def _control_dependencies_for_inputs(self, input_ops: list[Operation]) -> list[Operation]:
        ret: list[Operation] = []
        for controller in self._state.control_deps:
            if any(op._id in controller.seen for op in input_ops):
                continue  # dominated: an input already runs after these control inputs
            for c in controller.control_inputs:
                if c not in input_ops and c not in ret:
                    ret.append(c)
        return ret

    # -- devices and colocation -------------------------------------------------------
    @contextlib.contextmanager
    def device(self, device_name_or_function: Any) -> Iterator[None]:
        """Device scope: a device string/DeviceSpec (merged with outer scopes as TF
        does), a device function ``op -> device``, or None (no device)."""
        entry = _DeviceEntry(device_name_or_function)
        stack = self._state.device_stack
        stack.append(entry)
        try:
            yield
        finally:
            stack.pop()

    def _apply_device_functions(self, op: Operation) -> None:
        # Innermost first: each outer level merges its spec under what inner ones set.
        for entry in reversed(self._state.device_stack):
            if entry.is_null_merge:
                continue
            if entry.function is None:
                break
            op._device = entry.apply(op)

    @contextlib.contextmanager
    def colocate_with(self, op: Any, ignore_existing: bool = False) -> Iterator[None]:
        """Ops created inside share ``op``'s colocation group and device
        (``_class: ["loc:@name"]``); device scopes are suspended inside."""
        state = self._state
        if op is None and not ignore_existing:
            raise ValueError("Trying to reset colocation (op is None) but ignore_existing is "
                             "not True")
        if op is not None:
            op = _to_operation(op, self)
        saved_dev = state.device_stack
        saved_colo = state.colocation_stack
        state.device_stack = []
        if ignore_existing:
            state.colocation_stack = []
        if op is not None:
            state.colocation_stack = state.colocation_stack + [op]
        try:
            yield
        finally:
            state.device_stack = saved_dev
            state.colocation_stack = saved_colo

    @contextlib.contextmanager
    def _attr_scope(self, attr_map: dict[str, attr_value_pb2.AttrValue]) -> Iterator[None]:
        state = self._state
        saved = state.attr_scope
        state.attr_scope = {**saved, **attr_map}
        try:
            yield
        finally:
            state.attr_scope = saved

    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map: dict[str, str]) -> Iterator[None]:
        """Inside the block, ops of the given types use the gradient of the mapped type."""
        state = self._state
        saved = state.gradient_override_map
        state.gradient_override_map = {**saved, **op_type_map}
        try:
            yield
        finally:
            state.gradient_override_map = saved

    def _get_control_flow_context(self) -> Any:
        return self._state.control_flow_context

    def _set_control_flow_context(self, context: Any) -> None:
        self._state.control_flow_context = context

    @contextlib.contextmanager
    def container(self, container_name: str) -> Iterator[None]:
        saved = self._container
        self._container = container_name
        try:
            yield
        finally:
            self._container = saved

    # -- op creation ------------------------------------------------------------------
    def create_op(self, op_type: str, inputs: list[Tensor], dtypes: list | None = None,
                  input_types: list | None = None, name: str | None = None,
                  attrs: dict | None = None, op_def: Any = None,
                  compute_device: bool = True) -> Operation:
        """Adds an op (TF's low-level API; wrappers go through ``op_def_library``)."""
        reg = op_registry.get(op_type)
        del input_types, op_def
        return self._create_op_internal(reg, list(inputs),
                                        [dtypes_lib.as_dtype(d) for d in (dtypes or [])],
                                        name or op_type, dict(attrs or {}), compute_device)

    def _create_op_internal(self, reg: op_registry.RegisteredOp, inputs: list[Tensor],
                            output_types: list[dtypes_lib.DType], name: str,
                            attrs: dict[str, attr_value_pb2.AttrValue],
                            compute_device: bool = True,
                            control_inputs: list[Operation] | None = None,
                            device: str = "") -> Operation:
        """Makes an Operation and adds it atomically: validation and shape inference run
        before the op becomes visible, so a failure leaves the graph as it was."""
        self._check_not_finalized()
        for i, t in enumerate(inputs):
            if t._op._graph is not self:
                if getattr(self, "building_function", False):  # a FuncGraph captures it
                    inputs[i] = self.capture(t)
                    continue
                raise ValueError(f"Tensor {t.name} must be from the same graph as the op "
                                 f"being created ({name}).")
        if name and name[-1] == "/":
            name = name[:-1]
        else:
            if name and not _VALID_OP_NAME_REGEX.match(name.split("/")[-1] or "x"):
                raise ValueError(f"'{name}' is not a valid node name")
            name = self.unique_name(name)
        state = self._state
        if state.attr_scope:
            attrs = {**state.attr_scope, **attrs}
        op = Operation(self, name, reg.name, inputs, output_types, attrs, reg,
                       device=device, stack=_capture_stack())
        flow_context = state.control_flow_context
        ctrl = self._control_dependencies_for_inputs([t._op for t in inputs])
        if control_inputs:
            ctrl = ctrl + [c for c in control_inputs if c not in ctrl]
        op._control_inputs = ctrl + [c for c in op._control_inputs if c not in ctrl]
        if compute_device:
            self._apply_device_functions(op)
        if state.colocation_stack:
            groups: set[bytes] = set()
            device_set = False
            for colo in reversed(state.colocation_stack):
                groups.update(colo.colocation_groups())
                if colo._device and not device_set:
                    op._device = colo._device
                    device_set = True
            op._attrs["_class"] = attr_value_pb2.AttrValue(
                list=attr_value_pb2.AttrValue.ListValue(s=sorted(groups)))
        mapped = state.gradient_override_map.get(reg.name)
        if mapped:
            op._attrs["_gradient_op_type"] = attr_value_pb2.AttrValue(s=mapped.encode())
        if (self._container and reg.op_def.is_stateful and "container" in reg.attr_defs
                and not op._attrs["container"].s):
            op._attrs["container"] = attr_value_pb2.AttrValue(s=self._container.encode())
        self._infer_shapes(op)
        self._add_op(op)
        if flow_context is not None:
            # Inside a cond branch or a while loop (after the op exists, as TF): external
            # inputs are rewired through Switches / Enters, and ops with no inputs wait on
            # the context's pivot (see control_flow_ops).
            flow_context.add_op(op)
        return op

    def _infer_shapes(self, op: Operation) -> None:
        fn = op._reg.shape_fn
        if fn is None:
            return
        try:
            shapes = fn(op)
        except ValueError as e:
            raise ValueError(f"{e} for '{{{{node {op._name}}}}} = {op._type}[]' "
                             f"(op '{op._name}' created at {op._creation_site()})") from None
        for t, s in zip(op._outputs, shapes):
            if s is not None:
                t._shape = s if isinstance(s, shape_lib.TensorShape) else shape_lib.as_shape(s)

    def _add_op(self, op: Operation) -> None:
        with self._lock:
            self._check_not_finalized()
            if op._name in self._nodes_by_name:
                raise ValueError(f"Duplicate node name in graph: '{op._name}'")
            op._id = self._next_id_counter
            self._next_id_counter += 1
            self._nodes_by_id[op._id] = op
            self._nodes_by_name[op._name] = op
            for t in op._inputs:
                t._consumers.append(op)
            for controller in self._state.control_deps:
                controller.seen.add(op._id)

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """Adds a group of ops all-or-nothing: on error, every op added inside is
        removed again and the names they took are released."""
        with self._lock:
            mark = self._next_id_counter
            names = dict(self._names_in_use)
            try:
                yield
            except BaseException:
                for op_id in range(mark, self._next_id_counter):
                    op = self._nodes_by_id.pop(op_id, None)
                    if op is None:
                        continue
                    self._nodes_by_name.pop(op._name, None)
                    for t in op._inputs:
                        if op in t._consumers:
                            t._consumers.remove(op)
                self._next_id_counter = mark
                self._names_in_use = names
                raise

    # -- lookup -----------------------------------------------------------------------
    def get_operations(self) -> list[Operation]:
        with self._lock:
            return list(self._nodes_by_id.values())

    def get_operation_by_name(self, name: str) -> Operation:
        if not isinstance(name, str):
            raise TypeError(f"Operation names are strings (or similar), not "
                            f"{type(name).__name__}.")
        return self.as_graph_element(name, allow_tensor=False, allow_operation=True)

    def _get_operation_by_name_unsafe(self, name: str) -> Operation:
        return self._nodes_by_name[name]

    def get_tensor_by_name(self, name: str) -> Tensor:
        if not isinstance(name, str):
            raise TypeError(f"Tensor names are strings (or similar), not {type(name).__name__}.")
        return self.as_graph_element(name, allow_tensor=True, allow_operation=False)

    def as_graph_element(self, obj: Any, allow_tensor: bool = True,
                         allow_operation: bool = True) -> Tensor | Operation:
        """Resolves a Tensor, Operation, name or convertible object to an element of
        this graph, with TF's errors for wrong kinds and missing names."""
        if allow_tensor and allow_operation:
            types_str = "Tensor or Operation"
        elif allow_tensor:
            types_str = "Tensor"
        else:
            types_str = "Operation"
        conv = getattr(obj, "_as_graph_element", None)
        if conv is not None and not isinstance(obj, (Tensor, Operation)):
            obj = conv()
        if isinstance(obj, str):
            name = obj
            if ":" in name and allow_tensor:
                op_name, out_n = name.split(":", 1)
                try:
                    index = int(out_n)
                except ValueError:
                    raise ValueError(f"The name {name!r} looks a like a Tensor name, but is not "
                                     "a valid one. Tensor names must be of the form "
                                     '"<op_name>:<output_index>".') from None
                op = self._nodes_by_name.get(op_name)
                if op is None:
                    raise KeyError(f"The name {name!r} refers to a Tensor which does not exist. "
                                   f"The operation, {op_name!r}, does not exist in the graph.")
                if index >= len(op._outputs) or index < 0:
                    raise KeyError(f"The name {name!r} refers to a Tensor which does not exist. "
                                   f"The operation, {op_name!r}, exists but only has "
                                   f"{len(op._outputs)} outputs.")
                return op._outputs[index]
            if ":" in name and not allow_tensor:
                raise ValueError(f"Name {name!r} appears to refer to a Tensor, not a "
                                 f"{types_str}.")
            if ":" not in name and allow_operation:
                op = self._nodes_by_name.get(name)
                if op is None:
                    raise KeyError(f"The name {name!r} refers to an Operation not in the graph.")
                return op
            if ":" not in name and not allow_operation:
                if name in self._nodes_by_name:
                    raise ValueError(f"The name {name!r} refers to an Operation, not a "
                                     f"{types_str}. Tensor names must be of the form "
                                     '"<op_name>:<output_index>".')
                raise ValueError(f"The name {name!r} looks like an (invalid) Operation name, "
                                 f"not a {types_str}. Tensor names must be of the form "
                                 '"<op_name>:<output_index>".')
        if isinstance(obj, Tensor) and allow_tensor:
            if obj.graph is not self:
                raise ValueError(f"Tensor {obj} is not an element of this graph.")
            return obj
        if isinstance(obj, Operation) and allow_operation:
            if obj._graph is not self:
                raise ValueError(f"Operation {obj} is not an element of this graph.")
            return obj
        raise TypeError(f"Can not convert a {type(obj).__name__} into a {types_str}.")

    # -- feeding and fetching -----------------------------------------------------------
    def prevent_feeding(self, tensor: Tensor) -> None:
        """Marks ``tensor`` as one Session.run may not feed."""
        self._unfeedable_tensors.add(tensor)

    def is_feedable(self, tensor: Tensor) -> bool:
        return tensor not in self._unfeedable_tensors

    def prevent_fetching(self, op: Operation) -> None:
        """Marks ``op`` (and its outputs) as not fetchable."""
        self._unfetchable_ops.add(op)

    def is_fetchable(self, tensor_or_op: Tensor | Operation) -> bool:
        op = tensor_or_op.op if isinstance(tensor_or_op, Tensor) else tensor_or_op
        return op not in self._unfetchable_ops

    # -- collections ------------------------------------------------------------------
    def add_to_collection(self, name: str, value: Any) -> None:
        self._check_not_finalized()
        with self._lock:
            self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names: Any, value: Any) -> None:
        names = (names,) if isinstance(names, str) else set(names)
        for name in names:
            self.add_to_collection(name, value)

    def get_collection_ref(self, name: str) -> list:
        """The collection's own list (mutations show in the graph)."""
        with self._lock:
            coll = self._collections.get(name)
            if coll is None:
                coll = self._collections[name] = []
            return coll

    def get_collection(self, name: str, scope: str | None = None) -> list:
        """A copy of the collection, filtered to items whose ``name`` matches ``scope``
        (a regex matched at the start) when given."""
        with self._lock:
            coll = self._collections.get(name)
            if coll is None:
                return []
            if scope is None:
                return list(coll)
            regex = re.compile(scope)
            out = []
            for item in coll:
                try:
                    if regex.match(item.name):
                        out.append(item)
                except AttributeError:
                    pass
            return out

    def get_all_collection_keys(self) -> list[str]:
        with self._lock:
            return [k for k in self._collections if isinstance(k, str)]

    def clear_collection(self, name: str) -> None:
        self._check_not_finalized()
        with self._lock:
            self._collections.pop(name, None)

    # -- serialization ----------------------------------------------------------------
    def as_graph_def(self, from_version: int | None = None,
                     add_shapes: bool = False) -> graph_pb2.GraphDef:
        """The graph as a GraphDef (only ops added since ``from_version`` if given)."""
        gd = graph_pb2.GraphDef()
        gd.versions.producer = GRAPH_DEF_VERSION
        gd.versions.min_consumer = GRAPH_DEF_VERSION_MIN_CONSUMER
        with self._lock:
            ops = [op for op in self._nodes_by_id.values()
                   if from_version is None or op._id >= from_version]
        nodes = gd.node
        for op in ops:
            # As TF: control inputs sorted by name; shapes only for ops with outputs.
            nd = nodes.add()
            nd.CopyFrom(op._make_node_def(sort_control_inputs=True))
            if add_shapes and op._outputs:
                nd.attr["_output_shapes"].list.shape.extend(
                    t._shape.as_proto() for t in op._outputs)
        # The function library (framework.function adds to it), whole in every delta.
        for fdef in getattr(self, "_functions", {}).values():
            gd.library.function.add().CopyFrom(fdef)
        return gd

    @property
    def graph_def_versions(self):
        return self.as_graph_def(from_version=self._next_id_counter).versions

    def __repr__(self) -> str:
        return f"<graphcore.Graph object at {id(self):#x}>"


def _to_operation(obj: Any, graph: Graph | None = None) -> Operation:
    if isinstance(obj, Operation):
        return obj
    if isinstance(obj, Tensor):
        return obj.op
    conv = getattr(obj, "_as_graph_element", None)
    if conv is not None:
        return _to_operation(conv(), graph)
    op = getattr(obj, "op", None)
    if isinstance(op, Operation):
        return op
    if graph is not None and isinstance(obj, str):
        return _to_operation(graph.as_graph_element(obj), graph)
    raise TypeError(f"Cannot convert {obj!r} to an Operation")


# ---------------------------------------------------------------------------------------
# The default graph stack
# ---------------------------------------------------------------------------------------

class _DefaultGraphStack(threading.local):
    """A per-thread stack of graphs over one process-wide global default graph."""

    _global_default: Graph | None = None
    _global_lock = threading.Lock()

    def __init__(self) -> None:
        self.stack: list[Graph] = []

    def get_default(self) -> Graph:
        if self.stack:
            return self.stack[-1]
        cls = type(self)
        if cls._global_default is None:
            with cls._global_lock:
                if cls._global_default is None:
                    cls._global_default = Graph()
        return cls._global_default

    def reset(self) -> None:
        if self.stack:
            raise AssertionError("Do not use tf.reset_default_graph() to clear nested graphs. "
                                 "If you need a cleared graph, exit the nesting and create a "
                                 "new graph.")
        type(self)._global_default = None

    @contextlib.contextmanager
    def get_controller(self, graph: Graph) -> Iterator[Graph]:
        self.stack.append(graph)
        try:
            yield graph
        finally:
            # Tolerate a stack that was cleared meanwhile, as TF does on error paths.
            if self.stack and self.stack[-1] is graph:
                self.stack.pop()
            elif graph in self.stack:
                self.stack.remove(graph)


_default_graph_stack = _DefaultGraphStack()


def get_default_graph() -> Graph:
    """The innermost graph of ``Graph.as_default()`` in this thread, else the global one."""
    return _default_graph_stack.get_default()


def reset_default_graph() -> None:
    """Replaces the global default graph with a new empty one (not inside as_default)."""
    _default_graph_stack.reset()


def _get_graph_from_inputs(values: list) -> Graph:
    """The graph of the graph elements among ``values`` (all must agree), else the
    default graph. While a function is traced, its graph (whose ops capture what outer
    graphs' tensors they take), as TF's."""
    default = get_default_graph()
    if getattr(default, "building_function", False):
        return default
    graph = None
    first = None
    for v in values:
        g = None
        if isinstance(v, (Tensor, Operation)):
            g = v.graph
        else:
            g = getattr(v, "graph", None) if hasattr(v, "_as_graph_element") else None
        if g is None:
            continue
        if graph is None:
            graph, first = g, v
        elif g is not graph:
            raise ValueError(f"{v!r} must be from the same graph as {first!r} (graphs are "
                             f"{g!r} and {graph!r}).")
    return graph or get_default_graph()


# Module-level forwarding to the default graph, as tf.compat.v1 exposes them.

def name_scope(name: str | None, default_name: str | None = None, values: Any = None):
    """``tf.name_scope(name, default_name, values)``: a scope in the graph of ``values``
    (default graph otherwise); ``default_name`` is used (made unique) when name is None."""
    graph = _get_graph_from_inputs(list(values)) if values else get_default_graph()
    scope = name if name is not None else default_name
    if name is None and default_name is None and values is not None:
        raise ValueError("At least one of name (None) and default_name (None) must be "
                         "provided.")
    return _graph_scope(graph, scope)


@contextlib.contextmanager
def _graph_scope(graph: Graph, scope: str | None) -> Iterator[str]:
    with graph.as_default(), graph.name_scope(scope) as s:
        yield s


def op_scope(values: Any, name: str | None, default_name: str | None = None):
    """TF1's deprecated ``op_scope``: ``name_scope(name, default_name, values)``."""
    return name_scope(name, default_name, values)


def control_dependencies(control_inputs: list | None):
    return get_default_graph().control_dependencies(control_inputs)


def device(device_name_or_function: Any):
    return get_default_graph().device(device_name_or_function)


def colocate_with(op: Any, ignore_existing: bool = False):
    graph = op.graph if op is not None and hasattr(op, "graph") else get_default_graph()
    return graph.colocate_with(op, ignore_existing)


def container(container_name: str):
    return get_default_graph().container(container_name)


def add_to_collection(name: str, value: Any) -> None:
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names: Any, value: Any) -> None:
    get_default_graph().add_to_collections(names, value)


def get_collection(key: str, scope: str | None = None) -> list:
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key: str) -> list:
    return get_default_graph().get_collection_ref(key)


def op_error(error_cls: type, op: Operation | None, message: str) -> errors.OpError:
    """An OpError of ``error_cls`` naming ``op`` and where the user created it."""
    if op is None:
        return error_cls(None, None, message)
    text = (f"{message}\n\t [[{{{{node {op.name}}}}} = {op.type}]] "
            f"(op '{op.name}' created at {op._creation_site()})")
    return error_cls(op.node_def, op, text)
