"""Scatter and gather ops (TF's state_ops / array_ops / data_flow_ops scatter family):
in-place scatters into ref variables (ScatterUpdate/Add/Sub/Mul/Div/Min/Max, ScatterNd*)
and their ResourceScatter* twins over resource handles, the functional ScatterNd and
TensorScatter*, GatherNd, the v1 Gather, DynamicPartition and (Parallel)DynamicStitch;
with TF's OpDefs and shape functions and the TF1 Python names (``tf.scatter_update``,
``tf.tensor_scatter_nd_update``, ``tf.gather_nd(batch_dims)``, ``tf.batch_gather``,
``tf.dynamic_partition``...). Gradients are in :mod:`graphcore.ops.scatter_grad`,
kernels in :mod:`graphcore.kernels.scatter_kernels`."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import op_registry, tensor_util
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, manip_ops, math_ops

__all__ = [
    "batch_gather", "batch_scatter_update", "dynamic_partition", "dynamic_stitch",
    "gather_nd", "scatter_add", "scatter_div", "scatter_max", "scatter_min", "scatter_mul",
    "scatter_nd", "scatter_nd_add", "scatter_nd_sub", "scatter_nd_update", "scatter_sub",
    "scatter_update", "tensor_scatter_add", "tensor_scatter_nd_add", "tensor_scatter_nd_max",
    "tensor_scatter_nd_min", "tensor_scatter_nd_sub", "tensor_scatter_nd_update",
    "tensor_scatter_sub", "tensor_scatter_update",
]

_NUMBER = "numbertype"
_MINMAX = "{half, bfloat16, float, double, int32, int64}"
_POLICY = 'bad_indices_policy: string = ""'


# -- shape functions -----------------------------------------------------------------------

def _scatter_shape(op: ops_lib.Operation) -> list:
    """Scatter*: updates is a scalar or indices.shape + ref.shape[1:]; out = ref's shape."""
    var, indices, updates = (t.shape for t in op._inputs)
    _check_scatter_updates(var, indices, updates, op.name)
    return [var]


def _check_scatter_updates(var: shape_lib.TensorShape, indices: shape_lib.TensorShape,
                           updates: shape_lib.TensorShape, name: str) -> None:
    if updates.ndims == 0 or var.ndims is None or indices.ndims is None:
        return
    want = indices.concatenate(var.with_rank_at_least(1)[1:])
    try:
        updates.merge_with(want)
    except ValueError:
        raise ValueError(f"Shapes must be equal rank, but are {updates.ndims} and {want.ndims} "
                         f"for '{name}': updates.shape {updates} must be indices.shape + "
                         f"ref.shape[1:] = {want}") from None


def _resource_scatter_shape(op: ops_lib.Operation) -> list:
    from graphcore.ops import resource_variable_ops

    var = resource_variable_ops.handle_shape(op._inputs[0])
    _check_scatter_updates(var, op._inputs[1].shape, op._inputs[2].shape, op.name)
    return []


def _scatter_nd_check(out: shape_lib.TensorShape, indices: shape_lib.TensorShape,
                      updates: shape_lib.TensorShape, name: str) -> None:
    """ScatterNd's rule: updates.shape = indices.shape[:-1] + out.shape[indices.shape[-1]:]."""
    indices = indices.with_rank_at_least(1)
    if indices.ndims is None or updates.ndims is None or out.ndims is None:
        return
    k = indices.dims[-1].value
    if k is None:
        return
    if k > out.ndims:
        raise ValueError(f"Dimensions [{k},{out.ndims}) of input[shape={out}] = [] must match "
                         f"dimensions [0,0) of updates[shape={updates}] for '{name}'")
    want = indices[:-1].concatenate(out[k:])
    if updates.ndims != want.ndims or not updates.is_compatible_with(want):
        raise ValueError(f"Dimensions of updates[shape={updates}] must match "
                         f"indices.shape[:-1] + shape[indices.shape[-1]:] = {want} "
                         f"for '{name}'")


def _scatter_nd_ref_shape(op: ops_lib.Operation) -> list:
    var, indices, updates = (t.shape for t in op._inputs)
    _scatter_nd_check(var, indices, updates, op.name)
    return [var]


def _resource_scatter_nd_shape(op: ops_lib.Operation) -> list:
    from graphcore.ops import resource_variable_ops

    var = resource_variable_ops.handle_shape(op._inputs[0])
    _scatter_nd_check(var, op._inputs[1].shape, op._inputs[2].shape, op.name)
    return []


def _scatter_nd_shape(op: ops_lib.Operation) -> list:
    indices, updates, shape_t = op._inputs
    from graphcore.framework.indexed_slices import constant_value_as_shape

    out = constant_value_as_shape(shape_t)
    _scatter_nd_check(out, indices.shape, updates.shape, op.name)
    return [out]


def _gather_nd_shape(op: ops_lib.Operation) -> list:
    params = op._inputs[0].shape
    indices = op._inputs[1].shape
    if params.ndims is not None and params.ndims < 1:
        raise ValueError(f"Shape must be at least rank 1 but is rank {params.ndims} for "
                         f"'{op.name}'")
    indices = indices.with_rank_at_least(1)
    if indices.ndims is None or indices.dims[-1].value is None or params.ndims is None:
        return [shape_lib.unknown_shape()]
    k = indices.dims[-1].value
    if k > params.ndims:
        raise ValueError(f"indices.shape[-1] must be <= params.rank, but saw indices shape: "
                         f"{indices} and params shape: {params} for '{op.name}'")
    return [indices[:-1].concatenate(params[k:])]


def _gather_v1_shape(op: ops_lib.Operation) -> list:
    params = op._inputs[0].shape.with_rank_at_least(1)
    return [op._inputs[1].shape.concatenate(params[1:])]


def _dynamic_partition_shape(op: ops_lib.Operation) -> list:
    data = op._inputs[0].shape
    partitions = op._inputs[1].shape
    n = op._attrs["num_partitions"].i
    if partitions.ndims is None or data.ndims is None:
        return [shape_lib.unknown_shape() for _ in range(n)]
    data.with_rank_at_least(partitions.ndims)[:partitions.ndims].merge_with(partitions)
    tail = data[partitions.ndims:]
    return [shape_lib.TensorShape([None]).concatenate(tail) for _ in range(n)]


def _dynamic_stitch_shape(op: ops_lib.Operation) -> list:
    n = op._attrs["N"].i
    indices, data = op._inputs[:n], op._inputs[n:]
    extra = shape_lib.unknown_shape()
    max_index = -1
    all_known = True
    for i, d in zip(indices, data):
        if i.shape.ndims is not None and d.shape.ndims is not None:
            d.shape.with_rank_at_least(i.shape.ndims)[:i.shape.ndims].merge_with(i.shape)
            extra = extra.merge_with(d.shape[i.shape.ndims:])
        value = tensor_util.constant_value(i)
        if value is None:
            all_known = False
        elif value.size:
            max_index = max(max_index, int(value.max()))
    first = max_index + 1 if all_known else None
    return [shape_lib.TensorShape([first]).concatenate(extra)]


# -- OpDefs (TF's) -------------------------------------------------------------------------

SCATTER_TYPES = {"ScatterUpdate": "type", "ScatterAdd": _NUMBER, "ScatterSub": _NUMBER,
                 "ScatterMul": _NUMBER, "ScatterDiv": _NUMBER, "ScatterMin": _MINMAX,
                 "ScatterMax": _MINMAX}
for _op_type, _types in SCATTER_TYPES.items():
    _locking = "true" if _op_type == "ScatterUpdate" else "false"
    op_registry.register_op(_op_type).input("ref: Ref(T)").input("indices: Tindices") \
        .input("updates: T").output("output_ref: Ref(T)").attr(f"T: {_types}") \
        .attr("Tindices: {int32, int64}").attr(f"use_locking: bool = {_locking}") \
        .shape_fn(_scatter_shape)
    op_registry.register_op("Resource" + _op_type).input("resource: resource") \
        .input("indices: Tindices").input("updates: dtype") \
        .attr(f"dtype: {'type' if _op_type == 'ScatterUpdate' else _NUMBER}") \
        .attr("Tindices: {int32, int64}").stateful().shape_fn(_resource_scatter_shape)

SCATTER_ND_TYPES = {"ScatterNdUpdate": "type", "ScatterNdAdd": _NUMBER, "ScatterNdSub": _NUMBER}
for _op_type, _types in SCATTER_ND_TYPES.items():
    _locking = "true" if _op_type == "ScatterNdUpdate" else "false"
    op_registry.register_op(_op_type).input("ref: Ref(T)").input("indices: Tindices") \
        .input("updates: T").output("output_ref: Ref(T)").attr(f"T: {_types}") \
        .attr("Tindices: {int32, int64}").attr(f"use_locking: bool = {_locking}") \
        .attr(_POLICY).shape_fn(_scatter_nd_ref_shape)
    op_registry.register_op("Resource" + _op_type).input("ref: resource") \
        .input("indices: Tindices").input("updates: T").attr("T: type") \
        .attr("Tindices: {int32, int64}").attr("use_locking: bool = true").attr(_POLICY) \
        .stateful().shape_fn(_resource_scatter_nd_shape)

op_registry.register_op("ScatterNd").input("indices: Tindices").input("updates: T") \
    .input("shape: Tindices").output("output: T").attr("T: type") \
    .attr("Tindices: {int16, int32, int64}").attr(_POLICY).shape_fn(_scatter_nd_shape)

TENSOR_SCATTER = ("TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub",
                  "TensorScatterMin", "TensorScatterMax")


def _tensor_scatter_shape(op: ops_lib.Operation) -> list:
    tensor, indices, updates = (t.shape for t in op._inputs)
    _scatter_nd_check(tensor, indices, updates, op.name)
    return [tensor]


for _op_type in TENSOR_SCATTER:
    _index_types = "{int16, int32, int64, uint16}" if _op_type == "TensorScatterUpdate" \
        else "{int32, int64}"
    op_registry.register_op(_op_type).input("tensor: T").input("indices: Tindices") \
        .input("updates: T").output("output: T").attr("T: type") \
        .attr(f"Tindices: {_index_types}").attr(_POLICY).shape_fn(_tensor_scatter_shape)

op_registry.register_op("GatherNd").input("params: Tparams").input("indices: Tindices") \
    .output("output: Tparams").attr("Tparams: type").attr("Tindices: {int16, int32, int64}") \
    .attr(_POLICY).shape_fn(_gather_nd_shape)

op_registry.register_op("Gather").input("params: Tparams").input("indices: Tindices") \
    .output("output: Tparams").attr("validate_indices: bool = true").attr("Tparams: type") \
    .attr("Tindices: {int32, int64}").shape_fn(_gather_v1_shape)

op_registry.register_op("DynamicPartition").input("data: T").input("partitions: int32") \
    .output("outputs: num_partitions * T").attr("num_partitions: int >= 1").attr("T: type") \
    .shape_fn(_dynamic_partition_shape)

for _op_type in ("DynamicStitch", "ParallelDynamicStitch"):
    op_registry.register_op(_op_type).input("indices: N * int32").input("data: N * T") \
        .output("merged: T").attr("N: int >= 1").attr("T: type") \
        .shape_fn(_dynamic_stitch_shape)


# -- Python API ----------------------------------------------------------------------------

def _is_ref(ref: Any) -> bool:
    return ref.dtype._is_ref_dtype


def _ref_scatter(op_type: str, py_name: str, default_locking: bool):
    def fn(ref: Any, indices: Any, updates: Any, use_locking: bool = default_locking,
           name: str | None = None) -> Any:
        if _is_ref(ref):
            return apply_op(op_type, name=name, ref=ref, indices=indices, updates=updates,
                            use_locking=use_locking).outputs[0]
        write = apply_op("Resource" + op_type, name=name, resource=ref.handle,
                         indices=indices, updates=convert_to_tensor(updates, ref.dtype))
        return ref._lazy_read(write)

    fn.__name__ = py_name
    fn.__doc__ = (f"TF's ``tf.{py_name}(ref, indices, updates, use_locking, name)``: "
                  f"``{op_type}`` on a ref variable, ``Resource{op_type}`` on a resource "
                  "variable (returning its value after the write).")
    return fn


scatter_update = _ref_scatter("ScatterUpdate", "scatter_update", True)
scatter_add = _ref_scatter("ScatterAdd", "scatter_add", False)
scatter_sub = _ref_scatter("ScatterSub", "scatter_sub", False)
scatter_mul = _ref_scatter("ScatterMul", "scatter_mul", False)
scatter_div = _ref_scatter("ScatterDiv", "scatter_div", False)
scatter_min = _ref_scatter("ScatterMin", "scatter_min", False)
scatter_max = _ref_scatter("ScatterMax", "scatter_max", False)


def _ref_scatter_nd(op_type: str, py_name: str, default_locking: bool):
    def fn(ref: Any, indices: Any, updates: Any, use_locking: bool = default_locking,
           name: str | None = None) -> Any:
        if _is_ref(ref):
            return apply_op(op_type, name=name, ref=ref, indices=indices, updates=updates,
                            use_locking=use_locking).outputs[0]
        write = apply_op("Resource" + op_type, name=name, ref=ref.handle, indices=indices,
                         updates=convert_to_tensor(updates, ref.dtype),
                         use_locking=use_locking)
        return ref._lazy_read(write)

    fn.__name__ = py_name
    fn.__doc__ = f"TF's ``tf.{py_name}``: ``{op_type}`` (or ``Resource{op_type}``)."
    return fn


scatter_nd_update = _ref_scatter_nd("ScatterNdUpdate", "scatter_nd_update", True)
scatter_nd_add = _ref_scatter_nd("ScatterNdAdd", "scatter_nd_add", False)
scatter_nd_sub = _ref_scatter_nd("ScatterNdSub", "scatter_nd_sub", False)


def resource_scatter_add(resource: Any, indices: Any, updates: Any,
                         name: str | None = None) -> ops_lib.Operation:
    """``ResourceScatterAdd`` on a handle (gen_resource_variable_ops' name)."""
    return apply_op("ResourceScatterAdd", name=name, resource=resource, indices=indices,
                    updates=updates)


def scatter_nd(indices: Any, updates: Any, shape: Any, name: str | None = None) -> ops_lib.Tensor:
    """Zeros of ``shape`` with ``updates`` added at ``indices`` (ScatterNd)."""
    return apply_op("ScatterNd", name=name, indices=indices, updates=updates,
                    shape=shape).outputs[0]


def _tensor_scatter(op_type: str, py_name: str):
    def fn(tensor: Any, indices: Any, updates: Any, name: str | None = None) -> ops_lib.Tensor:
        return apply_op(op_type, name=name, tensor=tensor, indices=indices,
                        updates=updates).outputs[0]

    fn.__name__ = py_name
    fn.__doc__ = f"TF's ``tf.{py_name}``: a copy of ``tensor`` with ``{op_type}`` applied."
    return fn


tensor_scatter_nd_update = _tensor_scatter("TensorScatterUpdate", "tensor_scatter_nd_update")
tensor_scatter_nd_add = _tensor_scatter("TensorScatterAdd", "tensor_scatter_nd_add")
tensor_scatter_nd_sub = _tensor_scatter("TensorScatterSub", "tensor_scatter_nd_sub")
tensor_scatter_nd_min = _tensor_scatter("TensorScatterMin", "tensor_scatter_nd_min")
tensor_scatter_nd_max = _tensor_scatter("TensorScatterMax", "tensor_scatter_nd_max")
# TF1's deprecated endpoints of the same functions.
tensor_scatter_update = tensor_scatter_nd_update
tensor_scatter_add = tensor_scatter_nd_add
tensor_scatter_sub = tensor_scatter_nd_sub


def gather_nd(params: Any, indices: Any, name: str | None = None,
              batch_dims: Any = 0) -> ops_lib.Tensor:
    """Slices of ``params`` at the index tuples of ``indices``' last axis (GatherNd;
    ResourceGatherNd is absent, so a resource variable is read first)."""
    batch_dims_ = tensor_util.constant_value(batch_dims) \
        if isinstance(batch_dims, ops_lib.Tensor) else batch_dims
    if batch_dims_ is not None:
        batch_dims = int(batch_dims_)
    if batch_dims == 0:
        if hasattr(params, "_as_graph_element") and hasattr(params, "value"):
            params = params.value()
        return apply_op("GatherNd", name=name, params=params, indices=indices).outputs[0]
    return batch_gather_nd(params, indices, batch_dims=batch_dims, name=name)


def batch_gather_nd(params: Any, indices: Any, batch_dims: int,
                    name: str | None = None) -> ops_lib.Tensor:
    """gather_nd over leading batch dimensions, as TF builds it: the batch coordinates are
    prepended to each index tuple and one GatherNd runs over the flattened batch."""
    with ops_lib.name_scope(name, "BatchGatherND", [params, indices]):
        indices = convert_to_tensor(indices, name="indices")
        params = convert_to_tensor(params, name="params")
        if not isinstance(batch_dims, int):
            raise TypeError(f"Argument `batch_dims` must be an int; got {batch_dims}")
        if batch_dims < 0:
            raise ValueError("tf.gather_nd does not allow negative batch_dims.")
        params_ndims = params.shape.ndims
        indices_ndims = indices.shape.ndims
        if indices_ndims is not None and batch_dims >= indices_ndims:
            raise ValueError(f"Argument `batch_dims` = {batch_dims} must be less than "
                             f"rank(`indices`) = {indices_ndims}")
        if params_ndims is not None and batch_dims >= params_ndims:
            raise ValueError(f"Argument `batch_dims` = {batch_dims} must be less than "
                             f"rank(`params`) = {params_ndims}")
        params_shape = array_ops.shape(params)
        indices_shape = array_ops.shape(indices)
        batch_shape = params_shape[:batch_dims]
        batch_size = apply_op("Prod", input=batch_shape, reduction_indices=[0],
                              keep_dims=False).outputs[0]
        index_internal_ndims = array_ops.rank(indices) - batch_dims - 1
        indices_internal_shape = indices_shape[batch_dims:-1]
        batch_dim_list = array_ops.unstack(batch_shape, axis=0)
        dim_ranges = [math_ops.cast(math_ops.range(0, math_ops.cast(x, dtypes_lib.int32), 1),
                                    indices.dtype) for x in batch_dim_list]
        mesh_list = manip_ops.meshgrid(*dim_ranges, indexing="ij") if dim_ranges else []
        flat_list = [array_ops.reshape(x, shape=(-1,)) for x in mesh_list]
        index_grid = array_ops.transpose(array_ops.stack(flat_list, axis=0))
        index_grid_shape = array_ops.shape(index_grid)
        index_grid = array_ops.reshape(
            index_grid, array_ops.concat(
                [index_grid_shape[:1],
                 array_ops.ones(index_internal_ndims, dtype=index_grid_shape.dtype),
                 index_grid_shape[1:]], axis=0))
        tile_shape = array_ops.concat(((1,), indices_internal_shape, (1,)), axis=0)
        index_grid = array_ops.tile(index_grid, multiples=tile_shape)
        flat_shape = array_ops.concat(([batch_size], indices_shape[batch_dims:]), axis=0)
        flat_indices = array_ops.reshape(indices, shape=flat_shape)
        indices = array_ops.concat((index_grid, flat_indices), axis=-1)
        out = apply_op("GatherNd", params=params, indices=indices).outputs[0]
        out_shape = array_ops.shape(out)
        return array_ops.reshape(out, shape=array_ops.concat((batch_shape, out_shape[1:]),
                                                             axis=0))


def batch_gather(params: Any, indices: Any, name: str | None = None) -> ops_lib.Tensor:
    """TF1's deprecated ``tf.batch_gather``: gather with batch_dims = rank(indices) - 1."""
    with ops_lib.name_scope(name, "BatchGather", [params, indices]):
        indices = convert_to_tensor(indices, name="indices")
        params = convert_to_tensor(params, name="params")
        if indices.shape.ndims is None:
            raise ValueError("batch_gather does not allow indices with unknown shape.")
        return array_ops.gather(params, indices, batch_dims=indices.shape.ndims - 1)


def batch_scatter_update(ref: Any, indices: Any, updates: Any, use_locking: bool = True,
                         name: str | None = None) -> Any:
    """TF1's ``tf.batch_scatter_update``: scatter_nd_update of ``updates`` at the batch
    coordinates of ``indices`` (its last axis indexes the first non-batch axis)."""
    with ops_lib.name_scope(name):
        indices = convert_to_tensor(indices, name="indices")
        indices_shape = array_ops.shape(indices)
        indices_dimensions = indices.shape.ndims
        if indices_dimensions is None:
            raise ValueError("batch_gather does not allow indices with unknown shape.")
        nd_indices = array_ops.expand_dims(indices, axis=-1)
        nd_indices_list = []
        for dimension in range(indices_dimensions - 1):
            dimension_size = indices_shape[dimension]
            shape_to_broadcast = [1] * (indices_dimensions + 1)
            shape_to_broadcast[dimension] = -1
            dimension_size_expanded = array_ops.reshape(
                math_ops.range(math_ops.cast(dimension_size, indices.dtype)),
                shape_to_broadcast)
            if dimension_size_expanded.dtype != indices.dtype:
                dimension_size_expanded = math_ops.cast(dimension_size_expanded, indices.dtype)
            nd_indices_list.append(
                dimension_size_expanded * array_ops.ones_like(nd_indices, dtype=indices.dtype))
        nd_indices_list.append(nd_indices)
        final_indices = array_ops.concat(nd_indices_list, axis=-1)
        return scatter_nd_update(ref, final_indices, updates, use_locking=use_locking)


def dynamic_partition(data: Any, partitions: Any, num_partitions: int,
                      name: str | None = None) -> list:
    """``data`` split into ``num_partitions`` tensors by ``partitions`` (DynamicPartition)."""
    return list(apply_op("DynamicPartition", name=name, data=data, partitions=partitions,
                         num_partitions=num_partitions).outputs)


def dynamic_stitch(indices: Any, data: Any, name: str | None = None) -> ops_lib.Tensor:
    """``merged[indices[m][i]] = data[m][i]``, later pieces winning (DynamicStitch)."""
    return apply_op("DynamicStitch", name=name, indices=indices, data=data).outputs[0]


def parallel_dynamic_stitch(indices: Any, data: Any,
                            name: str | None = None) -> ops_lib.Tensor:
    """DynamicStitch whose duplicate indices may resolve in any order
    (ParallelDynamicStitch)."""
    return apply_op("ParallelDynamicStitch", name=name, indices=indices,
                    data=data).outputs[0]
