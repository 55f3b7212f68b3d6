"""Vocabulary index tables, as TF's ``lookup_ops.index_table_from_tensor`` and
``index_table_from_file`` build them (TF1's ``tf.contrib.lookup``; the feature columns'
vocabulary lookups): a StaticHashTable from each key to its position, and with
``num_oov_buckets`` the keys it lacks hashed (Fingerprint64 of the key's string) into ids
after the vocabulary; and the reverse tables from ids to strings
(``index_to_string_table_from_tensor`` / ``_from_file``)."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, math_ops
from graphcore.ops.lookup_ops import (
    KeyValueTensorInitializer,
    StaticHashTable,
    StaticVocabularyTable,
    TextFileIndex,
    TextFileInitializer,
)

__all__ = ["index_table_from_file", "index_table_from_tensor",
           "index_to_string_table_from_file", "index_to_string_table_from_tensor"]


class _HashBucketsTable(StaticVocabularyTable):
    """A vocabulary table over an already built StaticHashTable (TF1's
    IdTableWithHashBuckets with the fast hasher): the same lookup as
    StaticVocabularyTable's."""

    def __init__(self, table: StaticHashTable, num_oov_buckets: int, key_dtype: Any):
        if num_oov_buckets <= 0:
            raise ValueError("oov_buckets must be > 0.")
        self._table = table
        self._num_oov_buckets = num_oov_buckets
        self._table_name = table.name.split("/")[-1]
        key_dtype = dtypes_lib.as_dtype(key_dtype)
        if table.key_dtype.is_integer != key_dtype.is_integer:
            raise TypeError(f"Invalid key dtype, expected {table.key_dtype} but got "
                            f"{key_dtype}.")
        super(StaticVocabularyTable, self).__init__(key_dtype, dtypes_lib.int64)


def index_table_from_tensor(vocabulary_list: Any, num_oov_buckets: int = 0,
                            default_value: int = -1, hasher_spec: Any = None,
                            dtype: Any = dtypes_lib.string, name: str | None = None) -> Any:
    """A table mapping each string or integer of ``vocabulary_list`` to its index; other
    keys map to ``default_value`` or, with ``num_oov_buckets``, to a hashed id after the
    vocabulary."""
    if vocabulary_list is None:
        raise ValueError("`vocabulary_list` must be specified.")
    if num_oov_buckets < 0:
        raise ValueError(f"`num_oov_buckets` must be greater or equal than 0, got "
                         f"{num_oov_buckets}.")
    dtype = dtypes_lib.as_dtype(dtype)
    if not dtype.is_integer and dtype != dtypes_lib.string:
        raise TypeError(f"`dtype` must either be integer or string, got {dtype}.")
    _check_hasher(hasher_spec)
    with ops_lib.name_scope(name, "string_to_index"):
        keys = convert_to_tensor(vocabulary_list)
        if keys.dtype.is_integer != dtype.is_integer:
            raise ValueError(f"Invalid `dtype`: Expected {'integer' if dtype.is_integer else 'non-integer'}, "
                             f"got {keys.dtype}.")
        if not dtype.is_integer and keys.dtype.base_dtype != dtype:
            raise ValueError(f"Invalid `dtype`: Expected {dtype}, got {keys.dtype}.")
        values = math_ops.cast(math_ops.range(array_ops.size(keys)), dtypes_lib.int64)
        with ops_lib.name_scope(None, "hash_table"):
            if keys.dtype.is_integer and keys.dtype != dtypes_lib.int64:
                keys = math_ops.cast(keys, dtypes_lib.int64)
            init = KeyValueTensorInitializer(keys, values, keys.dtype.base_dtype,
                                             dtypes_lib.int64, name="table_init")
            table = StaticHashTable(init, default_value)
        if num_oov_buckets:
            table = _HashBucketsTable(table, num_oov_buckets, dtype)
        return table


def index_table_from_file(vocabulary_file: Any = None, num_oov_buckets: int = 0,
                          vocab_size: int | None = None, default_value: int = -1,
                          hasher_spec: Any = None, key_dtype: Any = dtypes_lib.string,
                          name: str | None = None,
                          key_column_index: int = TextFileIndex.WHOLE_LINE,
                          value_column_index: int = TextFileIndex.LINE_NUMBER,
                          delimiter: str = "\t") -> Any:
    """A table mapping each line (or column ``key_column_index``) of ``vocabulary_file``
    to its line number; other keys map to ``default_value`` or, with
    ``num_oov_buckets``, to a hashed id after the vocabulary."""
    if vocabulary_file is None or (isinstance(vocabulary_file, str) and not vocabulary_file):
        raise ValueError("`vocabulary_file` must be specified and must not be empty.")
    if num_oov_buckets < 0:
        raise ValueError(f"num_oov_buckets must be greater or equal than 0, got "
                         f"{num_oov_buckets}.")
    if vocab_size is not None and vocab_size < 1:
        raise ValueError(f"`vocab_size` must be greater than 0, got {vocab_size} for "
                         f"vocabulary_file: {vocabulary_file}.")
    key_dtype = dtypes_lib.as_dtype(key_dtype)
    if not key_dtype.is_integer and key_dtype != dtypes_lib.string:
        raise TypeError(f"Dtype for `keys` should be either integer or string, got "
                        f"{key_dtype}.")
    _check_hasher(hasher_spec)
    with ops_lib.name_scope(name, "string_to_index"):
        with ops_lib.name_scope(None, "hash_table"):
            init = TextFileInitializer(
                vocabulary_file, dtypes_lib.int64 if key_dtype.is_integer else key_dtype,
                key_column_index, dtypes_lib.int64, value_column_index, vocab_size=vocab_size,
                delimiter=delimiter, name="table_init")
            table = StaticHashTable(init, default_value)
        if num_oov_buckets:
            table = _HashBucketsTable(table, num_oov_buckets, key_dtype)
        return table


def index_to_string_table_from_tensor(vocabulary_list: Any, default_value: Any = "UNK",
                                      name: str | None = None) -> StaticHashTable:
    """A table mapping each int64 index to its string of ``vocabulary_list``; other
    indices map to ``default_value``."""
    if vocabulary_list is None:
        raise ValueError("`vocabulary_list` argument must be specified.")
    with ops_lib.name_scope(name, "index_to_string"):
        vocabulary_list = convert_to_tensor(vocabulary_list, dtypes_lib.string)
        keys = math_ops.cast(math_ops.range(array_ops.size(vocabulary_list)),
                             dtypes_lib.int64)
        init = KeyValueTensorInitializer(keys, vocabulary_list, dtypes_lib.int64,
                                         dtypes_lib.string, name="table_init")
        return StaticHashTable(init, default_value)


def index_to_string_table_from_file(vocabulary_file: Any, vocab_size: int | None = None,
                                    default_value: Any = "UNK", name: str | None = None,
                                    key_column_index: int = TextFileIndex.LINE_NUMBER,
                                    value_column_index: int = TextFileIndex.WHOLE_LINE,
                                    delimiter: str = "\t") -> StaticHashTable:
    """A table mapping each line number of ``vocabulary_file`` to its line (or column
    ``value_column_index``); other indices map to ``default_value``."""
    if vocabulary_file is None or (isinstance(vocabulary_file, str) and not vocabulary_file):
        raise ValueError("`vocabulary_file` must be specified and must not be empty.")
    if vocab_size is not None and vocab_size < 1:
        raise ValueError(f"`vocab_size` must be greater than 0, got {vocab_size}.")
    with ops_lib.name_scope(name, "index_to_string"):
        init = TextFileInitializer(vocabulary_file, dtypes_lib.int64, key_column_index,
                                   dtypes_lib.string, value_column_index,
                                   vocab_size=vocab_size, delimiter=delimiter,
                                   name="table_init")
        return StaticHashTable(init, default_value)


def _check_hasher(hasher_spec: Any) -> None:
    # TF's default FastHashSpec (StringToHashBucketFast) is the only hasher here.
    if hasher_spec is not None and getattr(hasher_spec, "hasher", "fasthash") != "fasthash":
        raise ValueError(f"Unsupported hasher_spec {hasher_spec}: graphcore hashes "
                         "out-of-vocabulary keys with the fast (Fingerprint64) hasher only")
