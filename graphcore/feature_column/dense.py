"""The dense feature columns (TF's ``numeric_column``, ``embedding_column``,
``shared_embedding_columns`` and ``indicator_column``): each gives a float tensor per
example — the numbers themselves, the combined embedding rows of a categorical column's
ids (``safe_embedding_lookup_sparse`` over an ``embedding_weights`` variable), or the
ids' multi-hot (weighted) counts."""

from __future__ import annotations

import collections
import math
from typing import Any

from graphcore.feature_column import base
from graphcore.feature_column.base import (
    IdWeightPair,
    TensorSequenceLengthPair,
    _CategoricalColumn,
    _DenseColumn,
    _LazyBuilder,
    _SequenceDenseColumn,
)
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.sparse_tensor import SparseTensor
from graphcore.ops import (
    array_ops,
    embedding_ops,
    init_ops,
    math_ops,
    parsing_ops,
    scatter_ops,
    segment_ops,
    sparse_ops,
)
from graphcore.ops import variable_scope as vs
from graphcore.train import checkpoint_utils

__all__ = ["embedding_column", "indicator_column", "numeric_column",
           "shared_embedding_columns"]


class NumericColumn(
        _DenseColumn,
        collections.namedtuple("NumericColumn",
                               ("key", "shape", "default_value", "dtype", "normalizer_fn"))):
    """Feature ``key`` as float32 (after ``normalizer_fn``), ``shape`` per example."""

    @property
    def name(self) -> str:
        return self.key

    @property
    def _parse_example_spec(self) -> dict:
        return {self.key: parsing_ops.FixedLenFeature(self.shape, self.dtype,
                                                      self.default_value)}

    def _transform_feature(self, inputs: _LazyBuilder) -> Any:
        tensor = inputs.get(self.key)
        if isinstance(tensor, SparseTensor):
            raise ValueError("The corresponding Tensor of numerical column must be a Tensor. "
                             f"SparseTensor is not supported. key: {self.key}")
        if self.normalizer_fn is not None:
            tensor = self.normalizer_fn(tensor)
        return math_ops.cast(tensor, dtypes_lib.float32)

    @property
    def _variable_shape(self) -> shape_lib.TensorShape:
        return shape_lib.TensorShape(self.shape)

    def _get_dense_tensor(self, inputs: _LazyBuilder, weight_collections: Any = None,
                          trainable: Any = None) -> Any:
        return inputs.get(self)

    @property
    def parents(self) -> list:
        return [self.key]


def sequence_length_from_sparse_tensor(sp_tensor: SparseTensor,
                                       num_elements: int = 1) -> ops_lib.Tensor:
    """Each example's sequence length: its last used column + 1, over ``num_elements``
    values per step, 0 for trailing empty examples."""
    with ops_lib.name_scope(None, "sequence_length") as name_scope:
        row_ids = sp_tensor.indices[:, 0]
        column_ids = sp_tensor.indices[:, 1] + array_ops.ones_like(sp_tensor.indices[:, 1])
        seq_length = segment_ops.segment_max(column_ids, segment_ids=row_ids)
        seq_length = math_ops.cast(math_ops.ceil(seq_length / num_elements), dtypes_lib.int64)
        n_pad = array_ops.shape(sp_tensor)[:1] - array_ops.shape(seq_length)[:1]
        padding = array_ops.zeros(n_pad, dtype=seq_length.dtype)
        return array_ops.concat([seq_length, padding], axis=0, name=name_scope)


def _lookup(column: Any, embedding_weights: Any, pair: IdWeightPair) -> ops_lib.Tensor:
    """The combined embedding rows of ``pair``'s ids (TF's safe lookup unless the column
    asked for the plain one over ids of rank <= 2)."""
    if column.ckpt_to_load_from is not None:
        checkpoint_utils.init_from_checkpoint(column.ckpt_to_load_from,
                                              {column.tensor_name_in_ckpt: embedding_weights})
    rank = shape_lib.dimension_value(pair.id_tensor.dense_shape.get_shape()[0])
    if not column.use_safe_embedding_lookup and rank is not None and rank <= 2:
        return embedding_ops.embedding_lookup_sparse(
            embedding_weights, pair.id_tensor, pair.weight_tensor, combiner=column.combiner,
            name=f"{column.name}_weights", max_norm=column.max_norm)
    return embedding_ops.safe_embedding_lookup_sparse(
        embedding_weights, pair.id_tensor, pair.weight_tensor, combiner=column.combiner,
        name=f"{column.name}_weights", max_norm=column.max_norm)


def _reject_sequence(column: Any, kind: str = "embedding_column") -> None:
    if getattr(column.categorical_column, "_is_sequence", False):
        raise ValueError(
            f"In {kind}: {column.name}. categorical_column must not be of type "
            "_SequenceCategoricalColumn. Suggested fix A: If you wish to use DenseFeatures, "
            "use a non-sequence categorical_column_with_*. Suggested fix B: If you wish to "
            "create sequence input, use SequenceFeatures instead of DenseFeatures. Given "
            f"(type {type(column.categorical_column)}): {column.categorical_column}")


def _require_sequence(column: Any, kind: str = "embedding_column") -> None:
    if not getattr(column.categorical_column, "_is_sequence", False):
        raise ValueError(
            f"In {kind}: {column.name}. categorical_column must be of type _SequenceCategoricalColumn "
            "to use SequenceFeatures. Suggested fix: Use one of "
            f"sequence_categorical_column_with_*. Given (type "
            f"{type(column.categorical_column)}): {column.categorical_column}")


class _Embedding(_DenseColumn, _SequenceDenseColumn):
    """What the embedding columns share: a categorical column's ids, ``dimension`` floats
    per example."""

    @property
    def _parse_example_spec(self) -> dict:
        return self.categorical_column._parse_example_spec

    def _transform_feature(self, inputs: _LazyBuilder) -> Any:
        return inputs.get(self.categorical_column)

    @property
    def _variable_shape(self) -> shape_lib.TensorShape:
        return shape_lib.TensorShape([self.dimension])

    def _with_sequence_length(self, dense: ops_lib.Tensor,
                              pair: IdWeightPair) -> TensorSequenceLengthPair:
        return TensorSequenceLengthPair(dense, sequence_length_from_sparse_tensor(
            pair.id_tensor))


class EmbeddingColumn(
        _Embedding,
        collections.namedtuple("EmbeddingColumn",
                               ("categorical_column", "dimension", "combiner", "initializer",
                                "ckpt_to_load_from", "tensor_name_in_ckpt", "max_norm",
                                "trainable", "use_safe_embedding_lookup"))):
    """A categorical column's ids as the ``combiner`` of their rows of an
    ``embedding_weights`` [num_buckets, dimension] variable."""

    def __new__(cls, categorical_column: Any, dimension: int, combiner: str, initializer: Any,
                ckpt_to_load_from: Any, tensor_name_in_ckpt: Any, max_norm: Any,
                trainable: bool, use_safe_embedding_lookup: bool = True) -> EmbeddingColumn:
        return super().__new__(cls, categorical_column, dimension, combiner, initializer,
                               ckpt_to_load_from, tensor_name_in_ckpt, max_norm, trainable,
                               use_safe_embedding_lookup)

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_embedding"

    def _embedding(self, pair: IdWeightPair, weight_collections: Any,
                   trainable: Any) -> ops_lib.Tensor:
        if weight_collections and ops_lib.GraphKeys.GLOBAL_VARIABLES not in weight_collections:
            weight_collections.append(ops_lib.GraphKeys.GLOBAL_VARIABLES)
        weights = vs.get_variable(
            name="embedding_weights",
            shape=(self.categorical_column._num_buckets, self.dimension),
            dtype=dtypes_lib.float32, initializer=self.initializer,
            trainable=self.trainable and trainable, collections=weight_collections)
        return _lookup(self, weights, pair)

    def _get_dense_tensor(self, inputs: _LazyBuilder, weight_collections: Any = None,
                          trainable: Any = None) -> ops_lib.Tensor:
        _reject_sequence(self)
        pair = self.categorical_column._get_sparse_tensors(inputs, weight_collections,
                                                           trainable)
        return self._embedding(pair, weight_collections, trainable)

    def _get_sequence_dense_tensor(self, inputs: _LazyBuilder, weight_collections: Any = None,
                                   trainable: Any = None) -> TensorSequenceLengthPair:
        _require_sequence(self)
        pair = self.categorical_column._get_sparse_tensors(inputs)
        return self._with_sequence_length(self._embedding(pair, weight_collections, trainable),
                                          pair)

    @property
    def parents(self) -> list:
        return [self.categorical_column]


class _SharedEmbeddingColumn(
        _Embedding,
        collections.namedtuple("_SharedEmbeddingColumn",
                               ("categorical_column", "dimension", "combiner", "initializer",
                                "shared_embedding_collection_name", "ckpt_to_load_from",
                                "tensor_name_in_ckpt", "max_norm", "trainable",
                                "use_safe_embedding_lookup"))):
    """An embedding column whose ``embedding_weights`` is shared by the columns of one
    ``shared_embedding_collection_name``: the first to build creates it and puts it in
    that collection, the others take it from there."""

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_shared_embedding"

    @property
    def _var_scope_name(self) -> str:
        return self.shared_embedding_collection_name

    def _get_dense_tensor_internal(self, inputs: _LazyBuilder, weight_collections: Any = None,
                                   trainable: Any = None) -> ops_lib.Tensor:
        with ops_lib.name_scope(None, default_name=self.name):
            pair = self.categorical_column._get_sparse_tensors(
                inputs, weight_collections=weight_collections, trainable=trainable)
            shape = (self.categorical_column._num_buckets, self.dimension)
            shared = ops_lib.get_collection(self.shared_embedding_collection_name)
            if shared:
                if len(shared) > 1:
                    raise ValueError(
                        f"Collection {shared} can only contain one variable. Suggested fix A: "
                        "Choose a unique name for this collection. Suggested fix B: Do not "
                        "add any variables to this collection. The feature_column library "
                        "already adds a variable under the hood.")
                weights = shared[0]
                if weights.get_shape() != shape:
                    raise ValueError(
                        f"Shared embedding collection {self.shared_embedding_collection_name}"
                        f" contains variable {weights.name} of unexpected shape "
                        f"{weights.get_shape()}. Expected shape is {shape}. Suggested fix A: "
                        "Choose a unique name for this collection. Suggested fix B: Do not "
                        "add any variables to this collection. The feature_column library "
                        "already adds a variable under the hood.")
            else:
                weights = vs.get_variable(
                    name="embedding_weights", shape=shape, dtype=dtypes_lib.float32,
                    initializer=self.initializer, trainable=self.trainable and trainable,
                    collections=weight_collections)
                ops_lib.add_to_collection(self.shared_embedding_collection_name, weights)
            return _lookup(self, weights, pair)

    def _get_dense_tensor(self, inputs: _LazyBuilder, weight_collections: Any = None,
                          trainable: Any = None) -> ops_lib.Tensor:
        _reject_sequence(self)
        return self._get_dense_tensor_internal(inputs, weight_collections, trainable)

    def _get_sequence_dense_tensor(self, inputs: _LazyBuilder, weight_collections: Any = None,
                                   trainable: Any = None) -> TensorSequenceLengthPair:
        _require_sequence(self)
        dense = self._get_dense_tensor_internal(inputs, weight_collections, trainable)
        return self._with_sequence_length(dense,
                                          self.categorical_column._get_sparse_tensors(inputs))


class IndicatorColumn(
        _DenseColumn, _SequenceDenseColumn,
        collections.namedtuple("IndicatorColumn", ("categorical_column",))):
    """A categorical column's ids as a multi-hot [num_buckets] vector per example: how
    often each id occurs, or the sum of its weights."""

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_indicator"

    def _transform_feature(self, inputs: _LazyBuilder) -> ops_lib.Tensor:
        pair = self.categorical_column._get_sparse_tensors(inputs)
        size = self.categorical_column._num_buckets
        if pair.weight_tensor is not None:
            weighted = sparse_ops.sparse_merge(sp_ids=pair.id_tensor,
                                               sp_values=pair.weight_tensor, vocab_size=size)
            weighted = sparse_ops.sparse_slice(weighted, [0, 0], weighted.dense_shape)
            return scatter_ops.scatter_nd(weighted.indices, weighted.values,
                                          weighted.dense_shape)
        dense_ids = sparse_ops.sparse_tensor_to_dense(pair.id_tensor, default_value=-1)
        one_hot = array_ops.one_hot(dense_ids, depth=size, on_value=1.0, off_value=0.0)
        return math_ops.reduce_sum(one_hot, axis=[-2])

    @property
    def _parse_example_spec(self) -> dict:
        return self.categorical_column._parse_example_spec

    @property
    def _variable_shape(self) -> shape_lib.TensorShape:
        return shape_lib.TensorShape([1, self.categorical_column._num_buckets])

    def _get_dense_tensor(self, inputs: _LazyBuilder, weight_collections: Any = None,
                          trainable: Any = None) -> ops_lib.Tensor:
        _reject_sequence(self, "indicator_column")
        return inputs.get(self)

    def _get_sequence_dense_tensor(self, inputs: _LazyBuilder, weight_collections: Any = None,
                                   trainable: Any = None) -> TensorSequenceLengthPair:
        _require_sequence(self, "indicator_column")
        dense = inputs.get(self)
        pair = self.categorical_column._get_sparse_tensors(inputs)
        return TensorSequenceLengthPair(dense, sequence_length_from_sparse_tensor(
            pair.id_tensor))

    @property
    def parents(self) -> list:
        return [self.categorical_column]


def numeric_column(key: str, shape: Any = (1,), default_value: Any = None,
                   dtype: Any = dtypes_lib.float32, normalizer_fn: Any = None) -> NumericColumn:
    """Feature ``key`` as numbers of ``shape`` per example."""
    shape = base.check_shape(shape, key)
    dtype = dtypes_lib.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    default_value = base.check_default_value(shape, default_value, dtype, key)
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    base.assert_key_is_string(key)
    return NumericColumn(key, shape=shape, default_value=default_value, dtype=dtype,
                         normalizer_fn=normalizer_fn)


def _check_embedding_args(dimension: Any, ckpt_to_load_from: Any, tensor_name_in_ckpt: Any,
                          initializer: Any, what: str) -> Any:
    if dimension is None or dimension < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if (ckpt_to_load_from is None) != (tensor_name_in_ckpt is None):
        raise ValueError("Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` or "
                         "none of them.")
    if initializer is not None and not callable(initializer):
        raise ValueError(f"initializer must be callable if specified.{what}")
    if initializer is None:
        initializer = init_ops.truncated_normal_initializer(mean=0.0,
                                                            stddev=1 / math.sqrt(dimension))
    return initializer


def embedding_column(categorical_column: _CategoricalColumn, dimension: int,
                     combiner: str = "mean", initializer: Any = None,
                     ckpt_to_load_from: Any = None, tensor_name_in_ckpt: Any = None,
                     max_norm: Any = None, trainable: bool = True,
                     use_safe_embedding_lookup: bool = True) -> EmbeddingColumn:
    """``categorical_column``'s ids embedded in ``dimension`` floats ('mean', 'sqrtn' or
    'sum' of their rows)."""
    initializer = _check_embedding_args(
        dimension, ckpt_to_load_from, tensor_name_in_ckpt, initializer,
        f" Embedding of column_name: {categorical_column.name}")
    return EmbeddingColumn(categorical_column=categorical_column, dimension=dimension,
                           combiner=combiner, initializer=initializer,
                           ckpt_to_load_from=ckpt_to_load_from,
                           tensor_name_in_ckpt=tensor_name_in_ckpt, max_norm=max_norm,
                           trainable=trainable,
                           use_safe_embedding_lookup=use_safe_embedding_lookup)


def _unwrapped(column: Any) -> Any:
    """The categorical column under weighted and sequence wrappers."""
    while getattr(column, "_wraps_ids", False):
        column = column.categorical_column
    return column


def shared_embedding_columns(categorical_columns: list, dimension: int, combiner: str = "mean",
                             initializer: Any = None,
                             shared_embedding_collection_name: str | None = None,
                             ckpt_to_load_from: Any = None, tensor_name_in_ckpt: Any = None,
                             max_norm: Any = None, trainable: bool = True,
                             use_safe_embedding_lookup: bool = True) -> list:
    """Embedding columns over ``categorical_columns`` (same type and bucket count) that
    share one embedding variable."""
    initializer = _check_embedding_args(dimension, ckpt_to_load_from, tensor_name_in_ckpt,
                                        initializer, "")
    sorted_columns = sorted(categorical_columns, key=lambda x: x.name)
    c0 = sorted_columns[0]
    num_buckets = c0._num_buckets
    if not isinstance(c0, _CategoricalColumn):
        raise ValueError(f"All categorical_columns must be subclasses of _CategoricalColumn. "
                         f"Given: {c0}, of type: {type(c0)}")
    c0 = _unwrapped(c0)
    for c in sorted_columns[1:]:
        c = _unwrapped(c)
        if not isinstance(c, type(c0)):
            raise ValueError(
                "To use shared_embedding_column, all categorical_columns must have the same "
                "type, or be weighted_categorical_column or sequence column of the same type. "
                f"Given column: {c0} of type: {type(c0)} does not match given column: {c} of "
                f"type: {type(c)}")
        if num_buckets != c._num_buckets:
            raise ValueError(
                "To use shared_embedding_column, all categorical_columns must have the same "
                f"number of buckets. ven column: {c0} with buckets: {num_buckets} does  not "
                f"match column: {c} with buckets: {c._num_buckets}")
    if not shared_embedding_collection_name:
        shared_embedding_collection_name = "_".join(c.name for c in sorted_columns)
        shared_embedding_collection_name += "_shared_embedding"
    return [_SharedEmbeddingColumn(
        categorical_column=column, initializer=initializer, dimension=dimension,
        combiner=combiner, shared_embedding_collection_name=shared_embedding_collection_name,
        ckpt_to_load_from=ckpt_to_load_from, tensor_name_in_ckpt=tensor_name_in_ckpt,
        max_norm=max_norm, trainable=trainable,
        use_safe_embedding_lookup=use_safe_embedding_lookup) for column in categorical_columns]


def indicator_column(categorical_column: _CategoricalColumn) -> IndicatorColumn:
    """``categorical_column``'s ids as a multi-hot vector."""
    if not isinstance(categorical_column, _CategoricalColumn):
        raise ValueError(f"Unsupported input type. Input must be a CategoricalColumn. Given: "
                         f"{categorical_column}")
    return IndicatorColumn(categorical_column)
