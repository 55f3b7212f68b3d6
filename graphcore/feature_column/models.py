"""The models over feature columns (TF's v1 ``input_layer`` and ``linear_model``) and
``make_parse_example_spec``: the columns, in name order, each under its own variable
scope, so that variables are named as TF names them (``input_layer/<col>/...``,
``linear_model/<col>/weights``, ``linear_model/bias_weights``)."""

from __future__ import annotations

from typing import Any

from graphcore.feature_column.base import (
    _CategoricalColumn,
    _DenseColumn,
    _FeatureColumn,
    _LazyBuilder,
    normalize_feature_columns,
    verify_static_batch_size_equality,
)
from graphcore.framework import ops as ops_lib
from graphcore.ops import array_ops, embedding_ops, init_ops, math_ops, nn_ops, sparse_ops
from graphcore.ops import variable_scope as vs
from graphcore.ops.variables import PartitionedVariable

__all__ = ["input_layer", "linear_model", "make_parse_example_spec"]

_GLOBAL = ops_lib.GraphKeys.GLOBAL_VARIABLES
_MODEL = ops_lib.GraphKeys.MODEL_VARIABLES


def _model_collections(weight_collections: Any) -> list:
    collections = list(weight_collections or [])
    for key in (_GLOBAL, _MODEL):
        if key not in collections:
            collections.append(key)
    return collections


def _last_part(name: str) -> str:
    return name.rsplit("/", 1)[-1]


def input_layer(features: dict, feature_columns: Any, weight_collections: Any = None,
                trainable: bool = True, cols_to_vars: dict | None = None,
                cols_to_output_tensors: dict | None = None) -> ops_lib.Tensor:
    """The dense tensors of ``feature_columns`` (all dense columns), each flattened to
    [batch, n], concatenated in the columns' name order."""
    feature_columns = normalize_feature_columns(feature_columns)
    for column in feature_columns:
        if not isinstance(column, _DenseColumn):
            raise ValueError(
                "Items of feature_columns must be a _DenseColumn. You can wrap a categorical "
                f"column with an embedding_column or indicator_column. Given: {column}")
    weight_collections = _model_collections(weight_collections)
    with vs.variable_scope(None, default_name="input_layer", values=features.values()):
        builder = _LazyBuilder(features)
        outputs, ordered = [], []
        for column in sorted(feature_columns, key=lambda c: c.name):
            ordered.append(column)
            with vs.variable_scope(None, default_name=column._var_scope_name):
                tensor = column._get_dense_tensor(builder, weight_collections=weight_collections,
                                                  trainable=trainable)
                num_elements = column._variable_shape.num_elements()
                batch_size = array_ops.shape(tensor)[0]
                output = array_ops.reshape(tensor, shape=(batch_size, num_elements))
                outputs.append(output)
                if cols_to_vars is not None:
                    cols_to_vars[column] = ops_lib.get_collection(
                        _GLOBAL, scope=vs.get_variable_scope().name)
                if cols_to_output_tensors is not None:
                    cols_to_output_tensors[column] = output
        verify_static_batch_size_equality(outputs, ordered)
        return array_ops.concat(outputs, 1)


def _weighted_sum(column: Any, builder: _LazyBuilder, weight: Any, sparse_combiner: str,
                  weight_collections: list, trainable: bool) -> ops_lib.Tensor:
    """One column's [batch, units] term of a linear model."""
    if isinstance(column, _CategoricalColumn):
        pair = column._get_sparse_tensors(builder, weight_collections=weight_collections,
                                          trainable=trainable)
        ids = sparse_ops.sparse_reshape(pair.id_tensor,
                                        [array_ops.shape(pair.id_tensor)[0], -1])
        weights = pair.weight_tensor
        if weights is not None:
            weights = sparse_ops.sparse_reshape(weights, [array_ops.shape(weights)[0], -1])
        return embedding_ops.safe_embedding_lookup_sparse(
            weight, ids, sparse_weights=weights, combiner=sparse_combiner,
            name="weighted_sum")
    tensor = column._get_dense_tensor(builder, weight_collections=weight_collections,
                                      trainable=trainable)
    num_elements = column._variable_shape.num_elements()
    tensor = array_ops.reshape(tensor, shape=(array_ops.shape(tensor)[0], num_elements))
    return math_ops.matmul(tensor, weight, name="weighted_sum")


def linear_model(features: dict, feature_columns: Any, units: int = 1,
                 sparse_combiner: str = "sum", weight_collections: Any = None,
                 trainable: bool = True, cols_to_vars: dict | None = None) -> ops_lib.Tensor:
    """A [batch, units] linear prediction: per column a ``weights`` variable (one row per
    bucket of a categorical column, combined by ``sparse_combiner``; one per element of a
    dense one), summed, plus ``bias_weights``."""
    with vs.variable_scope(None, "linear_model") as model_scope:
        model_name = _last_part(model_scope.name)
    feature_columns = normalize_feature_columns(feature_columns)
    weight_collections = _model_collections(weight_collections)
    layer_names = {}
    # TF names each column's layer in the caller's scope first, then builds it inside
    # the model's scope.
    for column in sorted(feature_columns, key=lambda c: c.name):
        with vs.variable_scope(None, default_name=column._var_scope_name) as column_scope:
            layer_names[column] = _last_part(column_scope.name)
    found: dict = {}
    with ops_lib.name_scope(model_name):
        with vs.variable_scope(model_name):
            for column in feature_columns:
                if not isinstance(column, (_DenseColumn, _CategoricalColumn)):
                    raise ValueError("Items of feature_columns must be either a _DenseColumn "
                                     f"or _CategoricalColumn. Given: {column}")
            builder = _LazyBuilder(features)
            sums, ordered = [], []
            for column in sorted(feature_columns, key=lambda c: layer_names[c]):
                ordered.append(column)
                with vs.variable_scope(None, default_name=layer_names[column]) as scope:
                    if isinstance(column, _CategoricalColumn):
                        shape = (column._num_buckets, units)
                    else:
                        shape = [column._variable_shape.num_elements(), units]
                    weight = vs.get_variable("weights", shape=shape,
                                             initializer=init_ops.zeros_initializer(),
                                             trainable=trainable,
                                             collections=weight_collections)
                    sums.append(_weighted_sum(column, builder, weight, sparse_combiner,
                                              weight_collections, trainable))
                    found[column] = ops_lib.get_collection(_GLOBAL, scope=scope.name)
            verify_static_batch_size_equality(sums, ordered)
            no_bias = math_ops.add_n(sums, name="weighted_sum_no_bias")
            bias = vs.get_variable("bias_weights", shape=[units],
                                   initializer=init_ops.zeros_initializer(),
                                   trainable=trainable, collections=weight_collections)
            predictions = nn_ops.bias_add(no_bias, bias, name="weighted_sum")
            # TF lists the bias layer's first variable: one partition of a partitioned one.
            found["bias"] = [bias] if not isinstance(bias, PartitionedVariable) else \
                [list(bias)[0]]
    if cols_to_vars is not None:
        cols_to_vars.update(found)
    return predictions


def make_parse_example_spec(feature_columns: Any) -> dict:
    """{feature key: FixedLenFeature or VarLenFeature} for ``tf.parse_example``, the union
    of the columns' parse specs."""
    result: dict = {}
    for column in feature_columns:
        if not isinstance(column, _FeatureColumn):
            raise ValueError(f"All feature_columns must be _FeatureColumn instances. Given: "
                             f"{column}")
        config = column._parse_example_spec
        for key, value in config.items():
            if key in result and value != result[key]:
                raise ValueError(f"feature_columns contain different parse_spec for key {key}. "
                                 f"Given {value} and {result[key]}")
        result.update(config)
    return result
