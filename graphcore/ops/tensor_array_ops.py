"""TensorArrays (TF1's graph-mode ``tf.TensorArray`` over TensorArrayV3 and its read,
write, gather, scatter, concat, split, size, close and grad ops).

A TensorArray is a per-step resource holding a list of tensors; its ``handle`` names it
and its float ``flow`` tensor threads the order of writes and reads through the graph
(and through ``tf.while_loop``, which carries the flow as a loop variable)."""

from __future__ import annotations

import contextlib
from typing import Any

from graphcore.framework import common_shapes, op_registry, tensor_util
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.framework.type_spec import TypeSpec
from graphcore.ops import array_ops, math_ops

__all__ = ["TensorArray", "TensorArraySpec"]


def _scalar_shape() -> shape_lib.TensorShape:
    return shape_lib.TensorShape([])


def _handle_and_flow(op: Any) -> list:
    # TF gives the handle shape [2] (the V1 string-pair handle) even for the resource.
    return [shape_lib.TensorShape([2]), _scalar_shape()]


def _flow_out(op: Any) -> list:
    return [_scalar_shape()]


def _shape_attr(op: Any, name: str) -> shape_lib.TensorShape:
    return shape_lib.as_shape(op.get_attr(name))


def _handle_element_shape(op: Any) -> shape_lib.TensorShape | None:
    """The element shape TF's shape functions know from the handle: TensorArrayV3 gives
    its handle one when ``element_shape`` is fully defined or identical_element_shapes
    is set, and Enter/Identity/Switch/Merge/TensorArrayGradV3 pass it on."""
    source = op._inputs[0].op
    while source.type in ("Enter", "RefEnter", "Identity", "Switch", "Merge",
                          "TensorArrayGradV3"):
        source = source._inputs[0].op
    if source.type != "TensorArrayV3":
        return None
    shape = _shape_attr(source, "element_shape")
    if shape.is_fully_defined() or source.get_attr("identical_element_shapes"):
        return shape
    return None


def _read_shape(op: Any) -> list:
    return [_handle_element_shape(op) or shape_lib.unknown_shape()]


def _gather_shape(op: Any) -> list:
    indices = op._inputs[1].shape.with_rank(1)
    element = _handle_element_shape(op)
    if element is None:
        element = _shape_attr(op, "element_shape")
    return [indices.concatenate(element)]


def _concat_shape(op: Any) -> list:
    # TF's shape function leaves the value unknown; the Python wrapper sets it.
    return [shape_lib.unknown_shape(), shape_lib.TensorShape([None])]


def _reg(name: str) -> op_registry.OpBuilder:
    return op_registry.register_op(name)


_reg("TensorArrayV3").input("size: int32").output("handle: resource").output("flow: float") \
    .attr("dtype: type") \
    .attr("element_shape: shape", default=shape_lib.unknown_shape()) \
    .attr("dynamic_size: bool = false").attr("clear_after_read: bool = true") \
    .attr("identical_element_shapes: bool = false").attr("tensor_array_name: string = ''") \
    .stateful().shape_fn(_handle_and_flow)

_reg("TensorArrayGradV3").input("handle: resource").input("flow_in: float") \
    .output("grad_handle: resource").output("flow_out: float").attr("source: string") \
    .stateful().shape_fn(_handle_and_flow)

_reg("TensorArrayGradWithShape").input("handle: resource").input("flow_in: float") \
    .input("shape_to_prepend: int32").output("grad_handle: resource") \
    .output("flow_out: float").attr("source: string").stateful().shape_fn(_handle_and_flow)

_reg("TensorArrayWriteV3").input("handle: resource").input("index: int32") \
    .input("value: T").input("flow_in: float").output("flow_out: float").attr("T: type") \
    .stateful().shape_fn(_flow_out)

_reg("TensorArrayReadV3").input("handle: resource").input("index: int32") \
    .input("flow_in: float").output("value: dtype").attr("dtype: type").stateful() \
    .shape_fn(_read_shape)

_reg("TensorArrayGatherV3").input("handle: resource").input("indices: int32") \
    .input("flow_in: float").output("value: dtype").attr("dtype: type") \
    .attr("element_shape: shape", default=shape_lib.unknown_shape()).stateful() \
    .shape_fn(_gather_shape)

_reg("TensorArrayScatterV3").input("handle: resource").input("indices: int32") \
    .input("value: T").input("flow_in: float").output("flow_out: float").attr("T: type") \
    .stateful().shape_fn(_flow_out)

_reg("TensorArrayConcatV3").input("handle: resource").input("flow_in: float") \
    .output("value: dtype").output("lengths: int64").attr("dtype: type") \
    .attr("element_shape_except0: shape", default=shape_lib.unknown_shape()).stateful() \
    .shape_fn(_concat_shape)

_reg("TensorArraySplitV3").input("handle: resource").input("value: T") \
    .input("lengths: int64").input("flow_in: float").output("flow_out: float") \
    .attr("T: type").stateful().shape_fn(_flow_out)

_reg("TensorArraySizeV3").input("handle: resource").input("flow_in: float") \
    .output("size: int32").stateful().shape_fn(_flow_out)

_reg("TensorArrayCloseV3").input("handle: resource").stateful() \
    .shape_fn(common_shapes.no_outputs)


def _constant_value(value: Any) -> Any:
    """TF's tensor_util.constant_value, which passes a non-tensor through."""
    if isinstance(value, ops_lib.Tensor):
        return tensor_util.constant_value(value)
    return value


class TensorArray:
    """A list of tensors of one dtype written and read by index in graph mode (TF1's
    ``tf.TensorArray``); each write returns a new TensorArray with a new ``flow``."""

    def __init__(self, dtype: Any, size: Any = None, dynamic_size: bool | None = None,
                 clear_after_read: bool | None = None, tensor_array_name: str | None = None,
                 handle: Any = None, flow: Any = None, infer_shape: bool = True,
                 element_shape: Any = None, colocate_with_first_write_call: bool = True,
                 name: str | None = None) -> None:
        if handle is not None and tensor_array_name:
            raise ValueError("Cannot provide both `handle` and `tensor_array_name` arguments "
                             "at the same time.")
        if handle is not None and not isinstance(handle, ops_lib.Tensor):
            raise TypeError(f"Expected `handle` to be a Tensor, but got `{handle}` of type "
                            f"`{type(handle)}` instead.")
        if handle is None and size is None:
            raise ValueError("Argument `size` must be provided if handle is not provided.")
        for arg, value in (("size", size), ("element_shape", element_shape),
                           ("dynamic_size", dynamic_size),
                           ("clear_after_read", clear_after_read)):
            if handle is not None and value is not None:
                article = "a " if arg == "size" else ""
                raise ValueError(f"Cannot provide both {article}`handle` and `{arg}` "
                                 "arguments at the same time.")
        if clear_after_read is None:
            clear_after_read = True
        self._dynamic_size = dynamic_size or False
        self._dtype = dtypes_lib.as_dtype(dtype).base_dtype
        self._colocate_with_first_write_call = colocate_with_first_write_call
        # The first tensor written: the TensorArray op is placed with it.
        self._colocate_with: list | None = [] if colocate_with_first_write_call else None
        # A one-element list shared by every TensorArray of the same handle, so a shape
        # learnt from one write holds for reads through later flows.
        self._element_shape = [shape_lib.as_shape(element_shape)]
        self._infer_shape = infer_shape
        self._size = size
        values = [v for v in (handle, size, flow) if isinstance(v, ops_lib.Tensor)]
        with ops_lib.name_scope(name, "TensorArray", values or None) as scope:
            if handle is not None:
                if flow is None:
                    raise ValueError("flow must not be None if handle is not None.")
                self._handle, self._flow = handle, flow
                return

            def create() -> tuple:
                op = apply_op("TensorArrayV3", name=scope, size=size, dtype=self._dtype,
                              element_shape=shape_lib.as_shape(element_shape),
                              dynamic_size=self._dynamic_size,
                              clear_after_read=clear_after_read,
                              identical_element_shapes=infer_shape,
                              tensor_array_name=tensor_array_name or "")
                return op.outputs[0], op.outputs[1]

            if colocate_with_first_write_call:
                with ops_lib.device(None), ops_lib.colocate_with(None, ignore_existing=True):
                    self._handle, self._flow = create()
            else:
                self._handle, self._flow = create()

    flow = property(lambda self: self._flow, doc="The flow tensor ordering this array's ops.")
    dtype = property(lambda self: self._dtype, doc="The dtype of the elements.")
    handle = property(lambda self: self._handle, doc="The TensorArray resource handle.")
    @property
    def _type_spec(self) -> TensorArraySpec:
        return TensorArraySpec(self.element_shape, self.dtype, self._dynamic_size,
                               self._infer_shape)

    dynamic_size = property(lambda self: self._dynamic_size,
                            doc="Whether writes may grow the array past its size.")

    @property
    def element_shape(self) -> shape_lib.TensorShape:
        """The static shape every element has (as far as known)."""
        return self._element_shape[0]

    def _check_element_shape(self, shape: shape_lib.TensorShape) -> None:
        if not shape.is_compatible_with(self.element_shape):
            raise ValueError(f"Inconsistent shapes: saw {shape} but expected "
                             f"{self.element_shape} ")
        if self._infer_shape:
            self._element_shape[0] = self.element_shape.merge_with(shape)

    @contextlib.contextmanager
    def _maybe_colocate_with(self, value: Any):
        if not self._colocate_with_first_write_call:
            yield
            return
        if not self._colocate_with:
            self._colocate_with.append(value)
        with ops_lib.colocate_with(self._colocate_with[0]):
            yield

    def _with_flow(self, flow: Any) -> TensorArray:
        """TF's build_ta_with_new_flow: the same array (handle, shape, colocation) at a
        later point of its history."""
        new = TensorArray(dtype=self._dtype, handle=self._handle, flow=flow,
                          infer_shape=self._infer_shape,
                          colocate_with_first_write_call=self._colocate_with_first_write_call)
        new._dynamic_size = self._dynamic_size
        new._size = self._size
        new._colocate_with = self._colocate_with
        new._element_shape = self._element_shape
        return new

    def identity(self) -> TensorArray:
        """The same array with its flow through an Identity (picks up control deps)."""
        return self._with_flow(array_ops.identity(self._flow))

    def grad(self, source: str, flow: Any = None, name: str | None = None) -> TensorArray:
        """The gradient TensorArray of this one for gradient call ``source``."""
        if flow is None:
            flow = self.flow
        with ops_lib.name_scope(name, "TensorArrayGrad", [self._handle]):
            with ops_lib.colocate_with(self._handle):
                g_handle = apply_op("TensorArrayGradV3", name=name, handle=self._handle,
                                    source=source, flow_in=flow).outputs[0]
                with ops_lib.control_dependencies([g_handle]):
                    flow = array_ops.identity(flow, name="gradient_flow")
                g = TensorArray(dtype=self._dtype, handle=g_handle, flow=flow,
                                infer_shape=self._infer_shape,
                                colocate_with_first_write_call=False)
                g._element_shape = self._element_shape
                return g

    def read(self, index: Any, name: str | None = None) -> ops_lib.Tensor:
        """The element at ``index``."""
        value = apply_op("TensorArrayReadV3", name=name, handle=self._handle, index=index,
                         flow_in=self._flow, dtype=self._dtype).outputs[0]
        value.set_shape(self._element_shape[0].dims)
        return value

    def write(self, index: Any, value: Any, name: str | None = None) -> TensorArray:
        """Writes ``value`` at ``index``; returns the array after the write."""
        with ops_lib.name_scope(name, "TensorArrayWrite", [self._handle, index, value]):
            value = convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
            self._check_element_shape(value.shape)
            with self._maybe_colocate_with(value):
                flow_out = apply_op("TensorArrayWriteV3", name=name, handle=self._handle,
                                    index=index, value=value,
                                    flow_in=self._flow).outputs[0]
            return self._with_flow(flow_out)

    def stack(self, name: str | None = None) -> ops_lib.Tensor:
        """All elements stacked along a new first dimension."""
        with ops_lib.colocate_with(self._handle):
            with ops_lib.name_scope(name, "TensorArrayStack", [self._handle]):
                value = self.gather(math_ops.range(0, self.size()), name=name)
                if self.element_shape and not self._dynamic_size and self._size is not None:
                    value.set_shape([_constant_value(self._size)] + self.element_shape.dims)
                return value

    def gather(self, indices: Any, name: str | None = None) -> ops_lib.Tensor:
        """The elements at ``indices`` stacked."""
        value = apply_op("TensorArrayGatherV3", name=name, handle=self._handle,
                         indices=indices, flow_in=self._flow, dtype=self._dtype,
                         element_shape=self._element_shape[0]).outputs[0]
        if self.element_shape:
            value.set_shape([None] + self.element_shape.dims)
        return value

    def concat(self, name: str | None = None) -> ops_lib.Tensor:
        """All elements concatenated along their first dimension."""
        except0 = (self.element_shape[1:] if self.element_shape.ndims is not None
                   else shape_lib.unknown_shape())
        value = apply_op("TensorArrayConcatV3", name=name, handle=self._handle,
                         flow_in=self._flow, dtype=self._dtype,
                         element_shape_except0=except0).outputs[0]
        if self.element_shape:
            dim0 = None
            if self._infer_shape:
                size = _constant_value(self.size())
                first = self.element_shape.dims[0]
                if size is not None and first is not None and first.value is not None:
                    dim0 = int(size) * first.value
            value.set_shape([dim0] + self.element_shape.dims[1:])
        return value

    def unstack(self, value: Any, name: str | None = None) -> TensorArray:
        """Writes ``value[i]`` at index ``i`` for each row of ``value``."""
        with ops_lib.name_scope(name, "TensorArrayUnstack", [self._handle, value]):
            num_elements = array_ops.shape(value)[0]
            return self.scatter(indices=math_ops.range(0, num_elements), value=value,
                                name=name)

    def scatter(self, indices: Any, value: Any, name: str | None = None) -> TensorArray:
        """Writes ``value[i]`` at index ``indices[i]``."""
        with ops_lib.name_scope(name, "TensorArrayScatter", [self._handle, value, indices]):
            value = convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
            self._check_element_shape(value.shape[1:])
            with self._maybe_colocate_with(value):
                flow_out = apply_op("TensorArrayScatterV3", name=name, handle=self._handle,
                                    indices=indices, value=value,
                                    flow_in=self._flow).outputs[0]
            return self._with_flow(flow_out)

    def split(self, value: Any, lengths: Any, name: str | None = None) -> TensorArray:
        """Splits ``value`` along its first dimension into pieces of ``lengths``."""
        with ops_lib.name_scope(name, "TensorArraySplit", [self._handle, value, lengths]):
            value = convert_to_tensor(value, dtype=self._dtype, name="value")
            with self._maybe_colocate_with(value):
                lengths_64 = math_ops.cast(lengths, dtypes_lib.int64)
                clengths = tensor_util.constant_value(lengths_64)
                if value.shape.dims is not None and clengths is not None:
                    if clengths.shape and clengths.max() == clengths.min():
                        self._check_element_shape(shape_lib.TensorShape(
                            [int(clengths[0])]).concatenate(value.shape[1:]))
                flow_out = apply_op("TensorArraySplitV3", name=name, handle=self._handle,
                                    value=value, lengths=lengths_64,
                                    flow_in=self._flow).outputs[0]
            return self._with_flow(flow_out)

    def size(self, name: str | None = None) -> ops_lib.Tensor:
        """The number of elements (a constant unless the array is dynamically sized)."""
        if not self._dynamic_size and self._size is not None:
            return convert_to_tensor(self._size, dtype=dtypes_lib.int32)
        return apply_op("TensorArraySizeV3", name=name, handle=self._handle,
                        flow_in=self.flow).outputs[0]

    def close(self, name: str | None = None) -> ops_lib.Operation:
        """Closes the array, releasing its elements."""
        return apply_op("TensorArrayCloseV3", name=name, handle=self._handle)


def is_tensor_array(value: Any) -> bool:
    return isinstance(value, TensorArray)


def to_flow(value: Any) -> Any:
    """A TensorArray's flow, any other value unchanged (what while_loop carries)."""
    return value.flow if isinstance(value, TensorArray) else value


def from_flows(structure_flat: list, flows: list) -> list:
    """TensorArrays rebuilt around ``flows`` where ``structure_flat`` held TensorArrays."""
    return [ta._with_flow(f) if isinstance(ta, TensorArray) else f
            for ta, f in zip(structure_flat, flows)]


class TensorArraySpec(TypeSpec):
    """A TensorArray's element shape and dtype, and whether it grows and infers shapes."""

    def __init__(self, element_shape: Any = None, dtype: Any = dtypes_lib.float32,
                 dynamic_size: bool = False, infer_shape: bool = True):
        self._element_shape = shape_lib.as_shape(element_shape)
        self._dtype = dtypes_lib.as_dtype(dtype)
        self._dynamic_size = dynamic_size
        self._infer_shape = infer_shape

    @property
    def value_type(self) -> type:
        return TensorArray

    def _serialize(self) -> tuple:
        return self._element_shape, self._dtype, self._dynamic_size, self._infer_shape
