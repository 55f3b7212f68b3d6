"""Checkpoint remapping ops (TF's ``checkpoint_ops.cc``) behind warm-starting with new
vocabularies: GenerateVocabRemapping (for each new vocabulary line, its line in the old
vocabulary file, or -1) and LoadAndRemapMatrix (a checkpointed matrix with its rows and
columns moved by such remappings, the missing cells taken in order from
``initializing_values``). Kernels: :mod:`graphcore.kernels.checkpoint_remap_kernels`."""

from __future__ import annotations

from typing import Any

from graphcore.framework import op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.gradient_registry import NotDifferentiable
from graphcore.framework.op_def_library import apply_op

__all__: list[str] = []


def _remapping_shape(op: ops_lib.Operation) -> list:
    for t in op._inputs:
        t.shape.assert_has_rank(0)
    return [shape_lib.TensorShape([op.get_attr("num_new_vocab")]), shape_lib.TensorShape([])]


def _load_and_remap_shape(op: ops_lib.Operation) -> list:
    op._inputs[0].shape.assert_has_rank(0)
    op._inputs[1].shape.assert_has_rank(0)
    op._inputs[2].shape.with_rank(1)
    op._inputs[3].shape.with_rank(1)
    return [shape_lib.TensorShape([op.get_attr("num_rows"), op.get_attr("num_cols")])]


op_registry.register_op("GenerateVocabRemapping").input("new_vocab_file: string") \
    .input("old_vocab_file: string").output("remapping: int64").output("num_present: int32") \
    .attr("new_vocab_offset: int >= 0").attr("num_new_vocab: int >= 0") \
    .attr("old_vocab_size: int >= -1 = -1").shape_fn(_remapping_shape)
op_registry.register_op("LoadAndRemapMatrix").input("ckpt_path: string") \
    .input("old_tensor_name: string").input("row_remapping: int64") \
    .input("col_remapping: int64").input("initializing_values: float") \
    .output("output_matrix: float").attr("num_rows: int >= 0").attr("num_cols: int >= 1") \
    .attr("max_rows_in_memory: int = -1").stateful().shape_fn(_load_and_remap_shape)
NotDifferentiable("GenerateVocabRemapping")
NotDifferentiable("LoadAndRemapMatrix")


def generate_vocab_remapping(new_vocab_file: Any, old_vocab_file: Any, new_vocab_offset: int,
                             num_new_vocab: int, old_vocab_size: int = -1,
                             name: str | None = None) -> tuple:
    """(remapping, num_present): the old line of each of the ``num_new_vocab`` new
    vocabulary lines from ``new_vocab_offset`` (-1 when absent), and how many exist."""
    op = apply_op("GenerateVocabRemapping", name=name, new_vocab_file=new_vocab_file,
                  old_vocab_file=old_vocab_file, new_vocab_offset=new_vocab_offset,
                  num_new_vocab=num_new_vocab, old_vocab_size=old_vocab_size)
    return op.outputs[0], op.outputs[1]


def load_and_remap_matrix(ckpt_path: Any, old_tensor_name: Any, row_remapping: Any,
                          col_remapping: Any, initializing_values: Any, num_rows: int,
                          num_cols: int, max_rows_in_memory: int = -1,
                          name: str | None = None) -> ops_lib.Tensor:
    """The [num_rows, num_cols] matrix whose row i is old row ``row_remapping[i]`` (and
    column j old column ``col_remapping[j]``, all columns when empty), missing cells
    filled in row-major order from ``initializing_values``."""
    return apply_op("LoadAndRemapMatrix", name=name, ckpt_path=ckpt_path,
                    old_tensor_name=old_tensor_name, row_remapping=row_remapping,
                    col_remapping=col_remapping, initializing_values=initializing_values,
                    num_rows=num_rows, num_cols=num_cols,
                    max_rows_in_memory=max_rows_in_memory).outputs[0]
