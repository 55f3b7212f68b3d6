"""The op registry: one OpDef and one shape function per op type.

Ops are declared with the same spec strings TensorFlow's ``REGISTER_OP`` uses,
so a declaration reads like TF's and yields an equal OpDef::

    register_op("AddV2") \\
        .input("x: T").input("y: T").output("z: T") \\
        .attr("T: {half, float, double, int32, int64}") \\
        .commutative().shape_fn(broadcast_shape)

Input/output specs: ``name: T`` (type attr), ``name: float`` (fixed type),
``name: Ref(T)`` (ref), ``name: N * T`` (number attr), ``name: Tlist``
(list(type) attr).  Attr specs: ``name: type``, ``name: {float, int32}``,
``name: list(type) >= 1``, ``name: int >= 0``, ``name: bool = true``,
``name: string = ''``, ``name: shape``, ``name: tensor``, with an optional
``= default`` literal or a ``default=`` keyword for values a literal can't say.
"""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import errors
from graphcore.framework import tensor_shape as shape_lib
from graphcore.protobuf import attr_value_pb2, op_def_pb2

ShapeFn = Callable[[Any], list]

# Named type sets TF's spec strings may use.
_REAL = ["float", "double", "int32", "uint8", "int16", "int8", "int64", "bfloat16",
         "uint16", "half", "uint32", "uint64"]
TYPE_SETS: dict[str, list[str]] = {
    "realnumbertype": _REAL,
    "numbertype": _REAL[:6] + ["complex64", "int64", "qint8", "quint8", "qint32", "bfloat16",
                               "qint16", "quint16", "uint16", "complex128", "half", "uint32",
                               "uint64"],
    "floatingpoint": ["half", "bfloat16", "float", "double"],
    "quantizedtype": ["qint8", "quint8", "qint32", "qint16", "quint16"],
}

_ARG_RE = re.compile(r"^\s*([a-z][a-z0-9_]*)\s*:\s*(?:(\w+)\s*\*\s*)?(Ref\(\s*(\w+)\s*\)|\w+)\s*$")
_ATTR_RE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.+?)\s*(?:(?<!>)=\s*(.+?))?\s*$")
_MIN_RE = re.compile(r"^(.+?)\s*>=\s*(-?\d+)$")


def _dtype_enum(name: str) -> int:
    return dtypes_lib.as_dtype(name).as_datatype_enum


@dataclass
class RegisteredOp:
    """Everything graph building needs to know about one op type."""

    op_def: op_def_pb2.OpDef
    shape_fn: ShapeFn | None = None
    # attr name -> default AttrValue (filled at registration, read on every op creation)
    defaults: dict[str, attr_value_pb2.AttrValue] = field(default_factory=dict)
    attr_defs: dict[str, op_def_pb2.OpDef.AttrDef] = field(default_factory=dict)
    module: str = ""  # the module that registered it (its op family)

    @property
    def name(self) -> str:
        return self.op_def.name


class OpBuilder:
    """Fluent declaration of one op; registered on creation, completed in place."""

    def __init__(self, op_type: str):
        self._reg = RegisteredOp(op_def_pb2.OpDef(name=op_type))
        self._pending_args: list[tuple[op_def_pb2.OpDef.ArgDef, str, str | None, bool]] = []
        with _lock:
            if op_type in _registry:
                raise ValueError(f"Op type '{op_type}' is already registered")
            _registry[op_type] = self._reg

    # -- args ---------------------------------------------------------------------------
    def input(self, spec: str) -> OpBuilder:
        return self._arg(self._reg.op_def.input_arg.add(), spec)

    def output(self, spec: str) -> OpBuilder:
        return self._arg(self._reg.op_def.output_arg.add(), spec)

    def specs(self, inputs: Any = (), outputs: Any = (), attrs: Any = ()) -> OpBuilder:
        """The ``inputs``, then ``outputs``, then ``attrs`` specs, each in its order."""
        for spec in inputs:
            self.input(spec)
        for spec in outputs:
            self.output(spec)
        for spec in attrs:
            self.attr(spec)
        return self

    def _arg(self, arg: op_def_pb2.OpDef.ArgDef, spec: str) -> OpBuilder:
        m = _ARG_RE.match(spec)
        if not m:
            raise ValueError(f"Bad arg spec '{spec}' for op {self._reg.name}")
        arg.name, number_attr, whole, ref_inner = m.group(1), m.group(2), m.group(3), m.group(4)
        type_name = ref_inner or whole
        arg.is_ref = ref_inner is not None
        if number_attr:
            arg.number_attr = number_attr
        # Whether type_name is an attr or a dtype is only known once attrs are declared.
        self._pending_args.append((arg, type_name, number_attr, arg.is_ref))
        self._resolve_args()
        return self

    def _resolve_args(self) -> None:
        still = []
        for arg, type_name, number_attr, _ in self._pending_args:
            attr = self._reg.attr_defs.get(type_name)
            if attr is not None:
                if attr.type == "list(type)":
                    arg.type_list_attr = type_name
                else:
                    arg.type_attr = type_name
            elif _is_dtype_name(type_name):
                arg.type = _dtype_enum(type_name)
            else:
                still.append((arg, type_name, number_attr, arg.is_ref))
        self._pending_args = still

    # -- attrs --------------------------------------------------------------------------
    def attr(self, spec: str, default: Any = None) -> OpBuilder:
        m = _ATTR_RE.match(spec)
        if not m:
            raise ValueError(f"Bad attr spec '{spec}' for op {self._reg.name}")
        name, type_spec, literal = m.group(1), m.group(2), m.group(3)
        attr = self._reg.op_def.attr.add(name=name)
        mm = _MIN_RE.match(type_spec)
        if mm:
            type_spec = mm.group(1).strip()
            attr.has_minimum = True
            attr.minimum = int(mm.group(2))
        if type_spec.startswith("{"):
            # Allowed values: types for a 'type' attr, strings for a 'string' attr.
            items = [s.strip() for s in type_spec[1:-1].split(",") if s.strip()]
            if items and items[0][0] in "'\"":
                attr.type = "string"
                attr.allowed_values.list.s.extend(s.strip("'\"").encode() for s in items)
            else:
                attr.type = "type"
                attr.allowed_values.list.type.extend(_expand_types(items))
        elif type_spec in TYPE_SETS:
            attr.type = "type"
            attr.allowed_values.list.type.extend(_expand_types([type_spec]))
        elif type_spec.startswith("list(") and type_spec.endswith(")"):
            inner = type_spec[5:-1].strip()
            if inner.startswith("{") or inner in TYPE_SETS:
                attr.type = "list(type)"
                items = [s.strip() for s in inner.strip("{}").split(",") if s.strip()]
                attr.allowed_values.list.type.extend(_expand_types(items))
            else:
                attr.type = type_spec
        else:
            attr.type = type_spec
        if literal is not None:
            default = _parse_literal(literal, attr.type)
        if default is not None:
            attr.default_value.CopyFrom(make_attr_value(attr, default, self._reg.name))
            self._reg.defaults[name] = attr.default_value
        self._reg.attr_defs[name] = attr
        self._resolve_args()
        return self

    # -- flags --------------------------------------------------------------------------
    def stateful(self) -> OpBuilder:
        self._reg.op_def.is_stateful = True
        return self

    def commutative(self) -> OpBuilder:
        self._reg.op_def.is_commutative = True
        return self

    def aggregate(self) -> OpBuilder:
        self._reg.op_def.is_aggregate = True
        return self

    def allows_uninitialized_input(self) -> OpBuilder:
        self._reg.op_def.allows_uninitialized_input = True
        return self

    def shape_fn(self, fn: ShapeFn) -> OpBuilder:
        if self._pending_args:
            names = [a[1] for a in self._pending_args]
            raise ValueError(f"Op {self._reg.name}: unresolved arg types {names}")
        self._reg.shape_fn = fn
        return self


_registry: dict[str, RegisteredOp] = {}
_lock = threading.Lock()


def register_op(op_type: str) -> OpBuilder:
    """Starts the registration of ``op_type``; chain ``.input/.output/.attr/...``."""
    builder = OpBuilder(op_type)
    builder._reg.module = sys._getframe(1).f_globals.get("__name__", "")
    return builder


def get(op_type: str) -> RegisteredOp:
    """The registration of ``op_type``; NotFoundError when there is none."""
    reg = _registry.get(op_type)
    if reg is None:
        raise errors.NotFoundError(None, None, f"Op type not registered '{op_type}'")
    return reg


def lookup(op_type: str) -> RegisteredOp | None:
    return _registry.get(op_type)


def registered_ops() -> dict[str, RegisteredOp]:
    """A snapshot of the registry, op type -> registration."""
    return dict(_registry)


def get_op_list() -> op_def_pb2.OpList:
    """An OpList of every registered OpDef (sorted by name)."""
    return op_def_pb2.OpList(op=[_registry[k].op_def for k in sorted(_registry)])


# -- attr values --------------------------------------------------------------------------

def _is_dtype_name(name: str) -> bool:
    try:
        dtypes_lib.as_dtype(name)
        return True
    except TypeError:
        return False


def _expand_types(items: list[str]) -> list[int]:
    out: list[int] = []
    for item in items:
        for t in TYPE_SETS.get(item, [item]):
            e = _dtype_enum(t)
            if e not in out:
                out.append(e)
    return out


def _parse_literal(text: str, attr_type: str) -> Any:
    text = text.strip()
    if text in ("true", "false"):
        return text == "true"
    if text[:1] in "'\"":
        return text[1:-1]
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].strip()
        if not inner:
            return []
        return [_parse_literal(s, attr_type[5:-1]) for s in inner.split(",")]
    if attr_type in ("type", "list(type)"):
        return dtypes_lib.as_dtype(text.removeprefix("DT_").lower())
    if attr_type in ("int", "list(int)"):
        return int(text)
    if attr_type in ("float", "list(float)"):
        return float(text)
    raise ValueError(f"Cannot parse default '{text}' for attr type {attr_type}")


def _shape_proto(value: Any):
    return shape_lib.as_shape(value).as_proto()


def _tensor_proto(value: Any):
    from graphcore.framework import tensor_util
    from graphcore.protobuf import tensor_pb2

    if isinstance(value, tensor_pb2.TensorProto):
        return value
    return tensor_util.make_tensor_proto(value)


def _type_enum(value: Any, attr_name: str, op_type: str) -> int:
    try:
        return dtypes_lib.as_dtype(value).as_datatype_enum
    except TypeError:
        raise TypeError(
            f"Expected DataType for argument '{attr_name}' not {value!r}.") from None


def make_attr_value(attr_def: op_def_pb2.OpDef.AttrDef, value: Any,
                    op_type: str) -> attr_value_pb2.AttrValue:
    """Converts a Python value to an AttrValue of ``attr_def``'s type, checking it.

    Raises TypeError for a value of the wrong kind and ValueError for one that breaks
    the attr's minimum or allowed values, naming the attr and the op.
    """
    if isinstance(value, attr_value_pb2.AttrValue):
        return value
    t = attr_def.type
    name = attr_def.name
    av = attr_value_pb2.AttrValue()
    try:
        if t == "type":
            av.type = _type_enum(value, name, op_type)
        elif t == "int":
            _check_kind(value, int, name, "int")
            av.i = int(value)
        elif t == "float":
            _check_kind(value, (int, float), name, "float")
            av.f = float(value)
        elif t == "bool":
            _check_kind(value, bool, name, "bool")
            av.b = bool(value)
        elif t == "string":
            _check_kind(value, (str, bytes), name, "string")
            av.s = value.encode() if isinstance(value, str) else value
        elif t == "shape":
            av.shape.CopyFrom(_shape_proto(value))
        elif t == "tensor":
            av.tensor.CopyFrom(_tensor_proto(value))
        elif t == "func":
            av.func.name = value if isinstance(value, str) else value.name
        elif t.startswith("list("):
            if not isinstance(value, (list, tuple)):
                raise TypeError(f"Expected list for attr {name}, obtained {type(value).__name__} "
                                "instead.")
            inner = t[5:-1]
            lst = av.list
            if inner == "type":
                lst.type.extend(_type_enum(v, name, op_type) for v in value)
            elif inner == "int":
                lst.i.extend(int(v) for v in value)
            elif inner == "float":
                lst.f.extend(float(v) for v in value)
            elif inner == "bool":
                lst.b.extend(bool(v) for v in value)
            elif inner == "string":
                lst.s.extend(v.encode() if isinstance(v, str) else v for v in value)
            elif inner == "shape":
                lst.shape.extend(_shape_proto(v) for v in value)
            elif inner == "tensor":
                lst.tensor.extend(_tensor_proto(v) for v in value)
            else:
                raise TypeError(f"Unsupported list attr type {t}")
            if not value:
                av.list.SetInParent()
        else:
            raise TypeError(f"Unsupported attr type {t}")
    except (ValueError, TypeError) as e:
        if f"attr '{name}'" in str(e) or f"argument '{name}'" in str(e):
            raise
        raise type(e)(f"{e} (attr '{name}' of op '{op_type}')") from None
    _check_attr_constraints(attr_def, av, op_type)
    return av


def _check_kind(value: Any, kinds: Any, name: str, kind_name: str) -> None:
    if isinstance(value, bool) and kinds is int:
        raise TypeError(f"Expected {kind_name} for argument '{name}' not {value!r}.")
    if not isinstance(value, kinds):
        try:
            import numpy as np

            if isinstance(value, np.generic):
                return
        except ImportError:  # pragma: no cover
            pass
        raise TypeError(f"Expected {kind_name} for argument '{name}' not {value!r}.")


_LIST_FIELD = {"int": "i", "float": "f", "bool": "b", "string": "s", "type": "type",
               "shape": "shape", "tensor": "tensor", "func": "func"}


def _check_attr_constraints(attr_def: op_def_pb2.OpDef.AttrDef, av: attr_value_pb2.AttrValue,
                            op_type: str) -> None:
    if attr_def.has_minimum:
        if attr_def.type.startswith("list("):
            n = len(getattr(av.list, _LIST_FIELD[attr_def.type[5:-1]]))
            if n < attr_def.minimum:
                raise ValueError(f"Attr '{attr_def.name}' of '{op_type}' Op passed list of length "
                                 f"{n} less than minimum {attr_def.minimum}.")
        elif av.i < attr_def.minimum:
            raise ValueError(f"Attr '{attr_def.name}' of '{op_type}' Op passed {av.i} less than "
                             f"minimum {attr_def.minimum}.")
    allowed = attr_def.allowed_values.list
    if attr_def.type == "type" and allowed.type and av.type not in allowed.type:
        names = ", ".join(dtypes_lib.as_dtype(e).name for e in allowed.type)
        raise TypeError(f"Value passed to parameter '{attr_def.name}' has DataType "
                        f"{dtypes_lib.as_dtype(av.type).name} not in list of allowed values: "
                        f"{names}")
    if attr_def.type == "list(type)" and allowed.type:
        for e in av.list.type:
            if e not in allowed.type:
                raise TypeError(f"Value for attr '{attr_def.name}' of "
                                f"{dtypes_lib.as_dtype(e).name} is not in the list of allowed "
                                f"values for '{op_type}'")
    if attr_def.type == "string" and allowed.s and av.s not in allowed.s:
        raise ValueError(f"Attr '{attr_def.name}' of '{op_type}' Op passed string "
                         f"'{av.s.decode()}' not in: "
                         + ", ".join(f"\"{s.decode()}\"" for s in allowed.s) + ".")


def attr_value_to_python(av: attr_value_pb2.AttrValue) -> Any:
    """TF's ``Operation.get_attr`` conversion: types become DTypes, the rest stays raw."""
    kind = av.WhichOneof("value")
    if kind is None:
        return []
    if kind == "list":
        lst = av.list
        for f in ("s", "i", "f", "b", "type", "shape", "tensor", "func"):
            items = getattr(lst, f)
            if items:
                if f == "type":
                    return [dtypes_lib.as_dtype(t) for t in items]
                return list(items)
        return []
    if kind == "type":
        return dtypes_lib.as_dtype(av.type)
    return getattr(av, kind)
