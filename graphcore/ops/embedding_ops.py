"""``tf.nn.embedding_lookup``, ``embedding_lookup_sparse`` and
``safe_embedding_lookup_sparse``, built as TF builds them: one gather for a single table,
or, over a list of shards, ids assigned to shards (``mod`` or ``div``), DynamicPartition
of the ids and of their positions, a gather per shard colocated with it and a
ParallelDynamicStitch back into the ids' order. The gathers' gradients are IndexedSlices
per shard, which the optimizers apply as sparse row updates."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.indexed_slices import IndexedSlices
from graphcore.framework.sparse_tensor import SparseTensor
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import (
    array_ops,
    clip_ops,
    manip_ops,
    math_ops,
    resource_variable_ops,
    scatter_ops,
    segment_ops,
    sparse_segment_ops,
)

__all__ = ["embedding_lookup", "embedding_lookup_sparse", "safe_embedding_lookup_sparse"]


def _clip(params: Any, ids: Any, max_norm: Any) -> Any:
    """``params`` (the gathered rows) with each embedding's l2-norm clipped to
    ``max_norm`` over the axes after the ids' rank."""
    if max_norm is None:
        return params
    ids_rank = convert_to_tensor(ids).shape.ndims
    params_rank = convert_to_tensor(params).shape.ndims
    if ids_rank and params_rank:
        axes: Any = list(range(ids_rank, params_rank))
    else:
        axes = math_ops.range(ids_rank if ids_rank else array_ops.rank(ids),
                              params_rank if params_rank else array_ops.rank(params))
    return clip_ops.clip_by_norm(params, max_norm, axes=axes)


def _gather(params: Any, ids: Any, name: str | None = None) -> ops_lib.Tensor:
    """TF's ``array_ops.gather`` dispatch: a resource variable reads the rows with a
    ResourceGather (``sparse_read``), anything else is a GatherV2."""
    if resource_variable_ops.is_resource_variable(params):
        return params.sparse_read(ids, name=name)
    return array_ops.gather(params, ids, name=name)


def _dim0(p: Any) -> int | None:
    return shape_lib.dimension_value(p.get_shape()[0])


def embedding_lookup(params: Any, ids: Any, partition_strategy: str = "mod",
                     name: str | None = None, validate_indices: bool = True,
                     max_norm: Any = None) -> ops_lib.Tensor:
    """The rows ``ids`` of ``params``, a tensor/variable or a list of shards of one
    table (id ``i`` lives in shard ``i % n`` under "mod", in contiguous ranges under
    "div"); each embedding's norm is clipped to ``max_norm`` when given."""
    del validate_indices
    if params is None:
        raise ValueError("params must be specified")
    if isinstance(params, (list, tuple)) and not params:
        raise ValueError("Length of params is currently 0. Need at least one param.")
    if hasattr(params, "_get_variable_list"):  # a PartitionedVariable
        params = list(params)
    if not isinstance(params, list):
        params = [params] if not isinstance(params, tuple) else list(params)
    with ops_lib.name_scope(name, "embedding_lookup", params + [ids]) as name:
        np_ = len(params)
        if not any(resource_variable_ops.is_resource_variable(p) for p in params):
            params = [p if isinstance(p, IndexedSlices) else
                      convert_to_tensor(p, name=f"params_{i}") for i, p in enumerate(params)]
        ids = convert_to_tensor(ids, name="ids")
        if np_ == 1:
            with ops_lib.colocate_with(params[0]):
                result = _clip(_gather(params[0], ids, name=name), ids, max_norm)
            return array_ops.identity(result)
        flat_ids = array_ops.reshape(ids, [-1])
        original_indices = math_ops.range(array_ops.size(flat_ids, out_type=dtypes_lib.int32))
        if partition_strategy == "mod":
            p_assignments = flat_ids % np_
            new_ids = flat_ids // np_
        elif partition_strategy == "div":
            sizes = [_dim0(p) for p in params]
            if all(s is not None for s in sizes):
                num_total_ids = array_ops.constant(sum(sizes), flat_ids.dtype)
            else:
                dim_0_sizes = []
                for p, s in zip(params, sizes):
                    if s is not None:
                        dim_0_sizes.append(s)
                    else:
                        with ops_lib.colocate_with(p):
                            dim_0_sizes.append(array_ops.shape(p)[0])
                num_total_ids = math_ops.reduce_sum(
                    math_ops.cast(array_ops.stack(dim_0_sizes), flat_ids.dtype))
            ids_per_partition = num_total_ids // np_
            extras = num_total_ids % np_
            p_assignments = math_ops.maximum(flat_ids // (ids_per_partition + 1),
                                             (flat_ids - extras) // ids_per_partition)
            new_ids = array_ops.where(p_assignments < extras,
                                      flat_ids % (ids_per_partition + 1),
                                      (flat_ids - extras) % ids_per_partition)
        else:
            raise ValueError(f"Unrecognized partition strategy: {partition_strategy}.Must be "
                             "one of either `mod` or `div`.")
        p_assignments = math_ops.cast(p_assignments, dtypes_lib.int32)
        gather_ids = scatter_ops.dynamic_partition(new_ids, p_assignments, np_)
        pindices = scatter_ops.dynamic_partition(original_indices, p_assignments, np_)
        partitioned_result = []
        for p in range(np_):
            with ops_lib.device(None), ops_lib.colocate_with(params[p]):
                partitioned_result.append(_gather(params[p], gather_ids[p]))
        ret = scatter_ops.parallel_dynamic_stitch(pindices, partitioned_result, name=name)
        element_shape_s = params[0].get_shape()[1:]
        for p in params[1:]:
            element_shape_s = element_shape_s.merge_with(p.get_shape()[1:])
        if element_shape_s.is_fully_defined():
            element_shape_d: Any = element_shape_s.as_list()
        else:
            with ops_lib.colocate_with(params[0]):
                params_shape = array_ops.shape(params[0])
            element_shape_d = params_shape[1:]
        ret = array_ops.reshape(ret, array_ops.concat([array_ops.shape(ids), element_shape_d],
                                                      0))
        ret.set_shape(ids.get_shape().concatenate(element_shape_s))
        return _clip(ret, ids, max_norm)


def embedding_lookup_sparse(params: Any, sp_ids: SparseTensor, sp_weights: Any,
                            partition_strategy: str = "mod", name: str | None = None,
                            combiner: str | None = None,
                            max_norm: Any = None) -> ops_lib.Tensor:
    """Per row of ``sp_ids`` (a [batch, n] SparseTensor of ids), the ``combiner``
    ("sum", "mean" (default) or "sqrtn") of its ids' embeddings, weighted by
    ``sp_weights`` when given."""
    if combiner is None:
        combiner = "mean"
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}")
    if hasattr(params, "_get_variable_list"):
        params = list(params)
    if not isinstance(params, list):
        params = [params]
    if not isinstance(sp_ids, SparseTensor):
        raise TypeError(f"sp_ids must be SparseTensor, got {type(sp_ids)}")
    ignore_weights = sp_weights is None
    if not ignore_weights:
        if not isinstance(sp_weights, SparseTensor):
            raise TypeError(f"sp_weights must be either None or SparseTensor, got "
                            f"{type(sp_weights)}")
        sp_ids.values.get_shape().assert_is_compatible_with(sp_weights.values.get_shape())
        sp_ids.indices.get_shape().assert_is_compatible_with(sp_weights.indices.get_shape())
        sp_ids.dense_shape.get_shape().assert_is_compatible_with(
            sp_weights.dense_shape.get_shape())
    with ops_lib.name_scope(name, "embedding_lookup_sparse", params + [sp_ids]) as name:
        segment_ids = sp_ids.indices[:, 0]
        if segment_ids.dtype != dtypes_lib.int32:
            segment_ids = math_ops.cast(segment_ids, dtypes_lib.int32)
        ids, idx = manip_ops.unique(sp_ids.values)
        embeddings = embedding_lookup(params, ids, partition_strategy=partition_strategy,
                                      max_norm=max_norm)
        if ignore_weights:
            reduce = {"sum": sparse_segment_ops.sparse_segment_sum,
                      "mean": sparse_segment_ops.sparse_segment_mean,
                      "sqrtn": sparse_segment_ops.sparse_segment_sqrt_n}[combiner]
            return reduce(embeddings, idx, segment_ids, name=name)
        original_dtype = embeddings.dtype
        if embeddings.dtype in (dtypes_lib.float16, dtypes_lib.bfloat16):
            embeddings = math_ops.cast(embeddings, dtypes_lib.float32)
        weights = sp_weights.values
        if weights.dtype != embeddings.dtype:
            weights = math_ops.cast(weights, embeddings.dtype)
        embeddings = array_ops.gather(embeddings, idx)
        # Weights broadcast over each embedding's elements.
        ones_shape = array_ops.expand_dims(array_ops.rank(embeddings) - 1, 0)
        weights_shape = array_ops.shape(weights)
        ones = array_ops.ones(ones_shape, dtype=weights_shape.dtype)
        bcast_weights_shape = array_ops.concat([weights_shape, ones], 0)
        orig_weights_shape = weights.get_shape()
        weights = array_ops.reshape(weights, bcast_weights_shape)
        if embeddings.get_shape().ndims is not None:
            weights.set_shape(orig_weights_shape.concatenate(
                [1 for _ in range(embeddings.get_shape().ndims - 1)]))
        embeddings *= weights
        if combiner == "sum":
            embeddings = segment_ops.segment_sum(embeddings, segment_ids, name=name)
        elif combiner == "mean":
            embeddings = segment_ops.segment_sum(embeddings, segment_ids)
            weight_sum = segment_ops.segment_sum(weights, segment_ids)
            embeddings = math_ops.div_no_nan(embeddings, weight_sum, name=name)
        else:
            embeddings = segment_ops.segment_sum(embeddings, segment_ids)
            weights_squared = math_ops.pow(weights, 2)
            weight_sum = segment_ops.segment_sum(weights_squared, segment_ids)
            weight_sum_sqrt = math_ops.sqrt(weight_sum)
            embeddings = math_ops.div_no_nan(embeddings, weight_sum_sqrt, name=name)
        if embeddings.dtype != original_dtype:
            embeddings = math_ops.cast(embeddings, original_dtype)
        return embeddings


def safe_embedding_lookup_sparse(embedding_weights: Any, sparse_ids: SparseTensor,
                                 sparse_weights: Any = None, combiner: str = "mean",
                                 default_id: Any = None, name: str | None = None,
                                 partition_strategy: str = "div",
                                 max_norm: Any = None) -> ops_lib.Tensor:
    """``embedding_lookup_sparse`` over ids of any rank >= 2 that drops invalid ids (< 0)
    and, unless combining by sum, non-positive weights; an empty row gets
    ``default_id``'s embedding, or zeros."""
    from graphcore.ops import sparse_ops

    if embedding_weights is None:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    if hasattr(embedding_weights, "_get_variable_list"):
        embedding_weights = list(embedding_weights)
    if not isinstance(embedding_weights, list):
        embedding_weights = [embedding_weights]
    if len(embedding_weights) < 1:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    dtype = sparse_weights.dtype if sparse_weights is not None else None
    embedding_weights = [
        w if (resource_variable_ops.is_resource_variable(w) and dtype in (None, w.dtype))
        else convert_to_tensor(w, dtype=dtype) for w in embedding_weights]
    scope_values = embedding_weights + [sparse_ids] + \
        ([sparse_weights] if sparse_weights is not None else [])
    with ops_lib.name_scope(name, "embedding_lookup", scope_values) as scope:
        original_shape = sparse_ids.dense_shape
        original_rank_dim = shape_lib.dimension_value(sparse_ids.dense_shape.get_shape()[0])
        original_rank = array_ops.size(original_shape) if original_rank_dim is None \
            else original_rank_dim
        sparse_ids = sparse_ops.sparse_reshape(sparse_ids, [
            math_ops.reduce_prod(array_ops.slice(original_shape, [0], [original_rank - 1])),
            array_ops.gather(original_shape, original_rank - 1)])
        if sparse_weights is not None:
            sparse_weights = SparseTensor(sparse_ids.indices, sparse_weights.values,
                                          sparse_ids.dense_shape)
        sparse_ids, sparse_weights = _prune_invalid_ids(sparse_ids, sparse_weights)
        if combiner != "sum":
            sparse_ids, sparse_weights = _prune_invalid_weights(sparse_ids, sparse_weights)
        sparse_ids, is_row_empty = sparse_ops.sparse_fill_empty_rows(sparse_ids,
                                                                     default_id or 0)
        if sparse_weights is not None:
            sparse_weights, _ = sparse_ops.sparse_fill_empty_rows(sparse_weights, 1.0)
        result = embedding_lookup_sparse(
            embedding_weights, sparse_ids, sparse_weights, combiner=combiner,
            partition_strategy=partition_strategy,
            name=None if default_id is None else scope, max_norm=max_norm)
        if default_id is None:
            is_row_empty = array_ops.tile(
                array_ops.reshape(is_row_empty, [-1, 1]),
                array_ops.stack([1, array_ops.shape(result)[1]]))
            result = array_ops.where(is_row_empty, array_ops.zeros_like(result), result,
                                     name=scope)
        final_result = array_ops.reshape(result, array_ops.concat([
            array_ops.slice(math_ops.cast(original_shape, dtypes_lib.int32), [0],
                            [original_rank - 1]),
            array_ops.slice(array_ops.shape(result), [1], [-1])], 0))
        lead = None if original_rank_dim is None else original_rank_dim - 1
        final_result.set_shape(shape_lib.unknown_shape(rank=lead)
                               .concatenate(result.get_shape()[1:]))
        return final_result


def _prune_invalid_ids(sparse_ids: SparseTensor, sparse_weights: Any) -> tuple:
    from graphcore.ops import sparse_ops

    is_id_valid = math_ops.greater_equal(sparse_ids.values, 0)
    if sparse_weights is not None:
        is_id_valid = math_ops.logical_and(
            is_id_valid, array_ops.ones_like(sparse_weights.values, dtype=dtypes_lib.bool))
    sparse_ids = sparse_ops.sparse_retain(sparse_ids, is_id_valid)
    if sparse_weights is not None:
        sparse_weights = sparse_ops.sparse_retain(sparse_weights, is_id_valid)
    return sparse_ids, sparse_weights


def _prune_invalid_weights(sparse_ids: SparseTensor, sparse_weights: Any) -> tuple:
    from graphcore.ops import sparse_ops

    if sparse_weights is not None:
        is_weights_valid = math_ops.greater(sparse_weights.values, 0)
        sparse_ids = sparse_ops.sparse_retain(sparse_ids, is_weights_valid)
        sparse_weights = sparse_ops.sparse_retain(sparse_weights, is_weights_valid)
    return sparse_ids, sparse_weights
