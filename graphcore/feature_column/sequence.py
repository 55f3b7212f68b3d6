"""The sequence feature columns (TF's ``sequence_numeric_column`` and
``sequence_categorical_column_with_*``): per example a sequence of values rather than
one. The categorical ones wrap a categorical column and give [batch, time, n] ids, for
an ``embedding_column`` / ``indicator_column`` to turn into a sequence
(``_get_sequence_dense_tensor``); ``input_layer`` rejects them, as TF does."""

from __future__ import annotations

import collections
from typing import Any

from graphcore.feature_column import base, categorical
from graphcore.feature_column.base import (
    IdWeightPair,
    TensorSequenceLengthPair,
    _CategoricalColumn,
    _LazyBuilder,
)
from graphcore.feature_column.dense import sequence_length_from_sparse_tensor
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.ops import array_ops, math_ops, parsing_ops, sparse_ops

__all__ = ["sequence_categorical_column_with_hash_bucket",
           "sequence_categorical_column_with_identity",
           "sequence_categorical_column_with_vocabulary_file",
           "sequence_categorical_column_with_vocabulary_list", "sequence_numeric_column"]


class SequenceCategoricalColumn(
        _CategoricalColumn,
        collections.namedtuple("SequenceCategoricalColumn", ("categorical_column",))):
    """A categorical column over sequences: its ids reshaped to [batch, time, n]."""

    _is_sequence = True
    _wraps_ids = True

    @property
    def name(self) -> str:
        return self.categorical_column.name

    @property
    def _parse_example_spec(self) -> dict:
        return self.categorical_column._parse_example_spec

    def _transform_feature(self, inputs: _LazyBuilder) -> Any:
        return self.categorical_column._transform_feature(inputs)

    @property
    def _num_buckets(self) -> int:
        return self.categorical_column._num_buckets

    def _get_sparse_tensors(self, inputs: _LazyBuilder, weight_collections: Any = None,
                            trainable: Any = None) -> IdWeightPair:
        pair = self.categorical_column._get_sparse_tensors(inputs)
        shape = array_ops.shape(pair.id_tensor)
        target = [shape[0], shape[1], math_ops.reduce_prod(shape[2:])]
        ids = sparse_ops.sparse_reshape(pair.id_tensor, target)
        weights = pair.weight_tensor
        if weights is not None:
            weights = sparse_ops.sparse_reshape(weights, target)
        return IdWeightPair(ids, weights)

    @property
    def parents(self) -> list:
        return [self.categorical_column]


class SequenceNumericColumn(
        collections.namedtuple("SequenceNumericColumn",
                               ("key", "shape", "default_value", "dtype", "normalizer_fn"))):
    """Sequences of numbers of ``shape`` per step (parsed as a VarLenFeature). Like TF's,
    it is no ``_FeatureColumn``: ``make_parse_example_spec`` and ``input_layer`` reject
    it; its dense sequence comes from ``_get_sequence_dense_tensor``."""

    @property
    def name(self) -> str:
        return self.key

    @property
    def parse_example_spec(self) -> dict:
        return {self.key: parsing_ops.VarLenFeature(self.dtype)}

    @property
    def variable_shape(self) -> shape_lib.TensorShape:
        return shape_lib.TensorShape(self.shape)

    @property
    def parents(self) -> list:
        return [self.key]

    def _get_sequence_dense_tensor(self, inputs: _LazyBuilder, weight_collections: Any = None,
                                   trainable: Any = None) -> TensorSequenceLengthPair:
        """[batch, time, *shape] values (missing ones ``default_value``) and lengths."""
        sp_tensor = inputs.get(self.key)
        if self.normalizer_fn is not None:
            sp_tensor = self.normalizer_fn(sp_tensor)
        return sequence_dense_tensor(sp_tensor, self.shape, self.default_value)


def sequence_dense_tensor(sp_tensor: Any, shape: tuple,
                          default_value: Any) -> TensorSequenceLengthPair:
    """A sequence numeric column's [batch, time, *shape] dense values and sequence
    lengths from its SparseTensor."""
    variable_shape = shape_lib.TensorShape(shape)
    dense = sparse_ops.sparse_tensor_to_dense(sp_tensor, default_value=default_value)
    dense_shape = array_ops.concat([array_ops.shape(dense)[:1], [-1], list(shape)], axis=0)
    dense = array_ops.reshape(dense, shape=dense_shape)
    num_elements = variable_shape.num_elements() if sp_tensor.shape.ndims == 2 else 1
    return TensorSequenceLengthPair(
        dense, sequence_length_from_sparse_tensor(sp_tensor, num_elements=num_elements))


def sequence_numeric_column(key: str, shape: Any = (1,), default_value: Any = 0.,
                            dtype: Any = dtypes_lib.float32,
                            normalizer_fn: Any = None) -> SequenceNumericColumn:
    """Sequences of numbers of ``shape`` per step from feature ``key``."""
    shape = base.check_shape(shape, key)
    dtype = dtypes_lib.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    return SequenceNumericColumn(key, shape=shape, default_value=default_value, dtype=dtype,
                                 normalizer_fn=normalizer_fn)


def sequence_categorical_column_with_identity(key: str, num_buckets: int,
                                              default_value: int | None = None) -> Any:
    """Sequences of integer ids (``categorical_column_with_identity``'s)."""
    return SequenceCategoricalColumn(categorical.categorical_column_with_identity(
        key=key, num_buckets=num_buckets, default_value=default_value))


def sequence_categorical_column_with_hash_bucket(key: str, hash_bucket_size: int,
                                                 dtype: Any = dtypes_lib.string) -> Any:
    """Sequences of hashed ids (``categorical_column_with_hash_bucket``'s)."""
    return SequenceCategoricalColumn(categorical.categorical_column_with_hash_bucket(
        key=key, hash_bucket_size=hash_bucket_size, dtype=dtype))


def sequence_categorical_column_with_vocabulary_file(
        key: str, vocabulary_file: str, vocabulary_size: int | None = None,
        num_oov_buckets: int = 0, default_value: int | None = None,
        dtype: Any = dtypes_lib.string) -> Any:
    """Sequences of vocabulary-file ids (``categorical_column_with_vocabulary_file``'s)."""
    return SequenceCategoricalColumn(categorical.categorical_column_with_vocabulary_file(
        key=key, vocabulary_file=vocabulary_file, vocabulary_size=vocabulary_size,
        num_oov_buckets=num_oov_buckets, default_value=default_value, dtype=dtype))


def sequence_categorical_column_with_vocabulary_list(
        key: str, vocabulary_list: Any, dtype: Any = None, default_value: int = -1,
        num_oov_buckets: int = 0) -> Any:
    """Sequences of vocabulary-list ids (``categorical_column_with_vocabulary_list``'s)."""
    return SequenceCategoricalColumn(categorical.categorical_column_with_vocabulary_list(
        key=key, vocabulary_list=vocabulary_list, dtype=dtype, default_value=default_value,
        num_oov_buckets=num_oov_buckets))
