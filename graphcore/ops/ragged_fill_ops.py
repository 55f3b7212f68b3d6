"""``tf.ragged_fill_empty_rows`` / ``tf.ragged_fill_empty_rows_grad`` (ops RaggedFillEmptyRows
and its Grad): the rows of a ragged tensor given by value_rowids, each empty one given one
``default_value``, values ordered by row -- SparseFillEmptyRows over row ids. Kernels:
:mod:`graphcore.kernels.ragged_kernels`."""

from __future__ import annotations

import collections
from typing import Any

from graphcore.framework import op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.gradient_registry import RegisterGradient
from graphcore.framework.op_def_library import apply_op

__all__ = ["ragged_fill_empty_rows", "ragged_fill_empty_rows_grad"]

RaggedFillEmptyRows = collections.namedtuple(
    "RaggedFillEmptyRows",
    ["output_value_rowids", "output_values", "empty_row_indicator", "reverse_index_map"])
RaggedFillEmptyRowsGrad = collections.namedtuple("RaggedFillEmptyRowsGrad",
                                                 ["d_values", "d_default_value"])


def _fill_shape(op: ops_lib.Operation) -> list:
    rowids = op.inputs[0].shape.with_rank(1)
    op.inputs[1].shape.with_rank(1)
    op.inputs[2].shape.with_rank(0)
    op.inputs[3].shape.with_rank(0)
    vec = shape_lib.TensorShape([None])
    return [vec, vec, vec, rowids]


def _grad_shape(op: ops_lib.Operation) -> list:
    return [op.inputs[0].shape.with_rank(1), shape_lib.TensorShape([])]


op_registry.register_op("RaggedFillEmptyRows").input("value_rowids: int64").input("values: T") \
    .input("nrows: int64").input("default_value: T").output("output_value_rowids: int64") \
    .output("output_values: T").output("empty_row_indicator: bool") \
    .output("reverse_index_map: int64").attr("T: type").shape_fn(_fill_shape)
op_registry.register_op("RaggedFillEmptyRowsGrad").input("reverse_index_map: int64") \
    .input("grad_values: T").output("d_values: T").output("d_default_value: T") \
    .attr("T: type").shape_fn(_grad_shape)


def ragged_fill_empty_rows(value_rowids: Any, values: Any, nrows: Any, default_value: Any,
                           name: str | None = None) -> RaggedFillEmptyRows:
    """(output_value_rowids, output_values, empty_row_indicator, reverse_index_map)."""
    op = apply_op("RaggedFillEmptyRows", name=name, value_rowids=value_rowids, values=values,
                  nrows=nrows, default_value=default_value)
    return RaggedFillEmptyRows(*op.outputs)


def ragged_fill_empty_rows_grad(reverse_index_map: Any, grad_values: Any,
                                name: str | None = None) -> RaggedFillEmptyRowsGrad:
    """(d_values, d_default_value): the gradients of the filled values routed back."""
    op = apply_op("RaggedFillEmptyRowsGrad", name=name, reverse_index_map=reverse_index_map,
                  grad_values=grad_values)
    return RaggedFillEmptyRowsGrad(*op.outputs)


@RegisterGradient("RaggedFillEmptyRows")
def _ragged_fill_empty_rows_grad(op: ops_lib.Operation, unused_rowids_grad: Any,
                                 output_grad_values: Any, unused_indicator_grad: Any,
                                 unused_map_grad: Any) -> list:
    d_values, d_default_value = ragged_fill_empty_rows_grad(op.outputs[3], output_grad_values)
    return [None, d_values, None, d_default_value]
