"""Feature counting and crossing over SparseTensors and dense batches (TF's count_ops and
sparse cross): DenseCountSparseOutput/SparseCountSparseOutput under
``tf.sparse.bincount``, SparseCrossV2 under ``tf.sparse.cross`` and SparseCross (hashed,
TF's FingerprintCat64 of Fingerprint64s) under ``tf.sparse.cross_hashed``. Kernels:
:mod:`graphcore.kernels.sparse_count_kernels`."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.gradient_registry import NotDifferentiable
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.sparse_tensor import SparseTensor
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, check_ops, math_ops

__all__ = ["sparse_bincount", "sparse_cross", "sparse_cross_hashed"]

_DEFAULT_HASH_KEY = 0xDECAFCAFFE
_COUNT_ATTRS = ("minlength: int >= -1 = -1", "maxlength: int >= -1 = -1",
                "binary_output: bool", "output_type: {int32, int64, float, double}")
_COUNT_OUT = ("output_indices: int64", "output_values: output_type",
              "output_dense_shape: int64")


def _count_shape(op: ops_lib.Operation) -> list:
    """Indices [?, rank], values [?], dense shape [rank]: the rank of ``values`` (dense)
    or of ``dense_shape`` (sparse)."""
    rank = op._inputs[0].shape.ndims if op.type == "DenseCountSparseOutput" else \
        op._inputs[2].shape.with_rank(1).dims[0].value
    return [shape_lib.TensorShape([None, rank]), shape_lib.TensorShape([None]),
            shape_lib.TensorShape([rank])]


def _cross_shape(op: ops_lib.Operation) -> list:
    return [shape_lib.TensorShape([None, 2]), shape_lib.TensorShape([None]),
            shape_lib.TensorShape([2])]


def _register(op_type: str, inputs: tuple, outputs: tuple, attrs: tuple, shape_fn: Any) -> None:
    op_registry.register_op(op_type).specs(inputs, outputs, attrs).shape_fn(shape_fn)
    NotDifferentiable(op_type)


_register("DenseCountSparseOutput", ("values: T", "weights: output_type"), _COUNT_OUT,
          ("T: {int32, int64}",) + _COUNT_ATTRS, _count_shape)
_register("SparseCountSparseOutput",
          ("indices: int64", "values: T", "dense_shape: int64", "weights: output_type"),
          _COUNT_OUT, ("T: {int32, int64}",) + _COUNT_ATTRS, _count_shape)
_CROSS_IN = ("indices: N * int64", "values: sparse_types", "shapes: N * int64",
             "dense_inputs: dense_types")
_register("SparseCross", _CROSS_IN,
          ("output_indices: int64", "output_values: out_type", "output_shape: int64"),
          ("N: int >= 0", "hashed_output: bool", "num_buckets: int >= 0", "hash_key: int",
           "sparse_types: list({int64, string}) >= 0", "dense_types: list({int64, string}) >= 0",
           "out_type: {int64, string}", "internal_type: {int64, string}"), _cross_shape)
_register("SparseCrossV2", _CROSS_IN + ("sep: string",),
          ("output_indices: int64", "output_values: string", "output_shape: int64"),
          ("N: int >= 0", "sparse_types: list({int64, string}) >= 0",
           "dense_types: list({int64, string}) >= 0"), _cross_shape)


def _validate_sparse_weights(values: SparseTensor, weights: Any, dtype: Any = None) -> Any:
    if weights is None:
        return array_ops.constant([], dtype=dtype or values.values.dtype)
    if not isinstance(weights, SparseTensor):
        raise ValueError("Argument `weights` must be a SparseTensor if `values` is a "
                         f"SparseTensor. Received weights={weights} of type: "
                         f"{type(weights).__name__}")
    checks = []
    if weights.dense_shape is not values.dense_shape:
        checks.append(check_ops.assert_equal(
            weights.dense_shape, values.dense_shape,
            message="'weights' and 'values' must have the same dense shape."))
    if weights.indices is not values.indices:
        checks.append(check_ops.assert_equal(
            weights.indices, values.indices,
            message="'weights' and 'values' must have the same indices."))
    if checks:
        with ops_lib.control_dependencies(checks):
            return array_ops.identity(weights.values)
    return weights.values


def _validate_dense_weights(values: Any, weights: Any, dtype: Any = None) -> Any:
    if weights is None:
        return array_ops.constant([], dtype=dtype or values.dtype)
    if not isinstance(weights, ops_lib.Tensor):
        raise ValueError("Argument `weights` must be a tf.Tensor if `values` is a tf.Tensor. "
                         f"Received weights={weights} of type: {type(weights)}")
    return weights


def sparse_bincount(values: Any, weights: Any = None, axis: Any = 0, minlength: Any = None,
                    maxlength: Any = None, binary_output: bool = False,
                    name: str | None = None) -> SparseTensor:
    """The counts (or summed ``weights``) of each value as a SparseTensor: over all of
    ``values`` (axis 0) or per row of a rank-2 ``values`` (axis -1)."""
    with ops_lib.name_scope(name, "count", [values, weights]):
        if not isinstance(values, SparseTensor):
            values = convert_to_tensor(values, name="values")
        if weights is not None and not isinstance(weights, SparseTensor):
            weights = convert_to_tensor(weights, name="weights")
        if weights is not None and binary_output:
            raise ValueError("Arguments `binary_output` and `weights` are mutually "
                             "exclusive. Please specify only one.")
        if axis is None:
            axis = 0
        if axis not in [0, -1]:
            raise ValueError(f"Unsupported value for argument axis={axis}. Only 0 and -1 "
                             "are currently supported.")
        minlength_value = minlength if minlength is not None else -1
        maxlength_value = maxlength if maxlength is not None else -1
        if axis == 0:
            if isinstance(values, SparseTensor):
                if weights is not None:
                    weights = _validate_sparse_weights(values, weights)
                values = values.values
            else:
                if weights is not None:
                    weights = array_ops.reshape(weights, [-1])
                values = array_ops.reshape(values, [-1])
        if isinstance(values, SparseTensor):
            weights = _validate_sparse_weights(values, weights)
            outs = apply_op("SparseCountSparseOutput", indices=values.indices,
                            values=values.values, dense_shape=values.dense_shape,
                            weights=weights, minlength=minlength_value,
                            maxlength=maxlength_value, binary_output=binary_output).outputs
        else:
            weights = _validate_dense_weights(values, weights)
            outs = apply_op("DenseCountSparseOutput", values=values, weights=weights,
                            minlength=minlength_value, maxlength=maxlength_value,
                            binary_output=binary_output).outputs
        return SparseTensor(*outs)


def _cross_inputs(inputs: Any, message: str) -> tuple:
    if not isinstance(inputs, (tuple, list)):
        raise TypeError("Inputs must be a list")
    if not all(isinstance(i, (SparseTensor, ops_lib.Tensor)) for i in inputs):
        raise TypeError(message)
    sparse_inputs = [i for i in inputs if isinstance(i, SparseTensor)]
    dense_inputs = [i for i in inputs if not isinstance(i, SparseTensor)]
    indices = [sp.indices for sp in sparse_inputs]
    values = [sp.values for sp in sparse_inputs]
    shapes = [sp.dense_shape for sp in sparse_inputs]
    internal_type = dtypes_lib.string
    for i, v in enumerate(values):
        if v.dtype != dtypes_lib.string:
            values[i] = math_ops.cast(v, dtypes_lib.int64)
            internal_type = dtypes_lib.int64
    for i, d in enumerate(dense_inputs):
        if d.dtype != dtypes_lib.string:
            dense_inputs[i] = math_ops.cast(d, dtypes_lib.int64)
            internal_type = dtypes_lib.int64
    return indices, values, shapes, dense_inputs, internal_type


def sparse_cross(inputs: Any, name: str | None = None, separator: Any = None) -> SparseTensor:
    """The cross of each row's features over ``inputs`` (SparseTensors and rank-2
    Tensors) as strings joined by ``separator`` ("_X_") (SparseCrossV2)."""
    if separator is None:
        separator = "_X_"
    separator = convert_to_tensor(separator, dtypes_lib.string)
    indices, values, shapes, dense_inputs, _ = _cross_inputs(
        inputs, "All inputs must be Tensor or SparseTensor.")
    outs = apply_op("SparseCrossV2", name=name, indices=indices, values=values, shapes=shapes,
                    dense_inputs=dense_inputs, sep=separator).outputs
    return SparseTensor(*outs)


def sparse_cross_hashed(inputs: Any, num_buckets: int = 0, hash_key: Any = None,
                        name: str | None = None) -> SparseTensor:
    """The crossed features hashed (FingerprintCat64 from ``hash_key``) into
    ``num_buckets`` (SparseCross with hashed_output)."""
    indices, values, shapes, dense_inputs, internal_type = _cross_inputs(
        inputs, "All inputs must be SparseTensors")
    outs = apply_op("SparseCross", name=name, indices=indices, values=values, shapes=shapes,
                    dense_inputs=dense_inputs, hashed_output=True, num_buckets=num_buckets,
                    hash_key=hash_key or _DEFAULT_HASH_KEY, out_type=dtypes_lib.int64,
                    internal_type=internal_type).outputs
    return SparseTensor(*outs)
