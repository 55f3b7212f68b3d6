"""``apply_op``: one generic Python wrapper for every registered op.

Given an op type and keyword arguments named after the OpDef's inputs and attrs, it
converts inputs to tensors, infers type attrs from them (TF's rules and TypeErrors),
fills attr defaults, checks allowed values, computes output dtypes, colocates ops
with their ref inputs, and adds the op to the graph of its inputs.
"""

from __future__ import annotations

import collections
import functools
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.protobuf import attr_value_pb2


def _type_av(dtype: dtypes_lib.DType) -> attr_value_pb2.AttrValue:
    return attr_value_pb2.AttrValue(type=dtype.as_datatype_enum)


def _flat_values(keywords: dict, reg: op_registry.RegisteredOp) -> list:
    out = []
    for arg in reg.op_def.input_arg:
        v = keywords.get(arg.name)
        if isinstance(v, (list, tuple)):
            out.extend(v)
        elif v is not None:
            out.append(v)
    return out


def apply_op(op_type: str, name: str | None = None, **keywords: Any) -> ops_lib.Operation:
    """Adds an op of ``op_type`` built from ``keywords``; returns the Operation."""
    reg = op_registry.get(op_type)
    op_def = reg.op_def
    graph = ops_lib._get_graph_from_inputs(_flat_values(keywords, reg))
    with graph.as_default(), graph.name_scope(name or op_type) as scope:
        inferred: dict[str, Any] = {}  # attr name -> DType / list[DType] / int
        inputs: list[ops_lib.Tensor] = []
        ref_inputs: list[ops_lib.Tensor] = []
        for arg in op_def.input_arg:
            if arg.name not in keywords:
                raise TypeError(f"No argument for input {arg.name}")
            values = keywords.pop(arg.name)
            if arg.number_attr or arg.type_list_attr:
                tensors = _convert_list(op_type, arg, values, inferred, reg)
            else:
                tensors = [_convert_one(op_type, arg, values, inferred, reg)]
            if arg.is_ref:
                for t in tensors:
                    if not t.dtype._is_ref_dtype:
                        raise TypeError(f"'{op_type}' Op requires that input '{arg.name}' be a "
                                        "mutable tensor (e.g.: a tf.Variable)")
                    ref_inputs.append(t)
            inputs.extend(tensors)

        attrs = _make_attrs(op_type, reg, inferred, keywords)
        output_types = output_types_from_attrs(reg, attrs)
        if ref_inputs:
            with _colocate_all(graph, ref_inputs):
                return graph._create_op_internal(reg, inputs, output_types, scope, attrs)
        return graph._create_op_internal(reg, inputs, output_types, scope, attrs)


@functools.cache
def _output_tuple(op_type: str, names: tuple[str, ...]) -> type:
    return collections.namedtuple(op_type, names)


def op_outputs(op: ops_lib.Operation) -> Any:
    """``op``'s outputs as TF's generated wrappers return them: the one output (or list
    output) alone, several as a namedtuple named after the op type with the OpDef's
    output names (list outputs grouped), the Operation when it has none."""
    outputs = list(op_registry.get(op.type).op_def.output_arg)
    if not outputs:
        return op
    grouped: list = []
    index = 0
    for arg in outputs:
        if arg.number_attr or arg.type_list_attr:
            count = (op.get_attr(arg.number_attr) if arg.number_attr
                     else len(op.get_attr(arg.type_list_attr)))
            grouped.append(op.outputs[index:index + count])
            index += count
        else:
            grouped.append(op.outputs[index])
            index += 1
    if len(grouped) == 1:
        return grouped[0]
    return _output_tuple(op.type, tuple(a.name for a in outputs))(*grouped)



class _colocate_all:
    """Nested ``colocate_with`` for every ref input (TF colocates ops with their refs)."""

    def __init__(self, graph: ops_lib.Graph, tensors: list[ops_lib.Tensor]):
        self._cms = [graph.colocate_with(t.op) for t in tensors]

    def __enter__(self) -> None:
        for cm in self._cms:
            cm.__enter__()

    def __exit__(self, *exc: Any) -> None:
        for cm in reversed(self._cms):
            cm.__exit__(*exc)


def _check_allowed(reg: op_registry.RegisteredOp, attr_name: str, dtype: dtypes_lib.DType,
                   arg_name: str) -> None:
    attr_def = reg.attr_defs[attr_name]
    allowed = attr_def.allowed_values.list.type
    if allowed and dtype.as_datatype_enum not in allowed:
        names = ", ".join(dtypes_lib.as_dtype(e).name for e in allowed)
        raise TypeError(f"Value passed to parameter '{arg_name}' has DataType {dtype.name} not "
                        f"in list of allowed values: {names}")


def _convert_allowed_first(value: Any, arg: Any,
                           reg: op_registry.RegisteredOp) -> ops_lib.Tensor | None:
    """TF's rule for an input whose type attr has a default and allowed types: the value
    converted as it is when its own dtype is allowed (a uint8 array stays uint8), else
    None (then the default dtype is preferred)."""
    attr = reg.attr_defs.get(arg.type_attr)
    allowed = list(attr.allowed_values.list.type) if attr is not None else []
    if not allowed:
        return None
    try:
        inferred = convert_to_tensor(value, name=arg.name, as_ref=arg.is_ref)
    except TypeError:
        return None
    return inferred if inferred.dtype.base_dtype.as_datatype_enum in allowed else None


def _convert_one(op_type: str, arg: Any, value: Any, inferred: dict,
                 reg: op_registry.RegisteredOp) -> ops_lib.Tensor:
    dtype = None
    default = None
    if arg.type:
        dtype = dtypes_lib.as_dtype(arg.type)
    elif arg.type_attr in inferred:
        dtype = inferred[arg.type_attr]
    elif arg.type_attr in reg.defaults:
        default = dtypes_lib.as_dtype(reg.defaults[arg.type_attr].type)
    try:
        t = _convert_allowed_first(value, arg, reg) if default is not None else None
        if t is None:
            t = convert_to_tensor(value, dtype=dtype, name=arg.name, as_ref=arg.is_ref,
                                  preferred_dtype=default)
    except TypeError as e:
        if dtype is None:
            raise
        raise TypeError(f"Expected {dtype.name} passed to parameter '{arg.name}' of op "
                        f"'{op_type}', got {value!r} of type '{type(value).__name__}' instead. "
                        f"Error: {e}") from None
    except ValueError:
        if dtype is None or not isinstance(value, ops_lib.Tensor):
            raise
        t = value  # a Tensor of another dtype: report it as TF does below
    base = t.dtype.base_dtype
    if arg.type:
        if base != dtype:
            raise TypeError(f"Input '{arg.name}' of '{op_type}' Op has type {base.name} that "
                            f"does not match expected type of {dtype.name}.")
    elif arg.type_attr in inferred:
        if base != inferred[arg.type_attr]:
            raise TypeError(f"Input '{arg.name}' of '{op_type}' Op has type {base.name} that "
                            f"does not match type {inferred[arg.type_attr].name} of argument "
                            f"'{inferred['__from__' + arg.type_attr]}'.")
    else:
        _check_allowed(reg, arg.type_attr, base, arg.name)
        inferred[arg.type_attr] = base
        inferred["__from__" + arg.type_attr] = arg.name
    return t


def _convert_list(op_type: str, arg: Any, values: Any, inferred: dict,
                  reg: op_registry.RegisteredOp) -> list[ops_lib.Tensor]:
    if not isinstance(values, (list, tuple)):
        raise TypeError(f"Expected list for '{arg.name}' argument to '{op_type}' Op, not "
                        f"{values!r}.")
    if arg.type_list_attr:
        tensors = [convert_to_tensor(v, as_ref=arg.is_ref, name=f"{arg.name}_{i}")
                   for i, v in enumerate(values)]
        types = [t.dtype.base_dtype for t in tensors]
        if arg.type_list_attr in inferred:
            if inferred[arg.type_list_attr] != types:
                raise TypeError(f"Input '{arg.name}' of '{op_type}' Op has type list of "
                                f"{types} that does not match type list "
                                f"{inferred[arg.type_list_attr]}.")
        else:
            inferred[arg.type_list_attr] = types
        return tensors
    # number_attr: N values of one type
    dtype = None
    if arg.type:
        dtype = dtypes_lib.as_dtype(arg.type)
    elif arg.type_attr in inferred:
        dtype = inferred[arg.type_attr]
    else:
        for v in values:
            if isinstance(v, ops_lib.Tensor) or hasattr(v, "_as_graph_element"):
                dtype = v.dtype.base_dtype
                break
    tensors = [convert_to_tensor(v, dtype=dtype, as_ref=arg.is_ref, name=f"{arg.name}_{i}")
               for i, v in enumerate(values)]
    if tensors and dtype is None:
        dtype = tensors[0].dtype.base_dtype
    for t in tensors:
        if t.dtype.base_dtype != dtype:
            raise TypeError(f"Tensors in list passed to '{arg.name}' of '{op_type}' Op have "
                            f"types [{', '.join(x.dtype.base_dtype.name for x in tensors)}] "
                            "that don't all match.")
    if arg.type_attr and arg.type_attr not in inferred and dtype is not None:
        _check_allowed(reg, arg.type_attr, dtype, arg.name)
        inferred[arg.type_attr] = dtype
        inferred["__from__" + arg.type_attr] = arg.name
    if arg.number_attr in inferred and inferred[arg.number_attr] != len(tensors):
        raise ValueError(f"List argument '{arg.name}' to '{op_type}' Op with length "
                         f"{len(tensors)} must match length {inferred[arg.number_attr]} of "
                         "argument '{...}'.")
    inferred[arg.number_attr] = len(tensors)
    return tensors


def _make_attrs(op_type: str, reg: op_registry.RegisteredOp, inferred: dict,
                keywords: dict) -> dict[str, attr_value_pb2.AttrValue]:
    attrs: dict[str, attr_value_pb2.AttrValue] = {}
    for attr_def in reg.op_def.attr:
        key = attr_def.name
        if key in inferred:
            value = inferred[key]
            if key in keywords:
                given = keywords.pop(key)
                if given is not None and _attr_python_differs(attr_def.type, given, value):
                    raise TypeError(f"Input of '{op_type}' Op has attr '{key}' = {value} that "
                                    f"does not match the given {given}.")
            if attr_def.type == "type":
                attrs[key] = _type_av(value)
            elif attr_def.type == "list(type)":
                attrs[key] = attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue(
                    type=[d.as_datatype_enum for d in value]))
            else:
                attrs[key] = op_registry.make_attr_value(attr_def, value, op_type)
            continue
        given = keywords.pop(key, None)
        if given is None:
            default = reg.defaults.get(key)
            if default is None:
                raise TypeError(f"No argument for attr {key}")
            attrs[key] = default
        else:
            attrs[key] = op_registry.make_attr_value(attr_def, given, op_type)
    if keywords:
        raise TypeError(f"{op_type} got unexpected keyword arguments: "
                        f"{', '.join(sorted(keywords))}")
    return attrs


def _attr_python_differs(attr_type: str, given: Any, value: Any) -> bool:
    if attr_type == "type":
        return dtypes_lib.as_dtype(given) != value
    if attr_type == "list(type)":
        return [dtypes_lib.as_dtype(g) for g in given] != list(value)
    return given != value


def output_types_from_attrs(reg: op_registry.RegisteredOp,
                            attrs: dict[str, attr_value_pb2.AttrValue]) -> list[dtypes_lib.DType]:
    """Output dtypes of an op from its complete attrs (also used by the importer)."""
    out: list[dtypes_lib.DType] = []
    for arg in reg.op_def.output_arg:
        out.extend(arg_types(arg, attrs))
    return out


def arg_types(arg: Any, attrs: dict[str, attr_value_pb2.AttrValue]) -> list[dtypes_lib.DType]:
    """The dtypes one input or output arg stands for, given complete attrs."""
    if arg.type_list_attr:
        types = [dtypes_lib.as_dtype(t) for t in attrs[arg.type_list_attr].list.type]
    else:
        dt = dtypes_lib.as_dtype(arg.type if arg.type else attrs[arg.type_attr].type)
        n = attrs[arg.number_attr].i if arg.number_attr else 1
        types = [dt] * n
    if arg.is_ref:
        types = [t._as_ref for t in types]
    return types
