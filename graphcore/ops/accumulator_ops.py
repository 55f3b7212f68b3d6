"""Conditional accumulators (TF's data_flow_ops): ConditionalAccumulator (a resource
handle: ResourceConditionalAccumulator, ResourceAccumulatorApplyGradient...) and
SparseConditionalAccumulator (a ref handle: SparseConditionalAccumulator,
SparseAccumulatorApplyGradient...), which average (or sum) the gradients applied at the
current global step until ``take_grad`` collects ``num_required`` of them. The
accumulators live in the task's resource store
(:mod:`graphcore.kernels.accumulator_kernels`)."""

from __future__ import annotations

import collections
from typing import Any

from graphcore.framework import common_shapes, op_registry
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.indexed_slices import IndexedSlices
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import math_ops

__all__ = ["ConditionalAccumulator", "ConditionalAccumulatorBase",
           "SparseConditionalAccumulator"]

_MAKE_ATTRS = ("dtype: numbertype", "shape: shape", "container: string = ''",
               "shared_name: string = ''", "reduction_type: {'MEAN', 'SUM'} = 'MEAN'")


def _register(op_type: str, inputs: tuple, outputs: tuple, attrs: tuple, shape_fn: Any,
              stateful: bool = True) -> None:
    """Registers an accumulator op; TF marks the ref-handle sparse apply/take ops (as the
    dense ref ones) not stateful: their Ref(string) input orders them."""
    b = op_registry.register_op(op_type).specs(inputs, outputs, attrs)
    (b.stateful() if stateful else b).shape_fn(shape_fn)


# TF's shape function gives the resource handle the ref handle's [2] too.
_register("ResourceConditionalAccumulator", (), ("handle: resource",), _MAKE_ATTRS,
          lambda op: [shape_lib.TensorShape([2])])
_register("SparseConditionalAccumulator", (), ("handle: Ref(string)",), _MAKE_ATTRS,
          lambda op: [shape_lib.TensorShape([2])])
# The Ref(string) AccumulatorNumAccumulated/AccumulatorSetGlobalStep, shared with the
# dense ref accumulator, are registered with it (graphcore/train/sync_replicas_optimizer.py).
_register("ResourceAccumulatorNumAccumulated", ("handle: resource",),
          ("num_accumulated: int32",), (), common_shapes.scalar_shape)
_register("ResourceAccumulatorSetGlobalStep", ("handle: resource", "new_global_step: int64"),
          (), (), common_shapes.no_outputs)
_register("ResourceAccumulatorApplyGradient",
          ("handle: resource", "local_step: int64", "gradient: dtype"), (),
          ("dtype: numbertype",), common_shapes.no_outputs)
_register("ResourceAccumulatorTakeGradient", ("handle: resource", "num_required: int32"),
          ("average: dtype",), ("dtype: numbertype",),
          lambda op: [shape_lib.unknown_shape()])
_register("SparseAccumulatorApplyGradient",
          ("handle: Ref(string)", "local_step: int64", "gradient_indices: int64",
           "gradient_values: dtype", "gradient_shape: int64"), (),
          ("dtype: numbertype", "has_known_shape: bool"), common_shapes.no_outputs,
          stateful=False)
_register("SparseAccumulatorTakeGradient", ("handle: Ref(string)", "num_required: int32"),
          ("indices: int64", "values: dtype", "shape: int64"), ("dtype: numbertype",),
          lambda op: [shape_lib.TensorShape([None]), shape_lib.unknown_shape(),
                      shape_lib.TensorShape([None])], stateful=False)


_SparseTakeGradient = collections.namedtuple("SparseAccumulatorTakeGradient",
                                             ["indices", "values", "shape"])


class ConditionalAccumulatorBase:
    """An accumulator of gradients: ``num_accumulated`` and ``set_global_step``."""

    _NUM_ACCUMULATED = "ResourceAccumulatorNumAccumulated"
    _SET_GLOBAL_STEP = "ResourceAccumulatorSetGlobalStep"

    def __init__(self, dtype: Any, shape: Any, accumulator_ref: ops_lib.Tensor):
        self._dtype = dtype
        self._shape = shape_lib.TensorShape(shape) if shape is not None \
            else shape_lib.unknown_shape()
        self._accumulator_ref = accumulator_ref
        self._name = self._accumulator_ref.op.name.split("/")[-1]

    @property
    def accumulator_ref(self) -> ops_lib.Tensor:
        return self._accumulator_ref

    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self) -> Any:
        return self._dtype

    def num_accumulated(self, name: str | None = None) -> ops_lib.Tensor:
        """The number of gradients applied since the last take."""
        if name is None:
            name = f"{self._name}_NumAccumulated"
        return apply_op(self._NUM_ACCUMULATED, name=name,
                        handle=self._accumulator_ref).outputs[0]

    def set_global_step(self, new_global_step: Any, name: str | None = None) -> Any:
        """Sets the step below which applied gradients are stale (dropped)."""
        return apply_op(self._SET_GLOBAL_STEP, name=name, handle=self._accumulator_ref,
                        new_global_step=math_ops.cast(convert_to_tensor(new_global_step),
                                                      dtypes_lib.int64))


class ConditionalAccumulator(ConditionalAccumulatorBase):
    """Averages (or sums) dense gradients of ``shape``."""

    def __init__(self, dtype: Any, shape: Any = None, shared_name: str | None = None,
                 name: str = "conditional_accumulator", reduction_type: str = "MEAN"):
        accumulator_ref = apply_op(
            "ResourceConditionalAccumulator", name=name, dtype=dtype,
            shape=shape_lib.unknown_shape() if shape is None else shape,
            shared_name=shared_name or "", reduction_type=reduction_type).outputs[0]
        super().__init__(dtype, shape, accumulator_ref)

    def apply_grad(self, grad: Any, local_step: Any = 0, name: str | None = None) -> Any:
        """Adds ``grad`` unless ``local_step`` is below the global step."""
        grad = convert_to_tensor(grad, self._dtype)
        grad.get_shape().assert_is_compatible_with(self._shape)
        local_step = math_ops.cast(convert_to_tensor(local_step), dtypes_lib.int64)
        return apply_op("ResourceAccumulatorApplyGradient", name=name,
                        handle=self._accumulator_ref, local_step=local_step, gradient=grad)

    def take_grad(self, num_required: Any, name: str | None = None) -> ops_lib.Tensor:
        """The mean (or sum) of the gradients, once ``num_required`` are in; resets the
        accumulator and advances the global step."""
        out = apply_op("ResourceAccumulatorTakeGradient", name=name,
                       handle=self._accumulator_ref, num_required=num_required,
                       dtype=self._dtype).outputs[0]
        out.set_shape(self._shape)
        return out


class SparseConditionalAccumulator(ConditionalAccumulatorBase):
    """Averages (or sums) sparse gradients (indices, values [, shape]) row by row."""

    _NUM_ACCUMULATED = "AccumulatorNumAccumulated"
    _SET_GLOBAL_STEP = "AccumulatorSetGlobalStep"

    def __init__(self, dtype: Any, shape: Any = None, shared_name: str | None = None,
                 name: str = "sparse_conditional_accumulator", reduction_type: str = "MEAN"):
        accumulator_ref = apply_op(
            "SparseConditionalAccumulator", name=name, dtype=dtype,
            shape=shape_lib.unknown_shape() if shape is None else shape,
            shared_name=shared_name or "", reduction_type=reduction_type).outputs[0]
        super().__init__(dtype, shape, accumulator_ref)

    def apply_indexed_slices_grad(self, grad: IndexedSlices, local_step: Any = 0,
                                  name: str | None = None) -> Any:
        return self.apply_grad(grad_indices=grad.indices, grad_values=grad.values,
                               grad_shape=grad.dense_shape, local_step=local_step, name=name)

    def apply_grad(self, grad_indices: Any, grad_values: Any, grad_shape: Any = None,
                   local_step: Any = 0, name: str | None = None) -> Any:
        """Adds the rows ``grad_values`` at ``grad_indices`` unless stale."""
        local_step = math_ops.cast(convert_to_tensor(local_step), dtypes_lib.int64)
        return apply_op(
            "SparseAccumulatorApplyGradient", name=name, handle=self._accumulator_ref,
            local_step=local_step,
            gradient_indices=math_ops.cast(grad_indices, dtypes_lib.int64),
            gradient_values=grad_values,
            gradient_shape=math_ops.cast([] if grad_shape is None else grad_shape,
                                         dtypes_lib.int64),
            has_known_shape=grad_shape is not None)

    def take_grad(self, num_required: Any, name: str | None = None) -> tuple:
        """(indices, values, shape) of the averaged (or summed) rows."""
        return _SparseTakeGradient(*apply_op(
            "SparseAccumulatorTakeGradient", name=name, handle=self._accumulator_ref,
            num_required=num_required, dtype=self._dtype).outputs)

    def take_indexed_slices_grad(self, num_required: Any,
                                 name: str | None = None) -> IndexedSlices:
        indices, values, shape = self.take_grad(num_required, name=name)
        return IndexedSlices(indices=indices, values=values, dense_shape=shape)
