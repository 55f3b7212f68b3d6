"""Comparisons along the last dimension (TF's set_ops and EditDistance): the set
operations DenseToDenseSetOperation, DenseToSparseSetOperation,
SparseToSparseSetOperation and SetSize under ``tf.sets`` (results sorted per group, as
TF), and EditDistance under ``tf.edit_distance`` (Levenshtein distance between the
sequences of two SparseTensors). Kernels: :mod:`graphcore.kernels.sets_kernels`."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import op_registry, tensor_util
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.gradient_registry import NotDifferentiable
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.sparse_tensor import (
    SparseTensor,
    SparseTensorValue,
    convert_to_tensor_or_sparse_tensor,
)

__all__ = ["edit_distance", "set_difference", "set_intersection", "set_size", "set_union"]

_VALID_DTYPES = frozenset([dtypes_lib.int8, dtypes_lib.int16, dtypes_lib.int32,
                           dtypes_lib.int64, dtypes_lib.uint8, dtypes_lib.uint16,
                           dtypes_lib.string])
_SET_T = "T: {int8, int16, int32, int64, uint8, uint16, string}"
_SET_OUT = ("result_indices: int64", "result_values: T", "result_shape: int64")
_SET_ATTRS = ("set_operation: string", "validate_indices: bool = true", _SET_T)


def _rank_of_shape_input(t: ops_lib.Tensor) -> int | None:
    return t.shape.with_rank(1).dims[0].value


def _set_operation_shape(op: ops_lib.Operation) -> list:
    if op.type == "DenseToDenseSetOperation":
        ranks = [op._inputs[0].shape.ndims, op._inputs[1].shape.ndims]
    elif op.type == "DenseToSparseSetOperation":
        ranks = [op._inputs[0].shape.ndims, _rank_of_shape_input(op._inputs[3])]
    else:
        ranks = [_rank_of_shape_input(op._inputs[2]), _rank_of_shape_input(op._inputs[5])]
    for r in ranks:
        if r is not None and r < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {r} for "
                             f"'{op.name}' (op: '{op.type}').")
    rank = next((r for r in ranks if r is not None), None)
    return [shape_lib.TensorShape([None, rank]), shape_lib.TensorShape([None]),
            shape_lib.TensorShape([rank])]


def _edit_distance_shape(op: ops_lib.Operation) -> list:
    hyp = tensor_util.constant_value(op._inputs[2])
    truth = tensor_util.constant_value(op._inputs[5])
    if hyp is not None and truth is not None:
        if len(hyp) != len(truth):
            raise ValueError(f"Inconsistent rank in hypothesis_shape vs. truth_shape: "
                             f"{len(hyp)} vs. {len(truth)}")
        return [shape_lib.TensorShape([max(int(a), int(b)) for a, b in
                                       zip(hyp[:-1], truth[:-1])])]
    rank = _rank_of_shape_input(op._inputs[2]) or _rank_of_shape_input(op._inputs[5])
    return [shape_lib.unknown_shape(rank=rank - 1) if rank is not None
            else shape_lib.unknown_shape()]


def _register(op_type: str, inputs: tuple, outputs: tuple, attrs: tuple, shape_fn: Any) -> None:
    op_registry.register_op(op_type).specs(inputs, outputs, attrs).shape_fn(shape_fn)
    NotDifferentiable(op_type)


_register("DenseToDenseSetOperation", ("set1: T", "set2: T"), _SET_OUT, _SET_ATTRS,
          _set_operation_shape)
_register("DenseToSparseSetOperation",
          ("set1: T", "set2_indices: int64", "set2_values: T", "set2_shape: int64"),
          _SET_OUT, _SET_ATTRS, _set_operation_shape)
_register("SparseToSparseSetOperation",
          ("set1_indices: int64", "set1_values: T", "set1_shape: int64",
           "set2_indices: int64", "set2_values: T", "set2_shape: int64"),
          _SET_OUT, _SET_ATTRS, _set_operation_shape)
_register("SetSize", ("set_indices: int64", "set_values: T", "set_shape: int64"),
          ("size: int32",), ("validate_indices: bool = true", _SET_T),
          lambda op: [shape_lib.unknown_shape()])
_register("EditDistance",
          ("hypothesis_indices: int64", "hypothesis_values: T", "hypothesis_shape: int64",
           "truth_indices: int64", "truth_values: T", "truth_shape: int64"),
          ("output: float",), ("normalize: bool = true", "T: type"), _edit_distance_shape)


def set_size(a: Any, validate_indices: bool = True) -> ops_lib.Tensor:
    """The number of unique elements of each set (last dimension) of SparseTensor ``a``."""
    a = convert_to_tensor_or_sparse_tensor(a, name="a")
    if not isinstance(a, SparseTensor):
        raise TypeError(f"Expected `SparseTensor`, got {a}.")
    if a.values.dtype.base_dtype not in _VALID_DTYPES:
        raise TypeError(f"Invalid dtype `{a.values.dtype}` not in supported dtypes: "
                        f"`{_VALID_DTYPES}`.")
    return apply_op("SetSize", set_indices=a.indices, set_values=a.values,
                    set_shape=a.dense_shape, validate_indices=validate_indices).outputs[0]


def _convert_to_tensors_or_sparse_tensors(a: Any, b: Any) -> tuple:
    a = convert_to_tensor_or_sparse_tensor(a, name="a")
    if a.dtype.base_dtype not in _VALID_DTYPES:
        raise TypeError(f"'a' has invalid dtype `{a.dtype}` not in supported dtypes: "
                        f"`{_VALID_DTYPES}`.")
    b = convert_to_tensor_or_sparse_tensor(b, name="b")
    if b.dtype.base_dtype != a.dtype.base_dtype:
        raise TypeError(f"Types don't match, {a.dtype} vs {b.dtype}.")
    if isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        return b, a, True
    return a, b, False


def _set_operation(a: Any, b: Any, set_operation: str, validate_indices: bool) -> SparseTensor:
    if isinstance(a, SparseTensor):
        if not isinstance(b, SparseTensor):
            raise ValueError("Sparse,Dense is not supported, but Dense,Sparse is. Please flip "
                             "the order of your inputs.")
        outs = apply_op("SparseToSparseSetOperation", set1_indices=a.indices,
                        set1_values=a.values, set1_shape=a.dense_shape, set2_indices=b.indices,
                        set2_values=b.values, set2_shape=b.dense_shape,
                        set_operation=set_operation, validate_indices=validate_indices).outputs
    elif isinstance(b, SparseTensor):
        outs = apply_op("DenseToSparseSetOperation", set1=a, set2_indices=b.indices,
                        set2_values=b.values, set2_shape=b.dense_shape,
                        set_operation=set_operation, validate_indices=validate_indices).outputs
    else:
        outs = apply_op("DenseToDenseSetOperation", set1=a, set2=b,
                        set_operation=set_operation, validate_indices=validate_indices).outputs
    return SparseTensor(*outs)


def set_intersection(a: Any, b: Any, validate_indices: bool = True) -> SparseTensor:
    """The elements of each set (last dimension) of ``a`` also in ``b``'s, sorted."""
    a, b, _ = _convert_to_tensors_or_sparse_tensors(a, b)
    return _set_operation(a, b, "intersection", validate_indices)


def set_difference(a: Any, b: Any, aminusb: bool = True,
                   validate_indices: bool = True) -> SparseTensor:
    """``a - b`` (or ``b - a``) of each set, sorted."""
    a, b, flipped = _convert_to_tensors_or_sparse_tensors(a, b)
    if flipped:
        aminusb = not aminusb
    return _set_operation(a, b, "a-b" if aminusb else "b-a", validate_indices)


def set_union(a: Any, b: Any, validate_indices: bool = True) -> SparseTensor:
    """The union of each pair of sets, sorted."""
    a, b, _ = _convert_to_tensors_or_sparse_tensors(a, b)
    return _set_operation(a, b, "union", validate_indices)


def edit_distance(hypothesis: Any, truth: Any, normalize: bool = True,
                  name: str = "edit_distance") -> ops_lib.Tensor:
    """The Levenshtein distance between the sequences (last dimension) of two
    SparseTensors, divided by the truth's length when ``normalize`` (EditDistance)."""
    if not isinstance(hypothesis, (SparseTensor, SparseTensorValue)):
        raise TypeError("Hypothesis must be a SparseTensor.")
    if not isinstance(truth, (SparseTensor, SparseTensorValue)):
        raise TypeError("Truth must be a SparseTensor.")
    return apply_op("EditDistance", name=name, hypothesis_indices=hypothesis.indices,
                    hypothesis_values=hypothesis.values,
                    hypothesis_shape=hypothesis.dense_shape, truth_indices=truth.indices,
                    truth_values=truth.values, truth_shape=truth.dense_shape,
                    normalize=normalize).outputs[0]
