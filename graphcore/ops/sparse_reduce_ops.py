"""Sparse reductions and elementwise extrema (TF's sparse_ops): SparseReduceMax,
SparseReduceMaxSparse, SparseReduceSumSparse, SparseSparseMaximum/Minimum and their TF1
Python API (``tf.sparse.reduce_max``, ``tf.sparse_reduce_sum_sparse``,
``tf.sparse.maximum``...). Reductions run over the present entries only (a dense output
position without any is 0, as TF's). Kernels:
:mod:`graphcore.kernels.sparse_reduce_kernels`."""

from __future__ import annotations

from typing import Any

from graphcore.framework import op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.gradient_registry import RegisterGradient
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.sparse_tensor import SparseTensor
from graphcore.ops.sparse_ops import _convert_to_sparse_tensor, _reduce_sum_shape, _reduction_axes
from graphcore.platform.deprecation import deprecated_argument_lookup

__all__ = ["sparse_maximum", "sparse_minimum", "sparse_reduce_max", "sparse_reduce_max_sparse",
           "sparse_reduce_sum_sparse"]

_REAL = "{float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64}"
_NUMBER = ("{float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, "
           "bfloat16, qint16, quint16, uint16, complex128, half, uint32, uint64}")
_SP_IN = ["input_indices: int64", "input_values: T", "input_shape: int64",
          "reduction_axes: int32"]


def _sparse_out_shape(op: ops_lib.Operation) -> list:
    return [shape_lib.unknown_shape()] * 3


def _min_max_shape(op: ops_lib.Operation) -> list:
    return [shape_lib.TensorShape([None, None]), shape_lib.TensorShape([None])]


def _register(op_type: str, inputs: list[str], outputs: list[str], attrs: list[str],
              shape_fn: Any) -> None:
    op_registry.register_op(op_type).specs(inputs, outputs, attrs).shape_fn(shape_fn)


_register("SparseReduceMax", _SP_IN, ["output: T"], ["keep_dims: bool = false", f"T: {_REAL}"],
          _reduce_sum_shape)
_register("SparseReduceMaxSparse", _SP_IN,
          ["output_indices: int64", "output_values: T", "output_shape: int64"],
          ["keep_dims: bool = false", f"T: {_REAL}"], _sparse_out_shape)
_register("SparseReduceSumSparse", _SP_IN,
          ["output_indices: int64", "output_values: T", "output_shape: int64"],
          ["keep_dims: bool = false", f"T: {_NUMBER}"], _sparse_out_shape)
# TF's Minimum takes every number type, its Maximum the real ones.
for _op_type, _types in (("SparseSparseMaximum", _REAL), ("SparseSparseMinimum", _NUMBER)):
    _register(_op_type, ["a_indices: int64", "a_values: T", "a_shape: int64",
                         "b_indices: int64", "b_values: T", "b_shape: int64"],
              ["output_indices: int64", "output_values: T"], [f"T: {_types}"], _min_max_shape)


@RegisterGradient("SparseSparseMaximum")
def _sparse_sparse_maximum_grad(unused_op: ops_lib.Operation, *unused_grads: Any) -> list:
    raise NotImplementedError("Gradient for SparseSparseMaximum is not implemented.")


@RegisterGradient("SparseSparseMinimum")
def _sparse_sparse_minimum_grad(unused_op: ops_lib.Operation, *unused_grads: Any) -> list:
    raise NotImplementedError("Gradient for SparseSparseMinimum is not implemented.")


def _reduce(op_type: str, sp_input: Any, axis: Any, keepdims: Any, reduction_axes: Any,
            keep_dims: Any) -> list:
    keepdims = deprecated_argument_lookup("keepdims", keepdims, "keep_dims", keep_dims)
    axis = deprecated_argument_lookup("axis", axis, "reduction_axes", reduction_axes)
    return list(apply_op(op_type, input_indices=sp_input.indices, input_values=sp_input.values,
                         input_shape=sp_input.dense_shape,
                         reduction_axes=_reduction_axes(sp_input, axis),
                         keep_dims=bool(keepdims)).outputs)


def sparse_reduce_max(sp_input: Any, axis: Any = None, keepdims: Any = None,
                      reduction_axes: Any = None, keep_dims: Any = None) -> ops_lib.Tensor:
    """The dense max of the present entries of ``sp_input`` over ``axis`` (all by
    default) (SparseReduceMax); positions with no entry are 0."""
    return _reduce("SparseReduceMax", sp_input, axis, keepdims, reduction_axes, keep_dims)[0]


def sparse_reduce_max_sparse(sp_input: Any, axis: Any = None, keepdims: Any = None,
                             reduction_axes: Any = None, keep_dims: Any = None) -> SparseTensor:
    """As :func:`sparse_reduce_max`, the result a SparseTensor (SparseReduceMaxSparse)."""
    return SparseTensor(*_reduce("SparseReduceMaxSparse", sp_input, axis, keepdims,
                                 reduction_axes, keep_dims))


def sparse_reduce_sum_sparse(sp_input: Any, axis: Any = None, keepdims: Any = None,
                             reduction_axes: Any = None, keep_dims: Any = None) -> SparseTensor:
    """The sum of ``sp_input`` over ``axis`` as a SparseTensor (SparseReduceSumSparse)."""
    return SparseTensor(*_reduce("SparseReduceSumSparse", sp_input, axis, keepdims,
                                 reduction_axes, keep_dims))


def _min_max(op_type: str, sp_a: Any, sp_b: Any, name: str | None) -> SparseTensor:
    with ops_lib.name_scope(name, op_type,
                            [sp_a.indices, sp_a.values, sp_b.indices, sp_b.values]) as name:
        out_indices, out_values = apply_op(
            op_type, name=name, a_indices=sp_a.indices, a_values=sp_a.values,
            a_shape=sp_a.dense_shape, b_indices=sp_b.indices, b_values=sp_b.values,
            b_shape=sp_b.dense_shape).outputs
    return SparseTensor(out_indices, out_values, sp_a.dense_shape)


def sparse_maximum(sp_a: Any, sp_b: Any, name: str | None = None) -> SparseTensor:
    """The elementwise max of two SparseTensors of one shape, absent entries counting as
    zeros (SparseSparseMaximum)."""
    return _min_max("SparseSparseMaximum", _convert_to_sparse_tensor(sp_a),
                    _convert_to_sparse_tensor(sp_b), name)


def sparse_minimum(sp_a: Any, sp_b: Any, name: str | None = None) -> SparseTensor:
    """The elementwise min of two SparseTensors (SparseSparseMinimum)."""
    return _min_max("SparseSparseMinimum", _convert_to_sparse_tensor(sp_a),
                    _convert_to_sparse_tensor(sp_b), name)
