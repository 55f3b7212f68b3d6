"""Sparse-tensor ops (TF's sparse_ops): the OpDefs and shape functions of
SparseTensorDenseMatMul, SparseToDense, SparseAdd (+SparseAddGrad), SparseTensorDenseAdd,
SparseReshape, SparseReorder, SparseConcat, SparseReduceSum, SparseSoftmax,
SparseFillEmptyRows (+Grad), SparseSlice (+Grad), SparseSplit, SparseDenseCwiseAdd/Mul/Div
(a SparseTensor's ``*``, ``/`` with a dense tensor), and the TF1 Python API over SparseTensors (``tf.sparse_tensor_dense_matmul``,
``tf.sparse_to_dense``, ``tf.sparse_add``, ``tf.sparse_placeholder``...) built as TF
builds it. Gradients in :mod:`graphcore.ops.sparse_grad`, kernels in
:mod:`graphcore.kernels.sparse_kernels`."""

from __future__ import annotations

from typing import Any

import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import op_registry, tensor_util
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.indexed_slices import IndexedSlices, constant_value_as_shape
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.sparse_tensor import SparseTensor, SparseTensorValue
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, manip_ops, math_ops, scatter_ops
from graphcore.platform.deprecation import deprecated_argument_lookup

__all__ = [
    "sparse_add", "sparse_concat", "sparse_fill_empty_rows", "sparse_mask",
    "sparse_merge", "sparse_placeholder", "sparse_reduce_sum", "sparse_reorder",
    "sparse_reshape", "sparse_retain", "sparse_slice", "sparse_softmax", "sparse_split",
    "sparse_tensor_dense_matmul", "sparse_tensor_to_dense", "sparse_to_dense",
    "sparse_transpose",
]

_NUMBER = "numbertype"
_REAL = "{float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64}"


# -- shape functions -----------------------------------------------------------------------

def _rank_of(shape_input: ops_lib.Tensor) -> int | None:
    """The rank a 1-D dense-shape input describes (its length), when known."""
    return shape_input.shape.with_rank(1).dims[0].value


def _sparse_parts(rank: int | None) -> list:
    """[indices [?, rank], values [?], shape [rank]] of an output SparseTensor."""
    return [shape_lib.TensorShape([None, rank]), shape_lib.TensorShape([None]),
            shape_lib.TensorShape([rank])]


def _matmul_shape(op: ops_lib.Operation) -> list:
    b = op._inputs[3].shape.with_rank(2)
    adj_a, adj_b = op._attrs["adjoint_a"].b, op._attrs["adjoint_b"].b
    a_shape = tensor_util.constant_value(op._inputs[2])
    rows = None if a_shape is None else int(a_shape[1 if adj_a else 0])
    return [shape_lib.TensorShape([rows, b.dims[0 if adj_b else 1].value])]


def _sparse_to_dense_shape(op: ops_lib.Operation) -> list:
    value = tensor_util.constant_value(op._inputs[1])
    if value is not None:
        return [shape_lib.TensorShape(np.reshape(value, -1).tolist())]
    return [constant_value_as_shape(op._inputs[1]) if op._inputs[1].shape.ndims == 1
            else shape_lib.unknown_shape()]


def _sparse_add_shape(op: ops_lib.Operation) -> list:
    return _sparse_parts(_rank_of(op._inputs[2]))


def _sparse_add_grad_shape(op: ops_lib.Operation) -> list:
    a = op._inputs[1].shape.with_rank(2).dims[0].value
    b = op._inputs[2].shape.with_rank(2).dims[0].value
    return [shape_lib.TensorShape([a]), shape_lib.TensorShape([b])]


def _reshape_shape(op: ops_lib.Operation) -> list:
    n = op._inputs[0].shape.with_rank(2).dims[0].value
    rank = _rank_of(op._inputs[2])
    return [shape_lib.TensorShape([n, rank]), shape_lib.TensorShape([rank])]


def _reorder_shape(op: ops_lib.Operation) -> list:
    return [op._inputs[0].shape.with_rank(2), op._inputs[1].shape.with_rank(1)]


def _concat_shape(op: ops_lib.Operation) -> list:
    n = op._attrs["N"].i
    rank = None
    for s in op._inputs[2 * n:]:
        rank = rank if rank is not None else _rank_of(s)
    return _sparse_parts(rank)


def _reduce_sum_shape(op: ops_lib.Operation) -> list:
    shape = tensor_util.constant_value(op._inputs[2])
    axes = tensor_util.constant_value(op._inputs[3])
    if shape is None or axes is None:
        return [shape_lib.unknown_shape()]
    rank = len(shape)
    axes = {int(a) % rank for a in np.reshape(axes, -1)} if rank else set()
    keep = op._attrs["keep_dims"].b
    return [shape_lib.TensorShape([1 if i in axes else int(d) for i, d in enumerate(shape)
                                   if keep or i not in axes])]


def _values_shape(op: ops_lib.Operation) -> list:
    return [op._inputs[1].shape.with_rank(1)]


def _fill_empty_rows_shape(op: ops_lib.Operation) -> list:
    rank = _rank_of(op._inputs[2])
    dense_shape = tensor_util.constant_value(op._inputs[2])
    rows = None if dense_shape is None or not len(dense_shape) else int(dense_shape[0])
    return [shape_lib.TensorShape([None, rank]), shape_lib.TensorShape([None]),
            shape_lib.TensorShape([rows]), op._inputs[0].shape.with_rank(2)[:1]]


def _fill_empty_rows_grad_shape(op: ops_lib.Operation) -> list:
    return [op._inputs[0].shape.with_rank(1), shape_lib.TensorShape([])]


def _slice_shape(op: ops_lib.Operation) -> list:
    return _sparse_parts(_rank_of(op._inputs[2]))


def _slice_grad_shape(op: ops_lib.Operation) -> list:
    return [op._inputs[1].shape.with_rank(2)[:1]]


def _split_shape(op: ops_lib.Operation) -> list:
    n = op._attrs["num_split"].i
    parts = _sparse_parts(_rank_of(op._inputs[3]))
    return [parts[0]] * n + [parts[1]] * n + [parts[2]] * n


# -- OpDefs (TF's) -------------------------------------------------------------------------

def _register(op_type: str, inputs: list[str], outputs: list[str], attrs: list[str],
              shape_fn: Any) -> None:
    op_registry.register_op(op_type).specs(inputs, outputs, attrs).shape_fn(shape_fn)


_SP = ["indices: int64", "values: T", "shape: int64"]
_register("SparseTensorDenseMatMul",
          ["a_indices: Tindices", "a_values: T", "a_shape: int64", "b: T"], ["product: T"],
          ["T: type", "Tindices: {int32, int64} = DT_INT64", "adjoint_a: bool = false",
           "adjoint_b: bool = false"], _matmul_shape)
_register("SparseToDense",
          ["sparse_indices: Tindices", "output_shape: Tindices", "sparse_values: T",
           "default_value: T"], ["dense: T"],
          ["validate_indices: bool = true", "T: type", "Tindices: {int32, int64}"],
          _sparse_to_dense_shape)
_register("SparseAdd",
          ["a_indices: int64", "a_values: T", "a_shape: int64", "b_indices: int64",
           "b_values: T", "b_shape: int64", "thresh: Treal"],
          ["sum_indices: int64", "sum_values: T", "sum_shape: int64"],
          [f"T: {_NUMBER}", f"Treal: {_REAL}"], _sparse_add_shape)
_register("SparseAddGrad",
          ["backprop_val_grad: T", "a_indices: int64", "b_indices: int64",
           "sum_indices: int64"], ["a_val_grad: T", "b_val_grad: T"], [f"T: {_NUMBER}"],
          _sparse_add_grad_shape)
_register("SparseTensorDenseAdd",
          ["a_indices: Tindices", "a_values: T", "a_shape: Tindices", "b: T"], ["output: T"],
          [f"T: {_NUMBER}", "Tindices: {int32, int64}"], lambda op: [op._inputs[3].shape])
_register("SparseReshape", ["input_indices: int64", "input_shape: int64", "new_shape: int64"],
          ["output_indices: int64", "output_shape: int64"], [], _reshape_shape)
_register("SparseReorder", ["input_indices: int64", "input_values: T", "input_shape: int64"],
          ["output_indices: int64", "output_values: T"], ["T: type"], _reorder_shape)
_register("SparseConcat", ["indices: N * int64", "values: N * T", "shapes: N * int64"],
          ["output_indices: int64", "output_values: T", "output_shape: int64"],
          ["concat_dim: int", "N: int >= 2", "T: type"], _concat_shape)
_register("SparseReduceSum",
          ["input_indices: int64", "input_values: T", "input_shape: int64",
           "reduction_axes: int32"], ["output: T"], ["keep_dims: bool = false",
                                                     f"T: {_NUMBER}"], _reduce_sum_shape)
_register("SparseSoftmax", ["sp_indices: int64", "sp_values: T", "sp_shape: int64"],
          ["output: T"], ["T: {half, float, double}"], _values_shape)
_register("SparseFillEmptyRows",
          ["indices: int64", "values: T", "dense_shape: int64", "default_value: T"],
          ["output_indices: int64", "output_values: T", "empty_row_indicator: bool",
           "reverse_index_map: int64"], ["T: type"], _fill_empty_rows_shape)
_register("SparseFillEmptyRowsGrad", ["reverse_index_map: int64", "grad_values: T"],
          ["d_values: T", "d_default_value: T"], ["T: type"], _fill_empty_rows_grad_shape)
_register("SparseSlice", _SP + ["start: int64", "size: int64"],
          ["output_indices: int64", "output_values: T", "output_shape: int64"], ["T: type"],
          _slice_shape)
_register("SparseSliceGrad",
          ["backprop_val_grad: T", "input_indices: int64", "input_start: int64",
           "output_indices: int64"], ["val_grad: T"], [f"T: {_NUMBER}"], _slice_grad_shape)
_register("SparseSplit", ["split_dim: int64"] + _SP,
          ["output_indices: num_split * int64", "output_values: num_split * T",
           "output_shape: num_split * int64"], ["num_split: int >= 1", "T: type"],
          _split_shape)
for _cwise in ("SparseDenseCwiseAdd", "SparseDenseCwiseMul", "SparseDenseCwiseDiv"):
    _register(_cwise, ["sp_indices: int64", "sp_values: T", "sp_shape: int64", "dense: T"],
              ["output: T"], [f"T: {_NUMBER}"], _values_shape)


# -- Python API ----------------------------------------------------------------------------

def _sparse_dense_operator(op_type: str, op_name: str, true_div: bool = False) -> Any:
    """A SparseTensor's binary operator with a dense ``y`` (broadcast to it): a SparseTensor
    of the same indices (TF's SparseTensor ``__mul__``, ``__div__``, ``__truediv__``)."""

    def operator(sp_x: SparseTensor, y: Any) -> SparseTensor:
        with ops_lib.name_scope(None, op_name, [sp_x, y]) as name:
            y = convert_to_tensor(y, dtype=sp_x.dtype.base_dtype, name="y")
            values = sp_x.values
            if true_div and values.dtype.is_integer:
                # TF's truediv table: small integers in float32, the others in float64.
                target = (dtypes_lib.float32 if values.dtype.size <= 2
                          else dtypes_lib.float64)
                values, y = math_ops.cast(values, target), math_ops.cast(y, target)
            out = apply_op(op_type, name=name, sp_indices=sp_x.indices, sp_values=values,
                           sp_shape=sp_x.dense_shape, dense=y).outputs[0]
            return SparseTensor(sp_x.indices, out, sp_x.dense_shape)

    return operator


SparseTensor.__mul__ = _sparse_dense_operator("SparseDenseCwiseMul", "mul")
SparseTensor.__div__ = _sparse_dense_operator("SparseDenseCwiseDiv", "div")
SparseTensor.__truediv__ = _sparse_dense_operator("SparseDenseCwiseDiv", "truediv",
                                                  true_div=True)


def _convert_to_sparse_tensor(sp_input: Any) -> SparseTensor:
    if isinstance(sp_input, SparseTensorValue):
        return SparseTensor.from_value(sp_input)
    if not isinstance(sp_input, SparseTensor):
        raise TypeError("Input must be a SparseTensor.")
    return sp_input


def _outputs(op_type: str, name: str | None = None, **kwargs: Any) -> list:
    return list(apply_op(op_type, name=name, **kwargs).outputs)


def sparse_tensor_dense_matmul(sp_a: Any, b: Any, adjoint_a: bool = False,
                               adjoint_b: bool = False,
                               name: str | None = None) -> ops_lib.Tensor:
    """SparseTensor (rank 2) times dense matrix (SparseTensorDenseMatMul); a sparse ``b``
    is handled by transposing, as TF."""
    if isinstance(b, (SparseTensor, SparseTensorValue)):
        if adjoint_a != adjoint_b:
            return array_ops.transpose(sparse_tensor_dense_matmul(b, sp_a, adjoint_a,
                                                                  adjoint_b))
        return array_ops.transpose(sparse_tensor_dense_matmul(
            b, sp_a, adjoint_a=not adjoint_a, adjoint_b=not adjoint_b))
    sp_a = _convert_to_sparse_tensor(sp_a)
    with ops_lib.name_scope(name, "SparseTensorDenseMatMul",
                            [sp_a.indices, sp_a.values, b]) as name:
        b = convert_to_tensor(b, name="b")
        return apply_op("SparseTensorDenseMatMul", a_indices=sp_a.indices,
                        a_values=sp_a.values, a_shape=sp_a.dense_shape, b=b,
                        adjoint_a=adjoint_a, adjoint_b=adjoint_b).outputs[0]


def sparse_to_dense(sparse_indices: Any, output_shape: Any, sparse_values: Any,
                    default_value: Any = 0, validate_indices: bool = True,
                    name: str | None = None) -> ops_lib.Tensor:
    """A dense tensor of ``output_shape`` with ``sparse_values`` at ``sparse_indices``,
    ``default_value`` elsewhere (SparseToDense)."""
    return apply_op("SparseToDense", name=name, sparse_indices=sparse_indices,
                    output_shape=output_shape, sparse_values=sparse_values,
                    default_value=default_value, validate_indices=validate_indices).outputs[0]


def sparse_tensor_to_dense(sp_input: Any, default_value: Any = None,
                           validate_indices: bool = True,
                           name: str | None = None) -> ops_lib.Tensor:
    """``sp_input`` as a dense tensor (SparseToDense), ``default_value`` (0) elsewhere."""
    sp_input = _convert_to_sparse_tensor(sp_input)
    if default_value is None:
        default_value = array_ops.zeros([], dtype=sp_input.dtype)
    return sparse_to_dense(sp_input.indices, sp_input.dense_shape, sp_input.values,
                           default_value=default_value, validate_indices=validate_indices,
                           name=name)


def sparse_add(a: Any, b: Any, threshold: Any = None, thresh: Any = None) -> Any:
    """Sparse + sparse (SparseAdd; sums below ``threshold`` in magnitude dropped) or
    sparse + dense (SparseTensorDenseAdd, a dense result)."""
    threshold = deprecated_argument_lookup("threshold", threshold, "thresh", thresh)
    if threshold is None:
        threshold = 0
    sparse_classes = (SparseTensor, SparseTensorValue)
    if not any(isinstance(inp, sparse_classes) for inp in (a, b)):
        raise TypeError("At least one input should be SparseTensor; do you mean to use "
                        "tf.add()?")
    if all(isinstance(inp, sparse_classes) for inp in (a, b)):
        a = _convert_to_sparse_tensor(a)
        b = _convert_to_sparse_tensor(b)
        threshold = convert_to_tensor(threshold, dtype=a.values.dtype.real_dtype.base_dtype,
                                      name="threshold")
        output_ind, output_val, output_shape = _outputs(
            "SparseAdd", a_indices=a.indices, a_values=a.values, a_shape=a.dense_shape,
            b_indices=b.indices, b_values=b.values, b_shape=b.dense_shape, thresh=threshold)
        a.get_shape().assert_is_compatible_with(b.get_shape())
        static_shape = a.get_shape().merge_with(b.get_shape())
        if static_shape.is_fully_defined():
            output_shape = static_shape.as_list()
        return SparseTensor(output_ind, output_val, output_shape)
    if isinstance(b, sparse_classes):
        a, b = b, a
    a = _convert_to_sparse_tensor(a)
    return apply_op("SparseTensorDenseAdd", a_indices=a.indices, a_values=a.values,
                    a_shape=a.dense_shape, b=b).outputs[0]


def sparse_reorder(sp_input: Any, name: str | None = None) -> SparseTensor:
    """``sp_input`` with its entries in row-major order (SparseReorder)."""
    sp_input = _convert_to_sparse_tensor(sp_input)
    reordered_ind, reordered_val = _outputs(
        "SparseReorder", name=name, input_indices=sp_input.indices,
        input_values=sp_input.values, input_shape=sp_input.dense_shape)
    if sp_input.get_shape().is_fully_defined():
        return SparseTensor(reordered_ind, reordered_val, sp_input.get_shape().as_list())
    sp_output = SparseTensor(reordered_ind, reordered_val,
                             array_ops.identity(sp_input.dense_shape))
    sp_output.set_shape(sp_input.shape)
    return sp_output


def sparse_reshape(sp_input: Any, shape: Any, name: str | None = None) -> SparseTensor:
    """``sp_input`` reshaped to ``shape`` (one -1 allowed) (SparseReshape)."""
    sp_input = _convert_to_sparse_tensor(sp_input)
    shape = math_ops.cast(shape, dtype=dtypes_lib.int64)
    with ops_lib.name_scope(name, "SparseReshape", [sp_input]) as name:
        reshaped_ind, reshaped_shape = _outputs(
            "SparseReshape", name=name, input_indices=sp_input.indices,
            input_shape=sp_input.dense_shape, new_shape=shape)
        const = constant_value_as_shape(shape)
        dims = const.as_list() if const.ndims is not None else None
        if dims is not None and sp_input.shape.is_fully_defined():
            by_user = tensor_util.constant_value(shape)
            if by_user is not None and sum(d == -1 for d in by_user) > 1:
                raise ValueError(f"At most one dimension can be inferred (-1). Found: {by_user}")
            original = list(dims)
            in_size = int(np.prod(sp_input.shape.as_list()))
            num_implied = sum(d is None for d in dims)
            if num_implied == 1 and 0 not in dims:
                implied = original.index(None)
                rest = original[:implied] + original[implied + 1:]
                dims[implied] = int(in_size // np.prod(rest))
            if num_implied == 0 or (num_implied == 1 and 0 not in dims):
                reshaped_size = int(np.prod(dims))
                if reshaped_size != in_size:
                    raise ValueError(f"Cannot reshape a tensor with {in_size} elements to "
                                     f"shape {original} ({reshaped_size} elements).")
                reshaped_shape = array_ops.constant(dims, dtype=dtypes_lib.int64)
        return SparseTensor(reshaped_ind, array_ops.identity(sp_input.values), reshaped_shape)


def sparse_retain(sp_input: Any, to_retain: Any) -> SparseTensor:
    """The entries of ``sp_input`` where the bool vector ``to_retain`` is true."""
    sp_input = _convert_to_sparse_tensor(sp_input)
    to_retain = convert_to_tensor(to_retain)
    retain_shape = to_retain.get_shape()
    retain_shape.assert_has_rank(1)
    if sp_input.values.get_shape().dims is not None:
        sp_input.values.get_shape().dims[0].assert_is_compatible_with(retain_shape.dims[0])
    where_true = array_ops.reshape(math_ops.where_v2(to_retain), [-1])
    new_indices = array_ops.gather(sp_input.indices, where_true)
    new_values = array_ops.gather(sp_input.values, where_true)
    return SparseTensor(new_indices, new_values, array_ops.identity(sp_input.dense_shape))


def sparse_concat(axis: Any, sp_inputs: Any, name: str | None = None,
                  expand_nonconcat_dim: bool = False, concat_dim: Any = None,
                  expand_nonconcat_dims: Any = None) -> SparseTensor:
    """The SparseTensors ``sp_inputs`` joined along ``axis`` (SparseConcat); with
    ``expand_nonconcat_dim`` the other dimensions grow to the largest input's."""
    if expand_nonconcat_dims is not None:
        expand_nonconcat_dim = expand_nonconcat_dims
    axis = deprecated_argument_lookup("axis", axis, "concat_dim", concat_dim)
    if not isinstance(sp_inputs, (list, tuple)):
        raise TypeError("Inputs must be a list or tuple.")
    sp_inputs = [_convert_to_sparse_tensor(s) for s in sp_inputs]
    if len(sp_inputs) == 1:
        return sp_inputs[0]
    inds = [s.indices for s in sp_inputs]
    vals = [s.values for s in sp_inputs]
    shapes = [s.dense_shape for s in sp_inputs]
    if expand_nonconcat_dim:
        max_shape = math_ops.reduce_max(
            array_ops.concat([array_ops.reshape(s, [1, -1]) for s in shapes], 0), 0)
        shapes = [array_ops.concat([max_shape[:axis],
                                    s[-1:] if axis == -1 else s[axis:axis + 1],
                                    [] if axis == -1 else max_shape[axis + 1:]], 0)
                  for s in shapes]
    output_ind, output_val, output_shape = _outputs(
        "SparseConcat", name=name, indices=inds, values=vals, shapes=shapes, concat_dim=axis)
    input_shapes = [s.shape for s in sp_inputs]
    static: Any
    if all(s.ndims is not None for s in input_shapes):
        if expand_nonconcat_dim:
            static = [max((shape_lib.dimension_value(s[d]) or 0) for s in input_shapes)
                      if all(shape_lib.dimension_value(s[d]) is not None for s in input_shapes)
                      else None for d in range(input_shapes[0].ndims)]
        else:
            static = input_shapes[0].as_list()
        sizes = [shape_lib.dimension_value(s[axis]) for s in input_shapes]
        static[axis] = None if any(d is None for d in sizes) else sum(sizes)
    else:
        static = shape_lib.unknown_shape()
    if all(s.is_fully_defined() for s in input_shapes):
        return SparseTensor(output_ind, output_val,
                            convert_to_tensor(static, dtype=dtypes_lib.int64))
    output = SparseTensor(output_ind, output_val, output_shape)
    output.set_shape(shape_lib.TensorShape(static) if isinstance(static, list) else static)
    return output


def _reduction_axes(sp_input: SparseTensor, axis: Any) -> Any:
    """All axes (a constant when the rank is known) or ``axis``, as TF's _ReductionDims."""
    if axis is not None:
        return axis
    rank = sp_input.shape.ndims
    if rank is not None:
        return array_ops.constant(np.arange(rank, dtype=np.int32))
    # TF's rank of a SparseTensor: the Size of its dense shape, named Rank.
    return math_ops.range(0, array_ops.size(sp_input.dense_shape, name="Rank"))


def sparse_reduce_sum(sp_input: Any, axis: Any = None, keepdims: Any = None,
                      reduction_axes: Any = None, keep_dims: Any = None) -> ops_lib.Tensor:
    """The dense sum of ``sp_input`` over ``axis`` (all by default) (SparseReduceSum)."""
    keepdims = deprecated_argument_lookup("keepdims", keepdims, "keep_dims", keep_dims)
    axis = deprecated_argument_lookup("axis", axis, "reduction_axes", reduction_axes)
    sp_input = _convert_to_sparse_tensor(sp_input)
    return apply_op("SparseReduceSum", input_indices=sp_input.indices,
                    input_values=sp_input.values, input_shape=sp_input.dense_shape,
                    reduction_axes=_reduction_axes(sp_input, axis),
                    keep_dims=bool(keepdims)).outputs[0]


def sparse_softmax(sp_input: Any, name: str | None = None) -> SparseTensor:
    """Softmax over the last axis of the present entries of each row (SparseSoftmax)."""
    with ops_lib.name_scope(name, "SparseSoftmax", [sp_input.indices, sp_input.values]):
        out_vals = apply_op("SparseSoftmax", sp_indices=sp_input.indices,
                            sp_values=sp_input.values, sp_shape=sp_input.dense_shape).outputs[0]
        return SparseTensor(sp_input.indices, out_vals, sp_input.dense_shape)


def sparse_fill_empty_rows(sp_input: Any, default_value: Any,
                           name: str | None = None) -> tuple:
    """(``sp_input`` with ``default_value`` at [row, 0, ...] of each empty row, the bool
    vector of which rows were empty) (SparseFillEmptyRows)."""
    sp_input = _convert_to_sparse_tensor(sp_input)
    with ops_lib.name_scope(name, "SparseFillEmptyRows", [sp_input]):
        default_value = convert_to_tensor(default_value, dtype=sp_input.values.dtype)
        output_indices, output_values, empty_row_indicator, _ = _outputs(
            "SparseFillEmptyRows", indices=sp_input.indices, values=sp_input.values,
            dense_shape=sp_input.dense_shape, default_value=default_value)
        return (SparseTensor(indices=output_indices, values=output_values,
                             dense_shape=sp_input.dense_shape), empty_row_indicator)


def sparse_slice(sp_input: Any, start: Any, size: Any, name: str | None = None) -> SparseTensor:
    """The entries of ``sp_input`` in the box [start, start + size) (SparseSlice)."""
    sp_input = _convert_to_sparse_tensor(sp_input)
    start = convert_to_tensor(start, dtypes_lib.int64)
    size = convert_to_tensor(size, dtypes_lib.int64)
    with ops_lib.name_scope(name, "SparseSlice", [sp_input]) as name:
        output_indices, output_values, output_shape = _outputs(
            "SparseSlice", name=name, indices=sp_input.indices, values=sp_input.values,
            shape=sp_input.dense_shape, start=start, size=size)
        return SparseTensor(output_indices, output_values, output_shape)


def sparse_split(keyword_required: Any = None, sp_input: Any = None, num_split: Any = None,
                 axis: Any = None, name: str | None = None, split_dim: Any = None) -> list:
    """``sp_input`` split into ``num_split`` SparseTensors along ``axis`` (SparseSplit;
    the first ``shape[axis] % num_split`` pieces one larger). Keywords only, as TF."""
    if keyword_required is not None:
        raise ValueError("Keyword arguments are required for this function.")
    if sp_input is None:
        raise ValueError("sp_input is required")
    if num_split is None:
        raise ValueError("num_split is required")
    if axis is None:
        axis = split_dim
    if axis is None:
        raise ValueError("axis is required")
    sp_input = _convert_to_sparse_tensor(sp_input)
    outs = _outputs("SparseSplit", name=name, split_dim=axis, indices=sp_input.indices,
                    values=sp_input.values, shape=sp_input.dense_shape, num_split=num_split)
    return [SparseTensor(outs[i], outs[num_split + i], outs[2 * num_split + i])
            for i in range(num_split)]


def sparse_transpose(sp_input: Any, perm: Any = None, name: str | None = None) -> SparseTensor:
    """``sp_input`` with its dimensions permuted by ``perm`` (reversed by default)."""
    with ops_lib.name_scope(name, "SparseTranspose", [sp_input]):
        if perm is None:
            if sp_input.shape.ndims is not None:
                rank = sp_input.shape.ndims
                perm = rank - 1 - np.arange(0, rank, 1)
            else:
                rank = array_ops.size(sp_input.dense_shape)
                perm = rank - 1 - math_ops.range(0, rank, 1)
        indices = sp_input.indices
        transposed_indices = array_ops.transpose(
            array_ops.gather(array_ops.transpose(indices), perm))
        perm_ = tensor_util.constant_value(convert_to_tensor(perm))
        if perm_ is not None and sp_input.get_shape().is_fully_defined():
            old_shape_ = sp_input.get_shape().as_list()
            transposed_dense_shape: Any = list(old_shape_)
            for i, p in enumerate(perm_):
                transposed_dense_shape[i] = old_shape_[p]
        else:
            transposed_dense_shape = array_ops.gather(sp_input.dense_shape, perm)
        transposed_st = SparseTensor(transposed_indices, sp_input.values,
                                     transposed_dense_shape)
        return sparse_reorder(transposed_st)


def sparse_mask(a: IndexedSlices, mask_indices: Any, name: str | None = None) -> IndexedSlices:
    """The slices of ``a`` whose indices are not in ``mask_indices`` (ListDiff)."""
    with ops_lib.name_scope(name, "sparse_mask", [a, mask_indices]) as name:
        out_indices, to_gather = manip_ops.setdiff1d(a.indices, mask_indices)
        out_values = array_ops.gather(a.values, to_gather, name=name)
        return IndexedSlices(out_values, out_indices, a.dense_shape)


def sparse_merge(sp_ids: Any, sp_values: Any, vocab_size: Any, name: str | None = None,
                 already_sorted: bool = False) -> SparseTensor:
    """TF1's ``tf.sparse_merge``: ids and values as one SparseTensor whose last
    dimension is indexed by the ids (``vocab_size`` wide)."""
    if isinstance(sp_ids, (SparseTensor, SparseTensorValue)):
        sp_ids = [sp_ids]
        if not isinstance(vocab_size, (ops_lib.Tensor, int, np.integer)):
            raise TypeError(f"vocab_size has to be a Tensor or Python int. Found "
                            f"{type(vocab_size)}")
        vocab_size = [vocab_size]
    if len(sp_ids) != len(vocab_size):
        raise ValueError("sp_ids and vocab_size have to have equal lengths.")
    with ops_lib.name_scope(name, "SparseMerge", [sp_ids, sp_values]):
        sp_ids = [_convert_to_sparse_tensor(s) for s in sp_ids]
        sp_values = _convert_to_sparse_tensor(sp_values)
        ids = []
        for sp_ids_dim in sp_ids:
            ids_dim = sp_ids_dim.values
            if sp_ids_dim.dtype != dtypes_lib.int64:
                ids_dim = math_ops.cast(ids_dim, dtypes_lib.int64)
            ids += [array_ops.expand_dims(ids_dim, axis=1)]
        vocab_size = [math_ops.cast(x, dtypes_lib.int64) for x in vocab_size]
        indices_columns_to_preserve = sp_ids[0].indices[:, :-1]
        new_indices = array_ops.concat([indices_columns_to_preserve] + ids, 1)
        new_shape = array_ops.concat([sp_ids[0].dense_shape[:-1], vocab_size], 0)
        result = SparseTensor(new_indices, sp_values.values, new_shape)
        if already_sorted:
            return result
        sorted_result = sparse_reorder(result)
        return SparseTensor(sorted_result.indices, sorted_result.values, new_shape)


def from_dense(tensor: Any, name: str | None = None) -> SparseTensor:
    """The non-zero entries of ``tensor`` as a SparseTensor (``tf.sparse.from_dense``)."""
    with ops_lib.name_scope(name, "dense_to_sparse"):
        tensor = convert_to_tensor(tensor)
        indices = math_ops.where_v2(math_ops.not_equal(tensor, array_ops.zeros_like(tensor)))
        values = scatter_ops.gather_nd(tensor, indices)
        shape = array_ops.shape(tensor, out_type=dtypes_lib.int64)
        return SparseTensor(indices, values, shape)


def sparse_dense_cwise_add(sp_t: SparseTensor, dense_t: Any) -> SparseTensor:
    """The present entries of ``sp_t`` plus the matching (broadcast) ``dense_t`` ones."""
    result = apply_op("SparseDenseCwiseAdd", sp_indices=sp_t.indices, sp_values=sp_t.values,
                      sp_shape=sp_t.dense_shape, dense=dense_t).outputs[0]
    return SparseTensor(sp_t.indices, result, sp_t.dense_shape)


def sparse_placeholder(dtype: Any, shape: Any = None, name: str | None = None) -> SparseTensor:
    """A SparseTensor of three placeholders, fed with a SparseTensorValue or an
    (indices, values, dense_shape) tuple; a given ``shape`` is the (feedable) default
    dense shape."""
    shape_name = (name + "/shape") if name is not None else None
    default_shape_name = (name + "/shape_default") if name is not None else None
    if shape is None:
        rank = None
        dense_shape = array_ops.placeholder(dtypes_lib.int64, shape=[rank], name=shape_name)
        dense_shape_default = constant_value_as_shape(dense_shape)
    else:
        if isinstance(shape, ops_lib.Tensor):
            rank = shape.get_shape()[0]
            dense_shape_default = constant_value_as_shape(shape)
        else:
            rank = len(shape)
            dense_shape_default = shape_lib.TensorShape(
                tuple(None if dim == -1 else dim for dim in shape))
            shape = tuple(shape_lib.dimension_value(dim) for dim in shape)
            shape = tuple(-1 if dim is None else dim for dim in shape)
            shape = convert_to_tensor(shape, dtype=dtypes_lib.int64, name=default_shape_name)
        dense_shape = array_ops.placeholder_with_default(shape, shape=shape.shape,
                                                         name=shape_name)
    result = SparseTensor(
        values=array_ops.placeholder(dtype, shape=[None],
                                     name=(name + "/values") if name is not None else None),
        indices=array_ops.placeholder(dtypes_lib.int64, shape=[None, rank],
                                      name=(name + "/indices") if name is not None else None),
        dense_shape=dense_shape)
    result.set_shape(dense_shape_default)
    return result
