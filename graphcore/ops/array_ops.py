"""Array ops: Const, Placeholder, PlaceholderWithDefault, Identity."""

from __future__ import annotations

from typing import Any

from graphcore.framework import common_shapes, op_registry, tensor_conversion, tensor_util
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.protobuf import attr_value_pb2

__all__ = [
    "constant",
    "placeholder",
    "placeholder_with_default",
    "identity",
    "stack",
    "where",
    "squeeze",
    "gather",
    "boolean_mask",
]


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


# -- Pack, Where, Squeeze, GatherV2 (what boolean_mask and the variable reports need) --

def _pack_shape(op: ops_lib.Operation) -> list:
    axis = op._attrs["axis"].i
    shape = shape_lib.unknown_shape()
    for t in op._inputs:
        shape = shape.merge_with(t.shape)
    if shape.ndims is None:
        return [shape_lib.unknown_shape()]
    dims = shape.as_list()
    rank = len(dims) + 1
    if not -rank <= axis < rank:
        raise ValueError(f"Argument 'axis' = {axis} not in range [{-rank}, {rank})")
    if axis < 0:
        axis += rank
    return [shape_lib.TensorShape(dims[:axis] + [len(op._inputs)] + dims[axis:])]


def _where_shape(op: ops_lib.Operation) -> list:
    rank = op._inputs[0].shape.ndims
    return [shape_lib.TensorShape([None, rank])]


def _squeeze_shape(op: ops_lib.Operation) -> list:
    shape = op._inputs[0].shape
    if shape.ndims is None:
        return [shape_lib.unknown_shape()]
    dims = shape.as_list()
    axes = [a + len(dims) if a < 0 else a for a in op._attrs["squeeze_dims"].list.i]
    for a in axes:
        if not 0 <= a < len(dims):
            raise ValueError(f"Tried to squeeze dim index {a} for tensor with {len(dims)} "
                             "dimensions.")
        if dims[a] not in (1, None):
            raise ValueError(f"Can not squeeze dim[{a}], expected a dimension of 1, got "
                             f"{dims[a]}")
    if axes:
        return [shape_lib.TensorShape([d for i, d in enumerate(dims) if i not in axes])]
    if any(d is None for d in dims):
        return [shape_lib.unknown_shape()]
    return [shape_lib.TensorShape([d for d in dims if d != 1])]


def _gather_shape(op: ops_lib.Operation) -> list:
    params, indices = op._inputs[0].shape, op._inputs[1].shape
    axis_t = op._inputs[2]
    if params.ndims is None or indices.ndims is None or axis_t.op.type != "Const":
        return [shape_lib.unknown_shape()]
    axis = int(tensor_util.MakeNdarray(axis_t.op._attrs["value"].tensor))
    p = params.as_list()
    if axis < 0:
        axis += len(p)
    return [shape_lib.TensorShape(p[:axis] + indices.as_list() + p[axis + 1:])]


op_registry.register_op("Pack").input("values: N * T").output("output: T") \
    .attr("N: int >= 1").attr("T: type").attr("axis: int = 0").shape_fn(_pack_shape)

op_registry.register_op("Where").input("input: T").output("index: int64") \
    .attr("T: {numbertype, bool} = DT_BOOL").shape_fn(_where_shape)

op_registry.register_op("Squeeze").input("input: T").output("output: T").attr("T: type") \
    .attr("squeeze_dims: list(int) >= 0 = []").shape_fn(_squeeze_shape)

op_registry.register_op("GatherV2").input("params: Tparams").input("indices: Tindices") \
    .input("axis: Taxis").output("output: Tparams").attr("batch_dims: int = 0") \
    .attr("Tparams: type").attr("Tindices: {int16, int32, int64}") \
    .attr("Taxis: {int32, int64}").shape_fn(_gather_shape)


def stack(values: list, axis: int = 0, name: str = "stack") -> ops_lib.Tensor:
    """Packs a list of rank-R tensors into one rank-(R+1) tensor along ``axis``."""
    return apply_op("Pack", name=name, values=list(values), axis=axis).outputs[0]


def where(condition: Any, x: Any = None, y: Any = None, name: str | None = None):
    """The coordinates of true elements of ``condition`` (int64, [num_true, rank])."""
    if x is not None or y is not None:
        raise NotImplementedError("where(condition, x, y) comes with the Select op")
    return apply_op("Where", name=name, input=condition).outputs[0]


def squeeze(input: Any, axis: Any = None, name: str | None = None,  # noqa: A002
            squeeze_dims: Any = None) -> ops_lib.Tensor:
    """Removes size-1 dimensions (only those in ``axis`` when given)."""
    axis = squeeze_dims if axis is None else axis
    if isinstance(axis, int):
        axis = [axis]
    return apply_op("Squeeze", name=name, input=input, squeeze_dims=list(axis or [])).outputs[0]


def gather(params: Any, indices: Any, axis: Any = None, batch_dims: int = 0,
           name: str | None = None, validate_indices: Any = None) -> ops_lib.Tensor:
    """Slices of ``params`` at ``indices`` along ``axis`` (default 0)."""
    del validate_indices
    return apply_op("GatherV2", name=name, params=params, indices=indices,
                    axis=0 if axis is None else axis, batch_dims=batch_dims).outputs[0]


def boolean_mask(tensor: Any, mask: Any, name: str = "boolean_mask",
                 axis: Any = None) -> ops_lib.Tensor:
    """The elements of ``tensor`` where the 1-D ``mask`` is true."""
    if axis not in (None, 0):
        raise NotImplementedError("boolean_mask with axis != 0 is not supported yet")
    with ops_lib.name_scope(name, values=[tensor, mask]):
        tensor = tensor_conversion.convert_to_tensor(tensor, name="tensor")
        mask = tensor_conversion.convert_to_tensor(mask, name="mask")
        if mask.shape.ndims not in (None, 1):
            raise NotImplementedError("boolean_mask supports 1-D masks only for now")
        indices = squeeze(where(mask), axis=[1])
        return gather(tensor, indices, axis=0)
