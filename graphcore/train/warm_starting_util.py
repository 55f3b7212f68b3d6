"""``tf.train.warm_start``: initialize variables of a new graph from a checkpoint of a
previous one (TF's ``warm_starting_util.py``), through ``init_from_checkpoint``, or,
for variables given a ``VocabInfo``, through a LoadAndRemapMatrix initializer that moves
the checkpointed rows (``axis=0``) or columns (``axis=1``) from the old vocabulary's order
to the new one (TF's ``checkpoint_ops._load_and_remap_matrix_initializer``).
"""

from __future__ import annotations

import collections
import logging
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.ops import variable_scope
from graphcore.train import checkpoint_utils

__all__ = ["VocabInfo", "warm_start"]

_log = logging.getLogger("tensorflow")  # tf.logging's logger, as TF logs


class VocabInfo(collections.namedtuple("VocabInfo", [
        "new_vocab", "new_vocab_size", "num_oov_buckets", "old_vocab", "old_vocab_size",
        "backup_initializer", "axis"])):
    """How to warm-start a variable whose rows (``axis=0``) or columns (``axis=1``)
    follow a vocabulary: the new and old vocabulary files (one token per line), the new
    size, OOV buckets appended after it, the old size (-1: the whole file) and the
    initializer of the entries the old vocabulary lacks (default zeros)."""

    def __new__(cls, new_vocab: str, new_vocab_size: int, num_oov_buckets: int,
                old_vocab: str, old_vocab_size: int = -1, backup_initializer: Any = None,
                axis: int = 0):
        if axis not in (0, 1):
            raise ValueError("The only supported values for the axis argument are 0 and 1.  "
                             f"Provided axis: {axis}")
        return super().__new__(cls, new_vocab, new_vocab_size, num_oov_buckets, old_vocab,
                               old_vocab_size, backup_initializer, axis)


def _load_and_remap_matrix(ckpt_path: str, old_tensor_name: str, new_row_vocab_offset: int,
                           num_rows_to_load: int, new_col_vocab_size: int, initializer: Any,
                           old_row_vocab_size: int = -1, old_row_vocab_file: Any = None,
                           new_row_vocab_file: Any = None, old_col_vocab_file: Any = None,
                           new_col_vocab_file: Any = None, num_row_oov_buckets: int = 0,
                           num_col_oov_buckets: int = 0) -> Any:
    """The remapped [rows + row OOV, cols + col OOV] matrix of the new vocabulary's rows
    from ``new_row_vocab_offset`` on (TF's ``checkpoint_ops._load_and_remap_matrix``)."""
    from graphcore.framework.tensor_conversion import convert_to_tensor
    from graphcore.ops import array_ops, checkpoint_ops, math_ops

    if bool(old_row_vocab_file) != bool(new_row_vocab_file):
        raise ValueError("old_row_vocab_file and new_row_vocab_file must both be specified or "
                         f"left unspecified. old_row_vocab_file='{old_row_vocab_file}', "
                         f"new_row_vocab_file='{new_row_vocab_file}'")
    if bool(old_col_vocab_file) != bool(new_col_vocab_file):
        raise ValueError("old_col_vocab_file and new_col_vocab_file must both be specified or "
                         f"left unspecified. old_col_vocab_file='{old_col_vocab_file}', "
                         f"new_col_vocab_file='{new_col_vocab_file}'")
    num_rows_present = num_rows_to_load
    if new_row_vocab_file:
        row_remapping, num_rows_present = checkpoint_ops.generate_vocab_remapping(
            new_vocab_file=new_row_vocab_file, old_vocab_file=old_row_vocab_file,
            new_vocab_offset=new_row_vocab_offset, num_new_vocab=num_rows_to_load,
            old_vocab_size=old_row_vocab_size)
    else:
        row_remapping = math_ops.range(new_row_vocab_offset,
                                       num_rows_to_load + new_row_vocab_offset,
                                       dtype=dtypes_lib.int64)
    col_remapping: Any = []
    num_cols_present = new_col_vocab_size
    if new_col_vocab_file:
        col_remapping, num_cols_present = checkpoint_ops.generate_vocab_remapping(
            new_vocab_file=new_col_vocab_file, old_vocab_file=old_col_vocab_file,
            new_vocab_offset=0, num_new_vocab=new_col_vocab_size)
    init_vals = initializer([num_rows_to_load * new_col_vocab_size
                             - num_rows_present * num_cols_present, 1])
    result = checkpoint_ops.load_and_remap_matrix(
        ckpt_path=ckpt_path, old_tensor_name=old_tensor_name, row_remapping=row_remapping,
        col_remapping=convert_to_tensor(col_remapping, dtype=dtypes_lib.int64),
        initializing_values=init_vals, num_rows=num_rows_to_load, num_cols=new_col_vocab_size)
    if num_row_oov_buckets > 0:
        oov = convert_to_tensor(initializer([num_row_oov_buckets, new_col_vocab_size]))
        result = array_ops.concat([result, oov], 0)
    if num_col_oov_buckets > 0:
        oov = convert_to_tensor(initializer([num_rows_to_load + num_row_oov_buckets,
                                             num_col_oov_buckets]))
        result = array_ops.concat([result, oov], 1)
    return result


def _warm_start_var_with_vocab(var: Any, current_vocab_path: str, current_vocab_size: int,
                               prev_ckpt: Any, prev_vocab_path: str,
                               previous_vocab_size: int = -1, current_oov_buckets: int = 0,
                               prev_tensor_name: str | None = None, initializer: Any = None,
                               axis: int = 0) -> None:
    """Replaces the initializers of ``var`` (a variable, or the shards of a partitioned
    one, each remapping its own rows) by the checkpointed matrix remapped to the new
    vocabulary."""
    from graphcore.ops import init_ops

    if not (current_vocab_path and current_vocab_size and prev_ckpt and prev_vocab_path):
        raise ValueError("Invalid args: Must provide all of [current_vocab_path, "
                         "current_vocab_size, prev_ckpt, prev_vocab_path}.")
    if initializer is None:
        initializer = init_ops.zeros_initializer()
    shards = list(var) if isinstance(var, (list, tuple)) else [var]
    prev_tensor_name = prev_tensor_name or _var_name(shards[0])
    total_rows = sum(v.get_shape().as_list()[0] for v in shards)
    for v in shards:
        v_shape = v.get_shape().as_list()
        if len(v_shape) != 2:
            raise ValueError(f"Expected 2-dim shape, but received: {v_shape}")
        slice_info = v._get_save_slice_info()
        offset = 0
        if slice_info is not None:
            offset = variable_scope._PartitionInfo(
                full_shape=slice_info.full_shape,
                var_offset=slice_info.var_offset).single_offset(v_shape)
        if axis == 0:
            rows, cols = current_vocab_size, v_shape[1]
            files = dict(old_row_vocab_size=previous_vocab_size,
                         old_row_vocab_file=prev_vocab_path,
                         new_row_vocab_file=current_vocab_path)
            row_oov, col_oov = current_oov_buckets, 0
        else:  # only rows may be partitioned: the columns are the new vocabulary
            rows, cols = total_rows, current_vocab_size
            files = dict(old_col_vocab_file=prev_vocab_path,
                         new_col_vocab_file=current_vocab_path,
                         num_col_oov_buckets=current_oov_buckets)
            row_oov, col_oov = 0, current_oov_buckets
        if v_shape[1] != cols + col_oov:
            raise ValueError(f"Expected 2nd dim of shape to be new_col_vocab_size ({cols}) + "
                             f"num_col_oov_buckets ({col_oov}) = {cols + col_oov}, but "
                             f"received shape: {v_shape}")
        if offset + v_shape[0] > rows + row_oov:
            raise ValueError(f"Trying to initialize {v_shape[0]} additional rows after "
                             f"{offset} rows have already been initialized, which would "
                             "exceed expected total row count of new_row_vocab_size "
                             f"({rows}) + num_row_oov_buckets ({row_oov}) = "
                             f"{rows + row_oov}.")
        oov_rows = min(v_shape[0], max(0, offset + v_shape[0] - rows))
        if offset > rows:  # a shard of OOV buckets only
            new_init_val = initializer(v_shape)
        else:
            new_init_val = _load_and_remap_matrix(
                checkpoint_utils._checkpoint_filename(prev_ckpt), prev_tensor_name,
                new_row_vocab_offset=offset, num_rows_to_load=v_shape[0] - oov_rows,
                new_col_vocab_size=cols, initializer=initializer,
                num_row_oov_buckets=oov_rows, **files)
        _assign_initializer(v, new_init_val)


def _assign_initializer(var: Any, value: Any) -> None:
    from graphcore.ops import state_ops

    init_op = state_ops.assign(var, value)
    var._initializer_op = init_op  # the Assign's Tensor, as TF's warm start sets it


def _var_name(var: Any) -> str:
    """The checkpoint name of ``var`` as a Saver keys it: its op name, or for a shard of
    a partitioned variable the full variable's name."""
    info = var._get_save_slice_info() if hasattr(var, "_get_save_slice_info") else None
    return info.full_name if info is not None else var.op.name


def _get_grouped_variables(vars_to_warm_start: Any) -> dict[str, list]:
    if isinstance(vars_to_warm_start, str) or vars_to_warm_start is None:
        list_of_vars = ops_lib.get_collection(ops_lib.GraphKeys.TRAINABLE_VARIABLES,
                                              scope=vars_to_warm_start)
    elif isinstance(vars_to_warm_start, list):
        if all(isinstance(v, str) for v in vars_to_warm_start):
            list_of_vars = []
            for v in vars_to_warm_start:
                list_of_vars += ops_lib.get_collection(ops_lib.GraphKeys.GLOBAL_VARIABLES,
                                                       scope=v)
        elif all(checkpoint_utils._is_variable(v) for v in vars_to_warm_start):
            list_of_vars = vars_to_warm_start
        else:
            raise ValueError("If `vars_to_warm_start` is a list, it must be all `Variable` or "
                             f"all `str`.  Given types are "
                             f"{[type(v) for v in vars_to_warm_start]}")
    else:
        raise ValueError("`vars_to_warm_start must be a `list` or `str`.  Given type is "
                         f"{type(vars_to_warm_start)}")
    grouped: dict[str, list] = {}
    for v in list_of_vars:
        grouped.setdefault(_var_name(v), []).append(v)
    return grouped


def warm_start(ckpt_to_initialize_from: Any, vars_to_warm_start: Any = ".*",
               var_name_to_vocab_info: dict | None = None,
               var_name_to_prev_var_name: dict | None = None) -> None:
    """Makes the initializers of ``vars_to_warm_start`` (a regex over the trainable
    variables, a list of regexes over the global variables, or a list of variables)
    load them from ``ckpt_to_initialize_from``, under their names or those in
    ``var_name_to_prev_var_name``. Call it before building the init op."""
    var_name_to_vocab_info = var_name_to_vocab_info or {}
    grouped_variables = _get_grouped_variables(vars_to_warm_start)
    var_name_to_prev_var_name = var_name_to_prev_var_name or {}
    prev_var_name_used = set()
    vocab_info_used = set()
    vocabless_vars: dict[str, Any] = {}
    for var_name, variable in grouped_variables.items():
        prev_var_name = var_name_to_prev_var_name.get(var_name)
        if prev_var_name:
            prev_var_name_used.add(var_name)
        vocab_info = var_name_to_vocab_info.get(var_name)
        if vocab_info:
            vocab_info_used.add(var_name)
            _log.debug("Warm-starting variable: %s; current_vocab: %s prev_vocab: %s",
                       var_name, vocab_info.new_vocab, vocab_info.old_vocab)
            _warm_start_var_with_vocab(
                variable, current_vocab_path=vocab_info.new_vocab,
                current_vocab_size=vocab_info.new_vocab_size,
                prev_ckpt=ckpt_to_initialize_from, prev_vocab_path=vocab_info.old_vocab,
                previous_vocab_size=vocab_info.old_vocab_size,
                current_oov_buckets=vocab_info.num_oov_buckets,
                prev_tensor_name=prev_var_name, initializer=vocab_info.backup_initializer,
                axis=vocab_info.axis)
            continue
        if not vars_to_warm_start:
            continue
        _log.debug("Warm-starting variable: %s; prev_var_name: %s", var_name,
                   prev_var_name or "Unchanged")
        prev_tensor_name = prev_var_name or var_name
        if prev_tensor_name in vocabless_vars:
            checkpoint_utils.init_from_checkpoint(ckpt_to_initialize_from, vocabless_vars)
            vocabless_vars.clear()
        # The shards of a partitioned variable warm-start together, each from its slice.
        vocabless_vars[prev_tensor_name] = variable[0] if len(variable) == 1 else variable
    if vocabless_vars:
        checkpoint_utils.init_from_checkpoint(ckpt_to_initialize_from, vocabless_vars)
    prev_var_name_not_used = set(var_name_to_prev_var_name) - prev_var_name_used
    if prev_var_name_not_used:
        raise ValueError("You provided the following variables in var_name_to_prev_var_name "
                         f"that were not used: {prev_var_name_not_used}.  Perhaps you "
                         "misspelled them?  Here is the list of viable variable names: "
                         f"{grouped_variables.keys()}")
    vocab_info_not_used = set(var_name_to_vocab_info) - vocab_info_used
    if vocab_info_not_used:
        raise ValueError("You provided the following variables in var_name_to_vocab_info that "
                         f"were not used: {vocab_info_not_used}.  Perhaps you misspelled them?"
                         f"  Here is the list of viable variable names: "
                         f"{grouped_variables.keys()}")
