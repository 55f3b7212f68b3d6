"""``tf.contrib.feature_column`` (TF 1.15): sequence inputs from feature columns —
``sequence_input_layer`` (the sequence columns' [batch, time, n] tensors concatenated,
and their common sequence length), ``concatenate_context_input`` and the sequence
columns, whose numeric one is a v1 ``_SequenceDenseColumn`` here."""

from __future__ import annotations

import collections
from typing import Any

from graphcore.feature_column import sequence
from graphcore.feature_column.base import (
    TensorSequenceLengthPair,
    _LazyBuilder,
    _SequenceDenseColumn,
    normalize_feature_columns,
    verify_static_batch_size_equality,
)
from graphcore.feature_column.sequence import (
    sequence_categorical_column_with_hash_bucket,
    sequence_categorical_column_with_identity,
    sequence_categorical_column_with_vocabulary_file,
    sequence_categorical_column_with_vocabulary_list,
    sequence_dense_tensor,
)
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.ops import array_ops, check_ops, parsing_ops
from graphcore.ops import variable_scope as vs

__all__ = ["concatenate_context_input", "sequence_categorical_column_with_hash_bucket",
           "sequence_categorical_column_with_identity",
           "sequence_categorical_column_with_vocabulary_file",
           "sequence_categorical_column_with_vocabulary_list", "sequence_input_layer",
           "sequence_numeric_column"]


class _SequenceNumericColumn(
        _SequenceDenseColumn,
        collections.namedtuple("_SequenceNumericColumn",
                               ("key", "shape", "default_value", "dtype", "normalizer_fn"))):
    """Sequences of numbers of ``shape`` per step, from a VarLenFeature."""

    @property
    def name(self) -> str:
        return self.key

    @property
    def _parse_example_spec(self) -> dict:
        return {self.key: parsing_ops.VarLenFeature(self.dtype)}

    def _transform_feature(self, inputs: _LazyBuilder) -> Any:
        tensor = inputs.get(self.key)
        if self.normalizer_fn is not None:
            tensor = self.normalizer_fn(tensor)
        return tensor

    @property
    def _variable_shape(self) -> shape_lib.TensorShape:
        return shape_lib.TensorShape(self.shape)

    def _get_sequence_dense_tensor(self, inputs: _LazyBuilder, weight_collections: Any = None,
                                   trainable: Any = None) -> TensorSequenceLengthPair:
        return sequence_dense_tensor(inputs.get(self), self.shape, self.default_value)


def sequence_numeric_column(key: str, shape: Any = (1,), default_value: Any = 0.,
                            dtype: Any = dtypes_lib.float32,
                            normalizer_fn: Any = None) -> _SequenceNumericColumn:
    """Sequences of numbers of ``shape`` per step from feature ``key``."""
    return _SequenceNumericColumn(*sequence.sequence_numeric_column(
        key, shape=shape, default_value=default_value, dtype=dtype,
        normalizer_fn=normalizer_fn))


def _assert_all_equal_and_return(tensors: list, name: str | None = None) -> ops_lib.Tensor:
    with ops_lib.name_scope(name, "assert_all_equal", values=tensors):
        if len(tensors) == 1:
            return tensors[0]
        checks = [check_ops.assert_equal(tensors[0], t) for t in tensors[1:]]
        with ops_lib.control_dependencies(checks):
            return array_ops.identity(tensors[0])


def sequence_input_layer(features: dict, feature_columns: Any, weight_collections: Any = None,
                         trainable: bool = True) -> tuple:
    """([batch, time, sum of the columns' sizes] input, [batch] sequence length): the
    sequence columns' dense sequences (name order) concatenated on the last axis; their
    sequence lengths must agree."""
    feature_columns = normalize_feature_columns(feature_columns)
    for column in feature_columns:
        if not isinstance(column, _SequenceDenseColumn):
            raise ValueError(
                "All feature_columns must be of type _SequenceDenseColumn. You can wrap a "
                "sequence_categorical_column with an embedding_column or indicator_column. "
                f"Given (type {type(column)}): {column}")
    with vs.variable_scope(None, default_name="sequence_input_layer",
                           values=features.values()):
        builder = _LazyBuilder(features)
        outputs, lengths, ordered = [], [], []
        for column in sorted(feature_columns, key=lambda c: c.name):
            ordered.append(column)
            with vs.variable_scope(None, default_name=column._var_scope_name):
                dense, length = column._get_sequence_dense_tensor(
                    builder, weight_collections=weight_collections, trainable=trainable)
                shape = array_ops.shape(dense)
                outputs.append(array_ops.reshape(
                    dense, shape=[shape[0], shape[1], column._variable_shape.num_elements()]))
                lengths.append(length)
        verify_static_batch_size_equality(outputs, ordered)
        verify_static_batch_size_equality(lengths, ordered)
        return array_ops.concat(outputs, -1), _assert_all_equal_and_return(lengths)


def concatenate_context_input(context_input: Any, sequence_input: Any) -> ops_lib.Tensor:
    """``sequence_input`` [batch, time, d0] with ``context_input`` [batch, d1] repeated at
    every step appended: [batch, time, d0 + d1]."""
    checks = [
        check_ops.assert_rank(sequence_input, 3, message="sequence_input must have rank 3",
                              data=[array_ops.shape(sequence_input)]),
        check_ops.assert_type(sequence_input, dtypes_lib.float32,
                              message="sequence_input must have dtype float32; got "
                                      f"{sequence_input.dtype}."),
        check_ops.assert_rank(context_input, 2, message="context_input must have rank 2",
                              data=[array_ops.shape(context_input)]),
        check_ops.assert_type(context_input, dtypes_lib.float32,
                              message="context_input must have dtype float32; got "
                                      f"{context_input.dtype}."),
    ]
    with ops_lib.control_dependencies(checks):
        padded_length = array_ops.shape(sequence_input)[1]
        tiled = array_ops.tile(array_ops.expand_dims(context_input, 1),
                               array_ops.concat([[1], [padded_length], [1]], 0))
    return array_ops.concat([sequence_input, tiled], 2)
