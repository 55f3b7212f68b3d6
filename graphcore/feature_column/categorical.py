"""The categorical feature columns (TF's ``categorical_column_with_*``, ``bucketized_column``,
``weighted_categorical_column`` and ``crossed_column``): each turns its input into a
SparseTensor of int64 ids — hashed (StringToHashBucketFast), looked up in a vocabulary
table, taken as is, bucketized (Bucketize) or crossed (SparseCross with TF's
FingerprintCat64) — and optionally their weights."""

from __future__ import annotations

import collections
from typing import Any

import numpy as np

from graphcore.feature_column import base
from graphcore.feature_column.base import (
    IdWeightPair,
    _CategoricalColumn,
    _DenseColumn,
    _LazyBuilder,
    to_sparse_input_and_drop_ignore_values,
)
from graphcore.feature_column.dense import NumericColumn
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.sparse_tensor import SparseTensor, convert_to_tensor_or_sparse_tensor
from graphcore.lib.io import file_io
from graphcore.ops import (
    array_ops,
    index_table_ops,
    manip_ops,
    math_ops,
    parsing_ops,
    sparse_count_ops,
    string_ops,
)
from graphcore.platform import tf_logging
from graphcore.train.optimizer import init_scope

__all__ = ["bucketized_column", "categorical_column_with_hash_bucket",
           "categorical_column_with_identity", "categorical_column_with_vocabulary_file",
           "categorical_column_with_vocabulary_list", "crossed_column",
           "weighted_categorical_column"]


def _check_dtypes_match(key: str, column_dtype: Any, tensor: Any) -> None:
    if column_dtype.is_integer != tensor.dtype.is_integer:
        raise ValueError(f"Column dtype and SparseTensors dtype must be compatible. key: {key}, "
                         f"column dtype: {column_dtype}, tensor dtype: {tensor.dtype}")


class _KeyedCategorical(_CategoricalColumn):
    """A categorical column reading one feature ``key``: the base feature made sparse
    (dense cells of '' or -1 dropped), then ``_transform_input_tensor``."""

    @property
    def name(self) -> str:
        return self.key

    @property
    def _parse_example_spec(self) -> dict:
        return {self.key: parsing_ops.VarLenFeature(self.dtype)}

    def _transform_feature(self, inputs: _LazyBuilder) -> SparseTensor:
        return self._transform_input_tensor(
            to_sparse_input_and_drop_ignore_values(inputs.get(self.key)))

    def _get_sparse_tensors(self, inputs: _LazyBuilder, weight_collections: Any = None,
                            trainable: Any = None) -> IdWeightPair:
        return IdWeightPair(inputs.get(self), None)

    @property
    def parents(self) -> list:
        return [self.key]


class HashedCategoricalColumn(
        _KeyedCategorical,
        collections.namedtuple("HashedCategoricalColumn", ("key", "hash_bucket_size", "dtype"))):
    """Ids: each value's string (integers printed) hashed into ``hash_bucket_size``."""

    def _transform_input_tensor(self, input_tensor: Any) -> SparseTensor:
        if not isinstance(input_tensor, SparseTensor):
            raise ValueError("SparseColumn input must be a SparseTensor.")
        base.assert_string_or_int(input_tensor.dtype,
                                  prefix=f"column_name: {self.key} input_tensor")
        _check_dtypes_match(self.key, self.dtype, input_tensor)
        values = input_tensor.values
        if self.dtype != dtypes_lib.string:
            values = string_ops.as_string(values)
        ids = string_ops.string_to_hash_bucket_fast(values, self.hash_bucket_size,
                                                    name="lookup")
        return SparseTensor(input_tensor.indices, ids, input_tensor.dense_shape)

    @property
    def _num_buckets(self) -> int:
        return self.hash_bucket_size


class _VocabularyColumn(_KeyedCategorical):
    """Ids from a vocabulary table built where the column is first used (outside control
    flow, named ``<key>_lookup``)."""

    def _transform_input_tensor(self, input_tensor: Any) -> SparseTensor:
        _check_dtypes_match(self.key, self.dtype, input_tensor)
        base.assert_string_or_int(input_tensor.dtype,
                                  prefix=f"column_name: {self.key} input_tensor")
        key_dtype = self.dtype
        if input_tensor.dtype.is_integer:
            key_dtype = dtypes_lib.int64
            input_tensor = math_ops.cast(input_tensor, dtypes_lib.int64)
        with init_scope():
            table = self._make_table(key_dtype, f"{self.key}_lookup")
        return table.lookup(input_tensor)


class VocabularyFileCategoricalColumn(
        _VocabularyColumn,
        collections.namedtuple("VocabularyFileCategoricalColumn",
                               ("key", "vocabulary_file", "vocabulary_size", "num_oov_buckets",
                                "dtype", "default_value", "file_format"))):
    """Ids: each value's line number in ``vocabulary_file``, else ``default_value`` or
    one of ``num_oov_buckets`` hashed ids."""

    def __new__(cls, key: str, vocabulary_file: str, vocabulary_size: int,
                num_oov_buckets: int, dtype: Any, default_value: int,
                file_format: Any = None) -> VocabularyFileCategoricalColumn:
        return super().__new__(cls, key, vocabulary_file, vocabulary_size, num_oov_buckets,
                               dtype, default_value, file_format)

    def _make_table(self, key_dtype: Any, name: str) -> Any:
        if self.file_format == "tfrecord_gzip":
            raise ValueError("tfrecord_gzip vocabulary files are not supported by graphcore's "
                             f"feature columns (column {self.key})")
        return index_table_ops.index_table_from_file(
            vocabulary_file=self.vocabulary_file, num_oov_buckets=self.num_oov_buckets,
            vocab_size=self.vocabulary_size, default_value=self.default_value,
            key_dtype=key_dtype, name=name)

    @property
    def _num_buckets(self) -> int:
        return self.vocabulary_size + self.num_oov_buckets


class VocabularyListCategoricalColumn(
        _VocabularyColumn,
        collections.namedtuple("VocabularyListCategoricalColumn",
                               ("key", "vocabulary_list", "dtype", "default_value",
                                "num_oov_buckets"))):
    """Ids: each value's index in ``vocabulary_list``, else ``default_value`` or one of
    ``num_oov_buckets`` hashed ids."""

    def _make_table(self, key_dtype: Any, name: str) -> Any:
        return index_table_ops.index_table_from_tensor(
            vocabulary_list=tuple(self.vocabulary_list), default_value=self.default_value,
            num_oov_buckets=self.num_oov_buckets, dtype=key_dtype, name=name)

    @property
    def _num_buckets(self) -> int:
        return len(self.vocabulary_list) + self.num_oov_buckets


class IdentityCategoricalColumn(
        _KeyedCategorical,
        collections.namedtuple("IdentityCategoricalColumn",
                               ("key", "number_buckets", "default_value"))):
    """Ids: the integer values themselves; out of [0, num_buckets) they become
    ``default_value`` when one is given."""

    @property
    def _parse_example_spec(self) -> dict:
        return {self.key: parsing_ops.VarLenFeature(dtypes_lib.int64)}

    def _transform_input_tensor(self, input_tensor: Any) -> SparseTensor:
        if not input_tensor.dtype.is_integer:
            raise ValueError(f"Invalid input, not integer. key: {self.key} dtype: "
                             f"{input_tensor.dtype}")
        values = input_tensor.values
        if values.dtype != dtypes_lib.int64:
            values = math_ops.cast(values, dtypes_lib.int64, name="values")
        if self.default_value is not None:
            num_buckets = math_ops.cast(self.number_buckets, dtypes_lib.int64,
                                        name="num_buckets")
            zero = math_ops.cast(0, dtypes_lib.int64, name="zero")
            out_of_range = math_ops.logical_or(values < zero, values >= num_buckets,
                                               name="out_of_range")
            defaults = array_ops.fill(
                dims=array_ops.shape(values),
                value=math_ops.cast(self.default_value, dtypes_lib.int64),
                name="default_values")
            values = math_ops.where_v2(out_of_range, defaults, values)
        return SparseTensor(input_tensor.indices, values, input_tensor.dense_shape)

    @property
    def _num_buckets(self) -> int:
        return self.number_buckets


class WeightedCategoricalColumn(
        _CategoricalColumn,
        collections.namedtuple("WeightedCategoricalColumn",
                               ("categorical_column", "weight_feature_key", "dtype"))):
    """The ids of ``categorical_column`` with weights from feature ``weight_feature_key``."""

    _wraps_ids = True

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_weighted_by_{self.weight_feature_key}"

    @property
    def _parse_example_spec(self) -> dict:
        config = dict(self.categorical_column._parse_example_spec)
        if self.weight_feature_key in config:
            raise ValueError(f"Parse config {config[self.weight_feature_key]} already exists "
                             f"for {self.weight_feature_key}.")
        config[self.weight_feature_key] = parsing_ops.VarLenFeature(self.dtype)
        return config

    @property
    def _num_buckets(self) -> int:
        return self.categorical_column._num_buckets

    def _transform_feature(self, inputs: _LazyBuilder) -> tuple:
        weights = inputs.get(self.weight_feature_key)
        if weights is None:
            raise ValueError(f"Missing weights {self.weight_feature_key}.")
        weights = convert_to_tensor_or_sparse_tensor(weights)
        if self.dtype != weights.dtype.base_dtype:
            raise ValueError(f"Bad dtype, expected {self.dtype}, but got {weights.dtype}.")
        if not isinstance(weights, SparseTensor):
            weights = to_sparse_input_and_drop_ignore_values(weights, ignore_value=0.0)
        if not weights.dtype.is_floating:
            weights = SparseTensor(weights.indices,
                                   math_ops.cast(weights.values, dtypes_lib.float32),
                                   weights.dense_shape)
        return (inputs.get(self.categorical_column), weights)

    def _get_sparse_tensors(self, inputs: _LazyBuilder, weight_collections: Any = None,
                            trainable: Any = None) -> IdWeightPair:
        ids, weights = inputs.get(self)
        return IdWeightPair(ids, weights)

    @property
    def parents(self) -> list:
        return [self.categorical_column, self.weight_feature_key]


def _leaf_keys(cross: CrossedColumn) -> list:
    keys = []
    for key in cross.keys:
        keys.extend(_leaf_keys(key) if isinstance(key, CrossedColumn) else [key])
    return keys


class CrossedColumn(
        _CategoricalColumn,
        collections.namedtuple("CrossedColumn", ("keys", "hash_bucket_size", "hash_key"))):
    """Ids: every combination of its keys' values per example, hashed together
    (SparseCross, FingerprintCat64) into ``hash_bucket_size``."""

    @property
    def name(self) -> str:
        names = [k.name if isinstance(k, base._FeatureColumn) else k for k in _leaf_keys(self)]
        return "_X_".join(sorted(names))

    @property
    def _parse_example_spec(self) -> dict:
        config: dict = {}
        for key in self.keys:
            if isinstance(key, base._FeatureColumn):
                config.update(key._parse_example_spec)
            else:
                config[key] = parsing_ops.VarLenFeature(dtypes_lib.string)
        return config

    def _transform_feature(self, inputs: _LazyBuilder) -> SparseTensor:
        tensors = []
        for key in _leaf_keys(self):
            if isinstance(key, str):
                tensors.append(inputs.get(key))
            elif isinstance(key, _CategoricalColumn):
                pair = key._get_sparse_tensors(inputs)
                if pair.weight_tensor is not None:
                    raise ValueError(
                        "crossed_column does not support weight_tensor, but the given column "
                        f"populates weight_tensor. Given column: {key.name}")
                tensors.append(pair.id_tensor)
            else:
                raise ValueError(f"Unsupported column type. Given: {key}")
        return sparse_count_ops.sparse_cross_hashed(
            inputs=tensors, num_buckets=self.hash_bucket_size, hash_key=self.hash_key)

    @property
    def _num_buckets(self) -> int:
        return self.hash_bucket_size

    def _get_sparse_tensors(self, inputs: _LazyBuilder, weight_collections: Any = None,
                            trainable: Any = None) -> IdWeightPair:
        return IdWeightPair(inputs.get(self), None)

    @property
    def parents(self) -> list:
        return list(self.keys)


class BucketizedColumn(
        _DenseColumn, _CategoricalColumn,
        collections.namedtuple("BucketizedColumn", ("source_column", "boundaries"))):
    """A numeric column's values as bucket indices among ``boundaries``: dense, a one-hot
    per value; categorical, one id per value (offset by the value's position)."""

    @property
    def name(self) -> str:
        return f"{self.source_column.name}_bucketized"

    @property
    def _parse_example_spec(self) -> dict:
        return self.source_column._parse_example_spec

    def _transform_feature(self, inputs: _LazyBuilder) -> Any:
        return manip_ops.bucketize(inputs.get(self.source_column), boundaries=self.boundaries)

    @property
    def _variable_shape(self) -> shape_lib.TensorShape:
        return shape_lib.TensorShape(tuple(self.source_column.shape)
                                     + (len(self.boundaries) + 1,))

    def _get_dense_tensor(self, inputs: _LazyBuilder, weight_collections: Any = None,
                          trainable: Any = None) -> Any:
        return array_ops.one_hot(indices=math_ops.cast(inputs.get(self), dtypes_lib.int64),
                                 depth=len(self.boundaries) + 1, on_value=1., off_value=0.)

    @property
    def _num_buckets(self) -> int:
        return (len(self.boundaries) + 1) * self.source_column.shape[0]

    def _get_sparse_tensors(self, inputs: _LazyBuilder, weight_collections: Any = None,
                            trainable: Any = None) -> IdWeightPair:
        buckets = inputs.get(self)
        batch_size = array_ops.shape(buckets)[0]
        dimension = self.source_column.shape[0]
        rows = array_ops.reshape(
            array_ops.tile(array_ops.expand_dims(math_ops.range(0, batch_size), 1),
                           [1, dimension]), (-1,))
        cols = array_ops.tile(math_ops.range(0, dimension), [batch_size])
        ids = array_ops.reshape(buckets, (-1,)) + (len(self.boundaries) + 1) * cols
        indices = math_ops.cast(array_ops.transpose(array_ops.stack((rows, cols))),
                                dtypes_lib.int64)
        dense_shape = math_ops.cast(array_ops.stack([batch_size, dimension]), dtypes_lib.int64)
        return IdWeightPair(SparseTensor(indices=indices, values=ids, dense_shape=dense_shape),
                            None)

    @property
    def parents(self) -> list:
        return [self.source_column]


def bucketized_column(source_column: NumericColumn, boundaries: Any) -> BucketizedColumn:
    """A column of the bucket (among sorted ``boundaries``) of a numeric column's values."""
    if not isinstance(source_column, NumericColumn):
        raise ValueError(f"source_column must be a column generated with numeric_column(). "
                         f"Given: {source_column}")
    if len(source_column.shape) > 1:
        raise ValueError(f"source_column must be one-dimensional column. Given: "
                         f"{source_column}")
    if not boundaries:
        raise ValueError("boundaries must not be empty.")
    if not isinstance(boundaries, (list, tuple)):
        raise ValueError("boundaries must be a sorted list.")
    for i in range(len(boundaries) - 1):
        if boundaries[i] >= boundaries[i + 1]:
            raise ValueError("boundaries must be a sorted list.")
    return BucketizedColumn(source_column, tuple(boundaries))


def categorical_column_with_hash_bucket(key: str, hash_bucket_size: int,
                                        dtype: Any = dtypes_lib.string) -> HashedCategoricalColumn:
    """Ids from hashing each value of feature ``key`` into ``hash_bucket_size``."""
    if hash_bucket_size is None:
        raise ValueError(f"hash_bucket_size must be set. key: {key}")
    if hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be at least 1. hash_bucket_size: "
                         f"{hash_bucket_size}, key: {key}")
    base.assert_key_is_string(key)
    dtype = dtypes_lib.as_dtype(dtype)
    base.assert_string_or_int(dtype, prefix=f"column_name: {key}")
    return HashedCategoricalColumn(key, hash_bucket_size, dtype)


def categorical_column_with_vocabulary_file(
        key: str, vocabulary_file: str, vocabulary_size: int | None = None,
        num_oov_buckets: int = 0, default_value: int | None = None,
        dtype: Any = dtypes_lib.string) -> VocabularyFileCategoricalColumn:
    """Ids: each value's line in ``vocabulary_file`` (its first ``vocabulary_size``
    lines), else ``default_value`` (-1) or a hashed id among ``num_oov_buckets``."""
    if not vocabulary_file:
        raise ValueError(f"Missing vocabulary_file in {key}.")
    file_format = "tfrecord_gzip" if vocabulary_file.endswith("tfrecord.gz") else None
    if vocabulary_size is None:
        if not file_io.file_exists(vocabulary_file):
            raise ValueError(f"vocabulary_file in {key} does not exist.")
        if file_format is not None:
            raise ValueError("tfrecord_gzip vocabulary files are not supported by graphcore's "
                             f"feature columns (column {key})")
        with file_io.FileIO(vocabulary_file, mode="rb") as f:
            vocabulary_size = sum(1 for _ in f)
        tf_logging.info("vocabulary_size = %d in %s is inferred from the number of elements "
                        "in the vocabulary_file %s.", vocabulary_size, key, vocabulary_file)
    if vocabulary_size < 1:
        raise ValueError(f"Invalid vocabulary_size in {key}.")
    if num_oov_buckets:
        if default_value is not None:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    dtype = dtypes_lib.as_dtype(dtype)
    base.assert_string_or_int(dtype, prefix=f"column_name: {key}")
    base.assert_key_is_string(key)
    return VocabularyFileCategoricalColumn(
        key=key, vocabulary_file=vocabulary_file, vocabulary_size=vocabulary_size,
        num_oov_buckets=0 if num_oov_buckets is None else num_oov_buckets,
        default_value=-1 if default_value is None else default_value, dtype=dtype,
        file_format=file_format)


def categorical_column_with_vocabulary_list(
        key: str, vocabulary_list: Any, dtype: Any = None, default_value: int = -1,
        num_oov_buckets: int = 0) -> VocabularyListCategoricalColumn:
    """Ids: each value's index in ``vocabulary_list``, else ``default_value`` or a hashed
    id among ``num_oov_buckets``."""
    if vocabulary_list is None or len(vocabulary_list) < 1:
        raise ValueError(f"vocabulary_list {vocabulary_list} must be non-empty, column_name: "
                         f"{key}")
    if len(set(vocabulary_list)) != len(vocabulary_list):
        raise ValueError(f"Duplicate keys in vocabulary_list {vocabulary_list}, column_name: "
                         f"{key}")
    vocabulary_dtype = dtypes_lib.as_dtype(np.array(vocabulary_list).dtype)
    if num_oov_buckets:
        if default_value != -1:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    base.assert_string_or_int(vocabulary_dtype, prefix=f"column_name: {key} vocabulary")
    if dtype is None:
        dtype = vocabulary_dtype
    else:
        dtype = dtypes_lib.as_dtype(dtype)
        if dtype.is_integer != vocabulary_dtype.is_integer:
            raise ValueError(f"dtype {dtype} and vocabulary dtype {vocabulary_dtype} do not "
                             f"match, column_name: {key}")
    base.assert_string_or_int(dtype, prefix=f"column_name: {key}")
    base.assert_key_is_string(key)
    return VocabularyListCategoricalColumn(
        key=key, vocabulary_list=tuple(vocabulary_list), dtype=dtype,
        default_value=default_value, num_oov_buckets=num_oov_buckets)


def categorical_column_with_identity(key: str, num_buckets: int,
                                     default_value: int | None = None) -> IdentityCategoricalColumn:
    """Ids: the integer values of feature ``key``, in [0, ``num_buckets``)."""
    if num_buckets < 1:
        raise ValueError(f"num_buckets {num_buckets} < 1, column_name {key}")
    if default_value is not None and (default_value < 0 or default_value >= num_buckets):
        raise ValueError(f"default_value {default_value} not in range [0, {num_buckets}), "
                         f"column_name {key}")
    base.assert_key_is_string(key)
    return IdentityCategoricalColumn(key=key, number_buckets=num_buckets,
                                     default_value=default_value)


def weighted_categorical_column(categorical_column: _CategoricalColumn,
                                weight_feature_key: str,
                                dtype: Any = dtypes_lib.float32) -> WeightedCategoricalColumn:
    """``categorical_column``'s ids weighted by feature ``weight_feature_key``."""
    dtype = None if dtype is None else dtypes_lib.as_dtype(dtype)
    if dtype is None or not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype {dtype} is not convertible to float.")
    return WeightedCategoricalColumn(categorical_column=categorical_column,
                                     weight_feature_key=weight_feature_key, dtype=dtype)


def crossed_column(keys: Any, hash_bucket_size: int, hash_key: int | None = None) -> CrossedColumn:
    """The cross of features (names or categorical columns), hashed into
    ``hash_bucket_size``."""
    if not hash_bucket_size or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be > 1. hash_bucket_size: {hash_bucket_size}")
    if not keys or len(keys) < 2:
        raise ValueError(f"keys must be a list with length > 1. Given: {keys}")
    for key in keys:
        if not isinstance(key, (str, _CategoricalColumn)):
            raise ValueError("Unsupported key type. All keys must be either string, or "
                             f"categorical column except HashedCategoricalColumn. Given: {key}")
        if isinstance(key, HashedCategoricalColumn):
            raise ValueError(
                "categorical_column_with_hash_bucket is not supported for crossing. Hashing "
                "before crossing will increase probability of collision. Instead, use the "
                f"feature name as a string. Given: {key}")
    return CrossedColumn(keys=tuple(keys), hash_bucket_size=hash_bucket_size, hash_key=hash_key)
