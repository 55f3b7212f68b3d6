"""top_k (op TopKV2) and tf.sort / tf.argsort, which TF builds from top_k (TF's
``nn_ops.top_k`` and ``sort_ops.py``). The gradient is in :mod:`graphcore.ops.sort_grad`,
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

__all__ = ["argsort", "sort", "top_k"]

TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


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
