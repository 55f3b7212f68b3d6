"""top_k (op TopKV2), approx_max_k / approx_min_k (op ApproxTopK, computed exactly) and
tf.sort / tf.argsort, which TF builds from top_k (TF's ``nn_ops.py`` and ``sort_ops.py``). The gradient is in :mod:`graphcore.ops.sort_grad`,
the kernel in :mod:`graphcore.kernels.sort_kernels`."""

from __future__ import annotations

import collections
from typing import Any

import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import op_registry, tensor_util
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, math_ops

__all__ = ["approx_max_k", "approx_min_k", "approx_top_k", "argsort", "sort", "top_k"]

TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])
ApproxTopK = collections.namedtuple("ApproxTopK", ["values", "indices"])


def _top_k_shape(op: ops_lib.Operation) -> list:
    shape = op.inputs[0].shape
    if shape.ndims is not None and shape.ndims < 1:
        raise ValueError(f"Shape must be at least rank 1 but is rank {shape.ndims}")
    k_shape = op.inputs[1].shape
    if k_shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {k_shape.ndims}")
    k = tensor_util.constant_value(op.inputs[1])
    if k is not None and int(k) < 0:
        raise ValueError(f"Dimension size, given by scalar input 1, must be non-negative but "
                         f"is {int(k)}")
    if shape.ndims is None:
        return [shape_lib.unknown_shape(), shape_lib.unknown_shape()]
    dims = shape.as_list()
    last = dims[-1]
    if k is not None and last is not None and last < int(k):
        raise ValueError(f"input must have last dimension >= k = {int(k)} but is {last}")
    dims[-1] = None if k is None else int(k)
    return [shape_lib.TensorShape(dims), shape_lib.TensorShape(dims)]


op_registry.register_op("TopKV2").input("input: T").input("k: Tk").output("values: T") \
    .output("indices: index_type").attr("sorted: bool = true") \
    .attr("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, "
          "uint32, uint64}") \
    .attr("Tk: {int16, int32, int64} = DT_INT32") \
    .attr("index_type: {int16, int32, int64} = DT_INT32").shape_fn(_top_k_shape)


def _approx_top_k_shape(op: ops_lib.Operation) -> list:
    shape = op.inputs[0].shape
    if shape.ndims is None:
        return [shape_lib.unknown_shape(), shape_lib.unknown_shape()]
    dims = shape.as_list()
    if not dims:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    axis = op.get_attr("reduction_dimension")
    if not -len(dims) <= axis < len(dims):
        raise ValueError(f"Invalid reduction_dimension {axis} for input of rank "
                         f"{len(dims)}")
    k = op.get_attr("k")
    axis %= len(dims)
    if dims[axis] is not None and dims[axis] < k:
        raise ValueError(f"input must have last dimension >= k = {k} but was {dims[axis]}")
    dims[axis] = k
    return [shape_lib.TensorShape(dims), shape_lib.TensorShape(dims)]


op_registry.register_op("ApproxTopK").input("input: T").output("values: T") \
    .output("indices: int32").attr("k: int >= 0").attr("reduction_dimension: int = -1") \
    .attr("recall_target: float = 0.95").attr("is_max_k: bool = true") \
    .attr("reduction_input_size_override: int = -1") \
    .attr("aggregate_to_topk: bool = true").attr("T: {half, bfloat16, float}") \
    .shape_fn(_approx_top_k_shape)


def _approx_top_k(operand: Any, k: int, reduction_dimension: int, recall_target: float,
                  is_max_k: bool, reduction_input_size_override: int,
                  aggregate_to_topk: bool, name: str | None) -> ApproxTopK:
    op = apply_op("ApproxTopK", name=name, input=operand, k=k,
                  reduction_dimension=reduction_dimension, recall_target=recall_target,
                  is_max_k=is_max_k,
                  reduction_input_size_override=reduction_input_size_override,
                  aggregate_to_topk=aggregate_to_topk)
    return ApproxTopK(*op.outputs)


def approx_max_k(operand: Any, k: int, reduction_dimension: int = -1,
                 recall_target: float = 0.95, reduction_input_size_override: int = -1,
                 aggregate_to_topk: bool = True, name: str | None = None) -> ApproxTopK:
    """The ``k`` largest values along ``reduction_dimension`` and their indices (graphcore
    computes them exactly, which meets any recall target)."""
    return _approx_top_k(operand, k, reduction_dimension, recall_target, True,
                         reduction_input_size_override, aggregate_to_topk, name)


def approx_min_k(operand: Any, k: int, reduction_dimension: int = -1,
                 recall_target: float = 0.95, reduction_input_size_override: int = -1,
                 aggregate_to_topk: bool = True, name: str | None = None) -> ApproxTopK:
    """The ``k`` smallest values along ``reduction_dimension`` and their indices (exact)."""
    return _approx_top_k(operand, k, reduction_dimension, recall_target, False,
                         reduction_input_size_override, aggregate_to_topk, name)


def approx_top_k(input: Any, k: int, reduction_dimension: int = -1,  # noqa: A002
                 recall_target: float = 0.95, is_max_k: bool = True,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True,
                 name: str | None = None) -> ApproxTopK:
    """The ``k`` largest (``is_max_k``) or smallest values along ``reduction_dimension`` and
    their indices (op ApproxTopK; exact, as TF's CPU kernel)."""
    return _approx_top_k(input, k, reduction_dimension, recall_target, is_max_k,
                         reduction_input_size_override, aggregate_to_topk, name)


def top_k(input: Any, k: Any = 1, sorted: bool = True,  # noqa: A002
          index_type: Any = dtypes_lib.int32, name: str | None = None) -> TopKV2:
    """The ``k`` largest entries of the last dimension and their indices (ties: the lower
    index first)."""
    op = apply_op("TopKV2", name=name, input=input, k=k, sorted=sorted,
                  index_type=index_type)
    return TopKV2(*op.outputs)


def _descending_sort(values: ops_lib.Tensor, axis: int, return_argsort: bool = False) -> Any:
    k = array_ops.shape(values)[axis]
    rank = array_ops.rank(values)
    static_rank = values.shape.ndims
    if axis == -1 or axis + 1 == values.get_shape().ndims:
        top_k_input = values
        transposition = None
    else:
        if axis < 0:
            axis += static_rank or rank
        if static_rank is not None:
            transposition = array_ops.constant(
                np.r_[np.arange(axis), [static_rank - 1], np.arange(axis + 1, static_rank - 1),
                      [axis]], name="transposition")
        else:
            transposition = apply_op(
                "TensorScatterUpdate", tensor=math_ops.range(rank),
                indices=[[axis], [rank - 1]], updates=[rank - 1, axis]).outputs[0]
        top_k_input = array_ops.transpose(values, transposition)
    values, indices = top_k(top_k_input, k)
    return_value = indices if return_argsort else values
    if transposition is not None:
        return_value = array_ops.transpose(return_value, transposition)
    return return_value


def _ascending_sort(values: ops_lib.Tensor, axis: int, return_argsort: bool = False) -> Any:
    dtype = values.dtype
    if dtype.is_unsigned:
        offset = dtype.max
        result = _descending_sort(offset - values, axis, return_argsort)
        return result if return_argsort else offset - result
    if dtype.is_integer:
        result = _descending_sort(-values - 1, axis, return_argsort)
        return result if return_argsort else -result - 1
    result = _descending_sort(-values, axis, return_argsort)
    return result if return_argsort else -result


_SORT_IMPL = {"ASCENDING": _ascending_sort, "DESCENDING": _descending_sort}


def _sort_or_argsort(values: Any, axis: Any, direction: str, return_argsort: bool) -> Any:
    if direction not in _SORT_IMPL:
        valid_directions = ", ".join(sorted(_SORT_IMPL.keys()))
        raise ValueError(f"Argument `direction` should be one of {valid_directions}. "
                         f"Received: direction={direction}")
    axis = convert_to_tensor(axis, name="axis")
    axis_static = tensor_util.constant_value(axis)
    if axis.shape.ndims not in (None, 0) or axis_static is None:
        raise ValueError(f"Argument `axis` must be a constant scalar. Received: axis={axis}.")
    values = convert_to_tensor(values, name="values")
    return _SORT_IMPL[direction](values, int(axis_static), return_argsort)


def sort(values: Any, axis: Any = -1, direction: str = "ASCENDING",
         name: str | None = None) -> ops_lib.Tensor:
    """``values`` sorted along ``axis`` (built from top_k, as TF's)."""
    with ops_lib.name_scope(name, "sort"):
        return _sort_or_argsort(values, axis, direction, return_argsort=False)


def argsort(values: Any, axis: Any = -1, direction: str = "ASCENDING", stable: bool = False,
            name: str | None = None) -> ops_lib.Tensor:
    """The int32 indices that sort ``values`` along ``axis`` (ties: the lower index
    first)."""
    del stable
    with ops_lib.name_scope(name, "argsort"):
        return _sort_or_argsort(values, axis, direction, return_argsort=True)
