"""Array ops: Const, Placeholder, PlaceholderWithDefault, Identity."""

from __future__ import annotations

from typing import Any

from graphcore.framework import common_shapes, op_registry, tensor_conversion, tensor_util
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.protobuf import attr_value_pb2


def _shape_from_attr(attr: str):
    def fn(op: ops_lib.Operation) -> list:
        return [shape_lib.TensorShape(op._attrs[attr].shape)]
    return fn


def _const_shape(op: ops_lib.Operation) -> list:
    return [shape_lib.TensorShape(op._attrs["value"].tensor.tensor_shape)]


op_registry.register_op("Const").output("output: dtype").attr("value: tensor") \
    .attr("dtype: type").shape_fn(_const_shape)

op_registry.register_op("Placeholder").output("output: dtype").attr("dtype: type") \
    .attr("shape: shape", default=shape_lib.unknown_shape()).shape_fn(_shape_from_attr("shape"))

op_registry.register_op("PlaceholderWithDefault").input("input: dtype") \
    .output("output: dtype").attr("dtype: type").attr("shape: shape") \
    .shape_fn(_shape_from_attr("shape"))

op_registry.register_op("Identity").input("input: T").output("output: T").attr("T: type") \
    .shape_fn(common_shapes.unchanged_shape)


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str = "Const",
             verify_shape: bool = False) -> ops_lib.Tensor:
    """A Const op holding ``value`` (``tf.constant`` of TF1: a scalar with a larger
    ``shape`` fills it)."""
    g = ops_lib.get_default_graph()
    proto = tensor_util.make_tensor_proto(value, dtype=dtype, shape=shape,
                                          verify_shape=verify_shape)
    attrs = {"value": attr_value_pb2.AttrValue(tensor=proto),
             "dtype": attr_value_pb2.AttrValue(type=proto.dtype)}
    op = g._create_op_internal(op_registry.get("Const"), [], [dtypes_lib.as_dtype(proto.dtype)],
                               name, attrs)
    return op._outputs[0]


def _constant_conversion(value: Any, dtype: Any = None, name: str | None = None,
                         as_ref: bool = False) -> ops_lib.Tensor:
    del as_ref
    return constant(value, dtype=dtype, name=name or "Const")


tensor_conversion.register_tensor_conversion_function(object, _constant_conversion, 200)


def placeholder(dtype: Any, shape: Any = None, name: str | None = None) -> ops_lib.Tensor:
    """A value that must be fed at run time (any shape when ``shape`` is None)."""
    return apply_op("Placeholder", name=name, dtype=dtype,
                    shape=shape_lib.unknown_shape() if shape is None else shape).outputs[0]


def placeholder_with_default(input: Any, shape: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A002
    """``input`` unless fed; the fed value must match ``shape``."""
    return apply_op("PlaceholderWithDefault", name=name, input=input, shape=shape).outputs[0]


def identity(input: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A002
    """A Tensor with the same value as ``input`` (reads a Variable's ref)."""
    if hasattr(input, "_as_graph_element") and hasattr(input, "value"):
        input = input.value()
    return apply_op("Identity", name=name, input=input).outputs[0]
