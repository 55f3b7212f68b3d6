"""SequenceExample parsing (TF's parsing_ops): ParseSequenceExampleV2 with
``tf.io.parse_sequence_example`` (a batch) and ``tf.io.parse_single_sequence_example``
(one, also top-level): context features as Example features, feature lists as
VarLenFeatures (SparseTensors [batch, step, value]) or FixedLenSequenceFeatures (dense,
padded to the longest list, with their lengths). Kernel:
:mod:`graphcore.kernels.sequence_example_kernels`."""

from __future__ import annotations

from typing import Any

from graphcore.framework import op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.gradient_registry import NotDifferentiable
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.sparse_tensor import SparseTensor
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops.parsing_ops import (
    FixedLenFeature,
    FixedLenSequenceFeature,
    VarLenFeature,
    _assert_scalar,
    _ParseOpParams,
)

__all__ = ["parse_sequence_example", "parse_single_sequence_example"]

_T = "{float, int64, string}"


def _shape(op: ops_lib.Operation) -> list:
    attrs = op._attrs
    serialized = op._inputs[0].shape
    if serialized.ndims is not None and serialized.ndims > 1:
        raise ValueError(f"Shape must be at most rank 1 but is rank {serialized.ndims} for "
                         f"'{op.name}' (op: 'ParseSequenceExampleV2').")
    rank = serialized.ndims
    n_cs = attrs["Ncontext_sparse"].i
    n_fs = attrs["Nfeature_list_sparse"].i
    n_fd = attrs["Nfeature_list_dense"].i
    context_shapes = [shape_lib.TensorShape(s) for s in attrs["context_dense_shapes"].list.shape]
    list_shapes = [shape_lib.TensorShape(s)
                   for s in attrs["feature_list_dense_shapes"].list.shape]

    def sparse(n: int, extra: int) -> list:
        r = None if rank is None else rank + extra
        return ([shape_lib.TensorShape([None, r])] * n + [shape_lib.TensorShape([None])] * n
                + [shape_lib.TensorShape([r])] * n)

    return (sparse(n_cs, 1) + [serialized.concatenate(s) for s in context_shapes]
            + sparse(n_fs, 2)
            + [serialized.concatenate([None]).concatenate(s) for s in list_shapes]
            + [serialized] * n_fd)


_b = op_registry.register_op("ParseSequenceExampleV2")
for _spec in ("serialized: string", "debug_name: string", "context_sparse_keys: string",
              "context_dense_keys: string", "context_ragged_keys: string",
              "feature_list_sparse_keys: string", "feature_list_dense_keys: string",
              "feature_list_ragged_keys: string",
              "feature_list_dense_missing_assumed_empty: bool",
              "context_dense_defaults: Tcontext_dense"):
    _b.input(_spec)
for _spec in ("context_sparse_indices: Ncontext_sparse * int64",
              "context_sparse_values: context_sparse_types",
              "context_sparse_shapes: Ncontext_sparse * int64",
              "context_dense_values: Tcontext_dense",
              "context_ragged_values: context_ragged_value_types",
              "context_ragged_row_splits: context_ragged_split_types",
              "feature_list_sparse_indices: Nfeature_list_sparse * int64",
              "feature_list_sparse_values: feature_list_sparse_types",
              "feature_list_sparse_shapes: Nfeature_list_sparse * int64",
              "feature_list_dense_values: feature_list_dense_types",
              "feature_list_dense_lengths: Nfeature_list_dense * int64",
              "feature_list_ragged_values: feature_list_ragged_value_types",
              "feature_list_ragged_outer_splits: feature_list_ragged_split_types",
              "feature_list_ragged_inner_splits: feature_list_ragged_split_types"):
    _b.output(_spec)
for _spec in ("Ncontext_sparse: int >= 0 = 0", f"Tcontext_dense: list({_T}) >= 0 = []",
              f"context_sparse_types: list({_T}) >= 0 = []",
              f"context_ragged_value_types: list({_T}) >= 0 = []",
              "context_ragged_split_types: list({int32, int64}) >= 0 = []",
              "context_dense_shapes: list(shape) >= 0 = []",
              "Nfeature_list_sparse: int >= 0 = 0", "Nfeature_list_dense: int >= 0 = 0",
              f"feature_list_dense_types: list({_T}) >= 0 = []",
              f"feature_list_sparse_types: list({_T}) >= 0 = []",
              f"feature_list_ragged_value_types: list({_T}) >= 0 = []",
              "feature_list_ragged_split_types: list({int32, int64}) >= 0 = []",
              "feature_list_dense_shapes: list(shape) >= 0 = []"):
    _b.attr(_spec)
_b.shape_fn(_shape)
NotDifferentiable("ParseSequenceExampleV2")


def _params(features: dict | None, types: tuple) -> _ParseOpParams:
    for key in sorted(features or {}):
        if not isinstance(features[key], types):
            raise ValueError(f"Unsupported {type(features[key]).__name__} {features[key]} "
                             f"for key '{key}'")
    return _ParseOpParams(features)


def _parse_sequence_example_raw(serialized: Any, debug_name: Any, context: _ParseOpParams,
                                feature_list: _ParseOpParams, sequence_features: dict | None,
                                name: str | None = None) -> tuple:
    if not (context.sparse_keys or context.dense_keys or feature_list.sparse_keys
            or feature_list.dense_keys):
        raise ValueError("Must provide at least one feature key.")
    with ops_lib.name_scope(name, "ParseSequenceExample", [serialized]):
        debug_name = [] if debug_name is None else debug_name
        sequence_features = sequence_features or {}
        for key in feature_list.dense_keys:
            if sequence_features[key].default_value is not None:
                raise ValueError(f"Value feature_list.dense_defaults[{key}] must be None")
        serialized = convert_to_tensor(serialized, name="serialized")
        outputs = apply_op(
            "ParseSequenceExampleV2", name=name, serialized=serialized,
            debug_name=debug_name, context_sparse_keys=context.sparse_keys,
            context_dense_keys=context.dense_keys, context_ragged_keys=[],
            feature_list_sparse_keys=feature_list.sparse_keys,
            feature_list_dense_keys=feature_list.dense_keys, feature_list_ragged_keys=[],
            feature_list_dense_missing_assumed_empty=[
                sequence_features[k].allow_missing for k in feature_list.dense_keys],
            context_dense_defaults=context.dense_defaults_vec(),
            Ncontext_sparse=len(context.sparse_keys),
            Nfeature_list_sparse=len(feature_list.sparse_keys),
            Nfeature_list_dense=len(feature_list.dense_keys),
            context_sparse_types=context.sparse_types, context_ragged_value_types=[],
            context_ragged_split_types=[], feature_list_dense_types=feature_list.dense_types,
            feature_list_sparse_types=feature_list.sparse_types,
            feature_list_ragged_value_types=[], feature_list_ragged_split_types=[],
            context_dense_shapes=context.dense_shapes,
            feature_list_dense_shapes=feature_list.dense_shapes).outputs
    outs = list(outputs)
    n_cs, n_cd = len(context.sparse_keys), len(context.dense_keys)
    n_fs, n_fd = len(feature_list.sparse_keys), len(feature_list.dense_keys)

    def take(n: int) -> list:
        taken = outs[:n]
        del outs[:n]
        return taken

    cs = [SparseTensor(*parts) for parts in zip(take(n_cs), take(n_cs), take(n_cs))]
    cd = take(n_cd)
    fs = [SparseTensor(*parts) for parts in zip(take(n_fs), take(n_fs), take(n_fs))]
    fd = take(n_fd)
    lengths = take(n_fd)
    context_output = dict(zip(context.sparse_keys + context.dense_keys, cs + cd))
    feature_list_output = dict(zip(feature_list.sparse_keys + feature_list.dense_keys, fs + fd))
    return context_output, feature_list_output, dict(zip(feature_list.dense_keys, lengths))


def parse_sequence_example(serialized: Any, context_features: dict | None = None,
                           sequence_features: dict | None = None, example_names: Any = None,
                           name: str | None = None) -> tuple:
    """(context, feature lists, feature list lengths) of a batch of serialized
    SequenceExamples: dicts of Tensors and SparseTensors by key."""
    if not (context_features or sequence_features):
        raise ValueError("Both `context_features` and `sequence_features` argument are None, "
                         "but at least one should have values.")
    context = _params(context_features, (VarLenFeature, FixedLenFeature))
    feature_list = _params(sequence_features, (VarLenFeature, FixedLenSequenceFeature))
    with ops_lib.name_scope(name, "ParseSequenceExample", [serialized, example_names]):
        return _parse_sequence_example_raw(serialized, example_names, context, feature_list,
                                           sequence_features, name)


def parse_single_sequence_example(serialized: Any, context_features: dict | None = None,
                                  sequence_features: dict | None = None,
                                  example_name: Any = None,
                                  name: str | None = None) -> tuple:
    """(context, feature lists) of one serialized SequenceExample (a scalar)."""
    if not (context_features or sequence_features):
        raise ValueError("Both context_features and sequence_features are None, but at least "
                         "one should have values.")
    context = _params(context_features, (VarLenFeature, FixedLenFeature))
    feature_list = _params(sequence_features, (VarLenFeature, FixedLenSequenceFeature))
    with ops_lib.name_scope(name, "ParseSingleSequenceExample", [serialized, example_name]):
        with ops_lib.name_scope(name, "ParseSingleExample", [serialized, example_name]):
            serialized = convert_to_tensor(serialized, name="serialized")
            serialized = _assert_scalar(serialized, "serialized")
        return _parse_sequence_example_raw(serialized, example_name, context, feature_list,
                                           sequence_features, name)[:2]
