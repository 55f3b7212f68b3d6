"""Resource variables (TF's ``resource_variable_ops``): a VarHandleOp names the variable,
ReadVariableOp reads a snapshot of it, AssignVariableOp / AssignAdd / AssignSub write it.

``tf.Variable(..., use_resource=True)``, ``tf.get_variable(..., use_resource=True)`` or
``tf.enable_resource_variables()`` give a :class:`ResourceVariable` built with TF's node
names, and GraphDefs that TF 2.x's ``compat.v1`` writes (resource variables by default)
import and run. Kernels: :mod:`graphcore.kernels.resource_variable_kernels`.
"""

from __future__ import annotations

from typing import Any

from graphcore.framework import common_shapes, op_registry, tensor_conversion
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.ops import array_ops, control_flow_ops, variables
from graphcore.protobuf import attr_value_pb2

__all__ = [
    "disable_resource_variables",
    "enable_resource_variables",
    "resource_variables_enabled",
]


# -- op definitions -------------------------------------------------------------------------

_PASS_THROUGH = frozenset({"Identity", "Enter", "RefEnter", "Switch", "Merge", "Exit"})


def handle_shape(handle: ops_lib.Tensor) -> shape_lib.TensorShape:
    """The shape of the variable behind ``handle`` (its VarHandleOp's ``shape`` attr,
    through identities and loop frames), unknown when that is not in the graph."""
    op = handle.op
    while op.type in _PASS_THROUGH and op.inputs:
        op = op.inputs[0].op
    if op.type == "VarHandleOp":
        return shape_lib.TensorShape(op._attrs["shape"].shape)
    return shape_lib.unknown_shape()


def _read_shape(op: ops_lib.Operation) -> list:
    return [handle_shape(op._inputs[0])]


def _gather_shape(op: ops_lib.Operation) -> list:
    params = handle_shape(op._inputs[0])
    indices = op._inputs[1].shape
    batch_dims = op._attrs["batch_dims"].i
    if params.ndims is None or indices.ndims is None:
        return [shape_lib.unknown_shape()]
    if batch_dims < 0:
        batch_dims += indices.ndims
    return [indices.concatenate(params[batch_dims + 1:])]


def _variable_shape_shape(op: ops_lib.Operation) -> list:
    return [shape_lib.TensorShape([handle_shape(op._inputs[0]).ndims])]


op_registry.register_op("VarHandleOp").output("resource: resource") \
    .attr("container: string = ''").attr("shared_name: string = ''") \
    .attr("debug_name: string = ''").attr("dtype: type").attr("shape: shape") \
    .attr("allowed_devices: list(string) = []").stateful() \
    .shape_fn(common_shapes.scalar_shape)

op_registry.register_op("ReadVariableOp").input("resource: resource").output("value: dtype") \
    .attr("dtype: type").stateful().shape_fn(_read_shape)

op_registry.register_op("AssignVariableOp").input("resource: resource").input("value: dtype") \
    .attr("dtype: type").attr("validate_shape: bool = false").stateful() \
    .shape_fn(common_shapes.no_outputs)

for _op_type in ("AssignAddVariableOp", "AssignSubVariableOp"):
    op_registry.register_op(_op_type).input("resource: resource").input("value: dtype") \
        .attr("dtype: type").stateful().shape_fn(common_shapes.no_outputs)

op_registry.register_op("VarIsInitializedOp").input("resource: resource") \
    .output("is_initialized: bool").stateful().shape_fn(common_shapes.scalar_shape)

op_registry.register_op("VariableShape").input("input: resource").output("output: out_type") \
    .attr("out_type: {int32, int64} = DT_INT32").stateful().shape_fn(_variable_shape_shape)

op_registry.register_op("DestroyResourceOp").input("resource: resource") \
    .attr("ignore_lookup_error: bool = true").stateful().shape_fn(common_shapes.no_outputs)

op_registry.register_op("ResourceGather").input("resource: resource") \
    .input("indices: Tindices").output("output: dtype").attr("batch_dims: int = 0") \
    .attr("validate_indices: bool = true").attr("dtype: type") \
    .attr("Tindices: {int32, int64}").stateful().shape_fn(_gather_shape)


def var_handle_op(dtype: Any, shape: Any, container: str = "", shared_name: str = "",
                  name: str | None = None) -> ops_lib.Tensor:
    return apply_op("VarHandleOp", name=name, dtype=dtype, shape=shape, container=container,
                    shared_name=shared_name).outputs[0]


def read_variable_op(resource: Any, dtype: Any, name: str | None = None) -> ops_lib.Tensor:
    return apply_op("ReadVariableOp", name=name, resource=resource, dtype=dtype).outputs[0]


def assign_variable_op(resource: Any, value: Any, validate_shape: bool = False,
                       name: str | None = None) -> ops_lib.Operation:
    return apply_op("AssignVariableOp", name=name, resource=resource, value=value,
                    validate_shape=validate_shape)


def assign_add_variable_op(resource: Any, value: Any,
                           name: str | None = None) -> ops_lib.Operation:
    return apply_op("AssignAddVariableOp", name=name, resource=resource, value=value)


def assign_sub_variable_op(resource: Any, value: Any,
                           name: str | None = None) -> ops_lib.Operation:
    return apply_op("AssignSubVariableOp", name=name, resource=resource, value=value)


def var_is_initialized_op(resource: Any, name: str | None = None) -> ops_lib.Tensor:
    return apply_op("VarIsInitializedOp", name=name, resource=resource).outputs[0]


def variable_shape(resource: Any, out_type: Any = dtypes_lib.int32,
                   name: str | None = None) -> ops_lib.Tensor:
    return apply_op("VariableShape", name=name, input=resource, out_type=out_type).outputs[0]


def destroy_resource_op(resource: Any, ignore_lookup_error: bool = True,
                        name: str | None = None) -> ops_lib.Operation:
    return apply_op("DestroyResourceOp", name=name, resource=resource,
                    ignore_lookup_error=ignore_lookup_error)


def resource_gather(resource: Any, indices: Any, dtype: Any, batch_dims: int = 0,
                    validate_indices: bool = True, name: str | None = None) -> ops_lib.Tensor:
    return apply_op("ResourceGather", name=name, resource=resource, indices=indices,
                    dtype=dtype, batch_dims=batch_dims,
                    validate_indices=validate_indices).outputs[0]


# -- the Python variable -------------------------------------------------------------------

_default_use_resource = False


def enable_resource_variables() -> None:
    """Makes ``tf.Variable`` and ``tf.get_variable`` create resource variables."""
    global _default_use_resource
    _default_use_resource = True


def disable_resource_variables() -> None:
    """Makes ``tf.Variable`` and ``tf.get_variable`` create ref variables (TF1's default)."""
    global _default_use_resource
    _default_use_resource = False


def resource_variables_enabled() -> bool:
    return _default_use_resource


def _use_resource(use_resource: bool | None) -> bool:
    return _default_use_resource if use_resource is None else bool(use_resource)


class ResourceVariable(variables.Variable):
    """A variable behind a resource handle (TF's ``ResourceVariable``): each read is a
    ReadVariableOp whose value is a snapshot, writes are AssignVariableOp ops."""

    def _init_from_args(self, graph: ops_lib.Graph, scope: str, initial_value: Any,
                        validate_shape: bool, caching_device: Any, dtype: Any,
                        shape: Any) -> None:
        """Builds the handle, initializer and first read inside the name ``scope``, with
        TF's node names."""
        handle_name = ops_lib.name_from_scope_name(scope)
        cls_attr = attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue(
            s=[f"loc:@{handle_name}".encode()]))
        with graph._attr_scope({"_class": cls_attr}):
            var_shape = self._initial_value_and_shape(graph, initial_value, validate_shape,
                                                      dtype, shape)
            self._dtype = self._initial_value.dtype.base_dtype
            self._shape = var_shape
            self._handle = var_handle_op(self._dtype, var_shape, shared_name=handle_name,
                                         name=scope)
        with graph.name_scope("IsInitialized"):
            self._is_initialized_op = var_is_initialized_op(self._handle)
        with graph.name_scope("Assign") as n, graph.colocate_with(None, True), \
                graph.device(self._handle.device):
            self._initializer_op = assign_variable_op(self._handle, self._initial_value,
                                                      name=n)
        with graph.name_scope("Read"), graph.device(self._handle.device):
            self._graph_element = read_variable_op(self._handle, self._dtype)
        if caching_device is not None:
            with graph.device(caching_device):
                self._cached_value = array_ops.identity(self._graph_element)
        else:
            self._cached_value = None

    def _init_from_proto(self, variable_def: Any, import_scope: str | None) -> None:
        graph = ops_lib.get_default_graph()

        def element(name: str) -> Any:
            return graph.as_graph_element(f"{import_scope}/{name}" if import_scope else name)

        self._handle = element(variable_def.variable_name)
        self._dtype = dtypes_lib.as_dtype(self._handle.op._attrs["dtype"].type)
        self._shape = shape_lib.TensorShape(self._handle.op._attrs["shape"].shape)
        self._initializer_op = element(variable_def.initializer_name)
        self._graph_element = element(variable_def.snapshot_name)
        self._is_initialized_op = element(
            self._handle.op.name + "/IsInitialized/VarIsInitializedOp:0")
        self._initial_value = (element(variable_def.initial_value_name)
                               if variable_def.initial_value_name else None)
        self._trainable = variable_def.trainable
        self._constraint = None
        self._caching_device = None
        self._cached_value = None
        self._save_slice_info = variables._slice_info_from_def(variable_def, import_scope)

    def to_proto(self, export_scope: str | None = None) -> Any:
        vdef = super().to_proto(export_scope)
        vdef.is_resource = True
        return vdef

    # -- identity ---------------------------------------------------------------------
    @property
    def handle(self) -> ops_lib.Tensor:
        return self._handle

    @property
    def name(self) -> str:
        return self._handle.name

    @property
    def op(self) -> ops_lib.Operation:
        return self._handle.op

    @property
    def graph(self) -> ops_lib.Graph:
        return self._handle.graph

    @property
    def device(self) -> str:
        return self._handle.device

    @property
    def dtype(self) -> dtypes_lib.DType:
        return self._dtype

    @property
    def shape(self) -> shape_lib.TensorShape:
        return self._shape

    def get_shape(self) -> shape_lib.TensorShape:
        return self._shape

    def set_shape(self, shape: Any) -> None:
        self._shape = self._shape.merge_with(shape_lib.as_shape(shape))

    @property
    def _variable(self) -> ops_lib.Tensor:  # what VariableDef.variable_name names
        return self._handle

    @property
    def _snapshot(self) -> ops_lib.Tensor:  # what VariableDef.snapshot_name names
        return self._graph_element

    # -- reading ----------------------------------------------------------------------
    def _read_variable_op(self) -> ops_lib.Tensor:
        return read_variable_op(self._handle, self._dtype)

    def value(self) -> ops_lib.Tensor:
        """A new ReadVariableOp (the cached value under a caching device)."""
        if self._cached_value is not None:
            return self._cached_value
        with ops_lib.colocate_with(None, ignore_existing=True):
            return self._read_variable_op()

    def read_value(self) -> ops_lib.Tensor:
        """``Read/ReadVariableOp`` and an Identity of it, as TF's."""
        with ops_lib.name_scope("Read"):
            value = self._read_variable_op()
        return array_ops.identity(value)

    def sparse_read(self, indices: Any, name: str | None = None) -> ops_lib.Tensor:
        """The rows ``indices`` of the variable (a ResourceGather)."""
        with ops_lib.name_scope("Gather" if name is None else name) as scope:
            return resource_gather(self._handle, indices, dtype=self._dtype, name=scope)

    def is_initialized(self, name: str | None = None) -> ops_lib.Tensor:
        return var_is_initialized_op(self._handle, name=name)

    def _ref(self) -> ops_lib.Tensor:
        return self._handle

    def _as_graph_element(self) -> ops_lib.Tensor:
        return self._graph_element

    def eval(self, session: Any = None) -> Any:
        return self._graph_element.eval(session=session)

    # -- writing ----------------------------------------------------------------------
    def _lazy_read(self, write: ops_lib.Operation) -> ops_lib.Tensor:
        """The value after ``write`` (TF returns an unread variable that reads so)."""
        with ops_lib.control_dependencies([write]):
            return self._read_variable_op()

    def _write(self, op: Any, value: Any, name: str | None, read_value: bool,
               **kwargs: Any) -> Any:
        value = tensor_conversion.convert_to_tensor(value, dtype=self._dtype)
        self._shape.assert_is_compatible_with(value.shape)
        write = op(self._handle, value, name=name, **kwargs)
        return self._lazy_read(write) if read_value else write

    def assign(self, value: Any, use_locking: bool = False, name: str | None = None,
               read_value: bool = True) -> Any:
        del use_locking
        return self._write(assign_variable_op, value, name, read_value, validate_shape=True)

    def assign_add(self, delta: Any, use_locking: bool = False, name: str | None = None,
                   read_value: bool = True) -> Any:
        del use_locking
        return self._write(assign_add_variable_op, delta, name, read_value)

    def assign_sub(self, delta: Any, use_locking: bool = False, name: str | None = None,
                   read_value: bool = True) -> Any:
        del use_locking
        return self._write(assign_sub_variable_op, delta, name, read_value)

    def initialized_value(self) -> ops_lib.Tensor:
        graph = self.graph
        saved = graph._get_control_flow_context()
        graph._set_control_flow_context(None)
        try:
            with graph.as_default(), ops_lib.control_dependencies(None):
                return control_flow_ops.cond(self.is_initialized(), self.read_value,
                                             lambda: self.initial_value)
        finally:
            graph._set_control_flow_context(saved)

    def __repr__(self) -> str:
        return f"<tf.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}>"


def is_resource_variable(var: Any) -> bool:
    return isinstance(var, ResourceVariable)


def _resource_conversion(v: ResourceVariable, dtype: Any = None, name: str | None = None,
                         as_ref: bool = False) -> ops_lib.Tensor:
    if dtype is not None and not dtypes_lib.as_dtype(dtype).is_compatible_with(v.dtype):
        raise ValueError(f"Incompatible type conversion requested to type '{dtype.name}' for "
                         f"variable of type '{v.dtype.name}'")
    return v.handle if as_ref else v.value()


tensor_conversion.register_tensor_conversion_function(ResourceVariable, _resource_conversion,
                                                      -1)
variables.register_resource_variable_type(ResourceVariable, _use_resource)
