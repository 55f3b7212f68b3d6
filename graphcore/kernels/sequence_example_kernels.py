"""CPU kernel of ParseSequenceExampleV2 (:mod:`graphcore.ops.sequence_example_ops`): the
context goes through the Example feature parsing of
:mod:`graphcore.kernels.parsing_kernels`; feature lists give per-step values."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import errors
from graphcore.framework import tensor_shape as shape_lib
from graphcore.kernels.parsing_kernels import (
    _LIST_OF,
    _array,
    _dense,
    _Errors,
    _feature_values,
    _invalid,
    _parse_examples,
    _shape_text,
    _strings,
    _type_name,
)
from graphcore.kernels.registry import KernelContext, register_kernel
from graphcore.protobuf import example_pb2


def _keys(value) -> list[str]:
    return [bytes(k).decode() for k in _strings(value)]


def _steps(example, key: str, dtype: dtypes_lib.DType, name: str) -> list | None:
    """The values of each step of feature list ``key`` (None when the list is absent)."""
    feature_list = example.feature_lists.feature_list.get(key)
    if feature_list is None:
        return None
    steps = []
    for t, step in enumerate(feature_list.feature):
        kind = step.WhichOneof("kind")
        if kind is None:
            steps.append([])
            continue
        if kind != _LIST_OF[dtype]:
            raise _invalid(f"Name: {name}, Feature list: {key}, Index: {t}.  Data types "
                           f"don't match. Expected type: {_type_name(dtype)}")
        steps.append(list(getattr(step, kind).value))
    return steps


def _sparse(examples: list, errs: _Errors, key: str, dtype: dtypes_lib.DType,
            batch: tuple) -> tuple:
    per_example = [_steps(ex, key, dtype, errs.names[b]) or []
                   for b, ex in enumerate(examples)]
    rows, values = [], []
    for b, steps in enumerate(per_example):
        for t, vals in enumerate(steps):
            for k, v in enumerate(vals):
                rows.append(([b] if batch else []) + [t, k])
                values.append(v)
    max_steps = max((len(s) for s in per_example), default=0)
    max_values = max((len(v) for s in per_example for v in s), default=0)
    return (np.asarray(rows, np.int64).reshape(len(rows), len(batch) + 2),
            _array(values, dtype, (-1,)),
            np.asarray(list(batch) + [max_steps, max_values], np.int64))


def _dense_list(examples: list, errs: _Errors, key: str, dtype: dtypes_lib.DType,
                shape: shape_lib.TensorShape, missing_ok: bool, batch: tuple) -> tuple:
    dims = shape.as_list()
    stride = math.prod(dims)
    per_example = []
    for b, ex in enumerate(examples):
        steps = _steps(ex, key, dtype, errs.names[b])
        if steps is None:
            if not missing_ok:
                raise _invalid(f"Name: {errs.names[b]}, Feature list '{key}' is required but "
                               "could not be found.  Did you mean to include it in "
                               "feature_list_dense_missing_assumed_empty or "
                               "feature_list_dense_defaults?")
            steps = []
        total = sum(len(v) for v in steps)
        if stride and total % stride:
            raise _invalid(f"Feature list '{key}' has an unexpected number of values.  Total "
                           f"values size: {total} is not consistent with output shape: "
                           f"{_shape_text([None] + dims)}")
        for t, vals in enumerate(steps):
            if len(vals) != stride:
                raise _invalid(f"Name: {errs.names[b]}, Key: {key}, Index: {t}.  Number of "
                               f"values != expected.  values size: {len(vals)} but output "
                               f"shape: {_shape_text(dims)}")
        per_example.append(steps)
    length = max((len(s) for s in per_example), default=0)
    pad = "" if dtype == dtypes_lib.string else 0
    flat = [v for steps in per_example
            for vals in steps + [[pad] * stride] * (length - len(steps)) for v in vals]
    values = _array(flat, dtype, batch + (length,) + tuple(dims))
    lengths = np.asarray([len(s) for s in per_example], np.int64).reshape(batch)
    return values, lengths


@register_kernel("ParseSequenceExampleV2")
def _parse_sequence_example_v2(ctx: KernelContext):
    context_sparse_types = ctx.attr("context_sparse_types")
    context_dense_types = ctx.attr("Tcontext_dense")
    context_shapes = [shape_lib.TensorShape(s) for s in ctx.attr("context_dense_shapes")]
    list_sparse_types = ctx.attr("feature_list_sparse_types")
    list_dense_types = ctx.attr("feature_list_dense_types")
    list_shapes = [shape_lib.TensorShape(s) for s in ctx.attr("feature_list_dense_shapes")]
    if ctx.attr("context_ragged_value_types") or ctx.attr("feature_list_ragged_value_types"):
        raise errors.UnimplementedError(None, None, "ParseSequenceExampleV2: ragged features "
                                        "are not supported")

    def compute(serialized, debug_name, context_sparse_keys, context_dense_keys,
                context_ragged_keys, feature_list_sparse_keys, feature_list_dense_keys,
                feature_list_ragged_keys, missing_assumed_empty, *context_dense_defaults):
        del context_ragged_keys, feature_list_ragged_keys
        single = np.ndim(serialized) == 0
        if np.ndim(serialized) > 1:
            raise _invalid("Expected serialized to be a scalar or vector, got shape: "
                           f"{list(np.shape(serialized))}")
        examples = _parse_examples(_strings(serialized), example_pb2.SequenceExample)
        names = [bytes(n).decode() for n in _strings(debug_name)] or \
            ["<unknown>"] * len(examples)
        errs = _Errors(single, names)
        batch = () if single else (len(examples),)
        contexts = [SimpleNamespace(features=ex.context) for ex in examples]
        c_idx, c_val, c_shape = [], [], []
        for key, dtype in zip(_keys(context_sparse_keys), context_sparse_types):
            per_example = [_feature_values(c, key, dtype, b, errs) or []
                           for b, c in enumerate(contexts)]
            rows = [([b] if batch else []) + [j] for b, vals in enumerate(per_example)
                    for j in range(len(vals))]
            c_idx.append(np.asarray(rows, np.int64).reshape(len(rows), len(batch) + 1))
            c_val.append(_array([v for vals in per_example for v in vals], dtype, (-1,)))
            c_shape.append(np.asarray(list(batch) + [max(map(len, per_example), default=0)],
                                      np.int64))
        c_dense = [_dense(contexts, errs, key, dtype, shape, np.asarray(default), batch)
                   for key, dtype, shape, default in zip(_keys(context_dense_keys),
                                                         context_dense_types, context_shapes,
                                                         context_dense_defaults)]
        f_sparse = [_sparse(examples, errs, key, dtype, batch)
                    for key, dtype in zip(_keys(feature_list_sparse_keys), list_sparse_types)]
        missing_ok = np.asarray(missing_assumed_empty, dtype=bool).reshape(-1).tolist()
        f_dense = [_dense_list(examples, errs, key, dtype, shape, ok, batch)
                   for key, dtype, shape, ok in zip(_keys(feature_list_dense_keys),
                                                    list_dense_types, list_shapes, missing_ok)]
        return tuple(c_idx + c_val + c_shape + c_dense
                     + [s[0] for s in f_sparse] + [s[1] for s in f_sparse]
                     + [s[2] for s in f_sparse]
                     + [d[0] for d in f_dense] + [d[1] for d in f_dense])

    return compute
