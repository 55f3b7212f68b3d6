"""CPU kernels of :mod:`graphcore.ops.checkpoint_ops`: vocabulary remappings from text
files (one token per line, as TF's text-file lookup tables read them) and the remapped
load of a checkpointed float matrix."""

from __future__ import annotations

from typing import Any

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.lookup_kernels import vocab_lines
from graphcore.kernels.registry import KernelContext, register_kernel
from graphcore.lib.io import checkpoint_format


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _text(value: Any) -> str:
    value = np.asarray(value, dtype=object)
    item = value.reshape(-1)[0] if value.size else b""
    return item.decode("utf-8", "surrogateescape") if isinstance(item, bytes) else str(item)


@register_kernel("GenerateVocabRemapping")
def _generate_vocab_remapping(ctx: KernelContext):
    attr = ctx.node_def.attr
    offset, num_new = attr["new_vocab_offset"].i, attr["num_new_vocab"].i
    old_size = attr["old_vocab_size"].i

    def compute(new_vocab_file, old_vocab_file):
        if np.ndim(new_vocab_file) != 0:
            raise _invalid("new_vocab_file should be a single string, but got "
                           f"{list(np.shape(new_vocab_file))}")
        new_name = _text(new_vocab_file)
        if not new_name:
            raise _invalid("new vocab filename cannot be empty.")
        new_vocab = vocab_lines(new_name)
        if offset + num_new > len(new_vocab):
            raise _invalid("lookup table size must be larger than last new vocab entry's line")
        old_name = _text(old_vocab_file)
        if not old_name:
            raise _invalid("new vocab filename cannot be empty.")
        old_ids: dict[str, int] = {}
        for i, token in enumerate(vocab_lines(old_name, old_size)):
            if token in old_ids:
                raise _invalid(f"HashTable has different value for same key. Key {token} has "
                               f"{old_ids[token]} and trying to add value {i}")
            old_ids[token] = i
        remapping = np.array([old_ids.get(t, -1) for t in new_vocab[offset:offset + num_new]],
                             np.int64)
        return remapping, np.int32(np.count_nonzero(remapping != -1))

    return compute


def _remap_to_map(remapping: np.ndarray) -> tuple[np.ndarray, dict[int, int]]:
    present = remapping >= 0
    old_to_new: dict[int, int] = {}
    for new_id, old_id in enumerate(remapping.tolist()):
        if old_id < 0:
            continue
        if old_id in old_to_new:
            raise errors.UnimplementedError(
                None, None, f"Old ID {old_id} is mapped to both new ID {old_to_new[old_id]} "
                            f"and {new_id}, which is not supported.")
        old_to_new[old_id] = new_id
    return present, old_to_new


@register_kernel("LoadAndRemapMatrix")
def _load_and_remap_matrix(ctx: KernelContext):
    attr = ctx.node_def.attr
    num_rows, num_cols = attr["num_rows"].i, attr["num_cols"].i

    def compute(ckpt_path, old_tensor_name, row_remapping, col_remapping, initializing_values):
        row_remapping = np.asarray(row_remapping, np.int64)
        if row_remapping.ndim != 1:
            raise _invalid("The `row_remapping` tensor must be 1-D, got a tensor of shape "
                           f"{list(row_remapping.shape)}")
        if row_remapping.size != num_rows:
            raise _invalid(f"Size of row_remapping is {row_remapping.size} instead of being "
                           f"equal to num_rows={num_rows}")
        row_present, old_to_new_row = _remap_to_map(row_remapping)
        col_remapping = np.asarray(col_remapping, np.int64).reshape(-1)
        remap_cols = col_remapping.size > 0
        if remap_cols:
            if col_remapping.size != num_cols:
                raise _invalid(f"Provided col_remapping, but its size is {col_remapping.size} "
                               f"instead of being equal to num_cols={num_cols}")
            col_present, old_to_new_col = _remap_to_map(col_remapping)
        else:
            col_present, old_to_new_col = np.ones(num_cols, bool), None
        if np.size(ckpt_path) != 1:
            raise _invalid("The `ckpt_path` tensor must have exactly one element, got tensor "
                           f"of shape {list(np.shape(ckpt_path))}")
        name = _text(old_tensor_name)
        reader = checkpoint_format.BundleReader(_text(ckpt_path))
        dtype, shape = reader.dtype(name), reader.shape(name)
        if dtype.name != "float32":
            raise _invalid(f"Tensor {name} has invalid type {dtype.name} instead of expected "
                           "type float")
        if len(shape) != 2:
            raise _invalid(f"Tensor {name} has shape [{','.join(map(str, shape))}] of invalid "
                           f"rank {len(shape)} instead of expected shape of rank 2.")
        if not remap_cols and num_cols != shape[1]:
            raise _invalid(f"Tensor {name} has shape [{shape[0]},{shape[1]}], where the size "
                           f"of its 2nd dimension is {shape[1]} instead of being equal to "
                           f"num_cols={num_cols}")
        old = reader.read(name)
        out = np.zeros((num_rows, num_cols), np.float32)
        for old_row, new_row in old_to_new_row.items():
            if old_row >= shape[0]:
                raise errors.OutOfRangeError(
                    None, None, f"Old row {old_row} is out of range of {name} with "
                                f"{shape[0]} rows")
            if old_to_new_col is None:
                out[new_row] = old[old_row]
            else:
                for old_col, new_col in old_to_new_col.items():
                    if old_col < shape[1]:
                        out[new_row, new_col] = old[old_row, old_col]
        values = np.asarray(initializing_values, np.float32).reshape(-1)
        missing = ~(row_present[:, None] & col_present[None, :])
        n_missing = int(missing.sum())
        if n_missing > values.size:
            raise _invalid(f"initializing_values contained {values.size} elements, but more "
                           "missing values remain.")
        if n_missing < values.size:
            raise _invalid(f"initializing_values contained {values.size} elements, but only "
                           f"{n_missing} elements were used to fill in missing values.")
        out[missing] = values
        return (out,)

    return compute
