"""Checkpoint ops: SaveV2, RestoreV2, MergeV2Checkpoints, ShardedFilename; whole-file ops:
ReadFile, WriteFile.

OpDefs are TensorFlow's; the CPU kernels live in :mod:`graphcore.kernels.io_kernels`
and write TensorFlow's V2 checkpoint format (:mod:`graphcore.lib.io.checkpoint_format`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from graphcore.framework import common_shapes, errors, op_registry
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.lib.io import tensor_slice

__all__ = [
    "merge_v2_checkpoints",
    "read_file",
    "restore_v2",
    "save_v2",
    "sharded_filename",
    "write_file",
]


def _restore_v2_shape(op: ops_lib.Operation) -> list:
    """TF's shape fn: a restored tensor's shape is known only from a constant
    ``shape_and_slices`` entry (the slice's shape); "" leaves it unknown."""
    n = len(op._outputs)
    shapes = [shape_lib.unknown_shape()] * n
    slices = _constant_strings(op._inputs[2])
    if slices is not None and len(slices) == n:
        for i, spec in enumerate(slices):
            dims = _slice_shape_of_spec(spec) if spec else None
            if dims is not None:
                shapes[i] = shape_lib.TensorShape(dims)
    return shapes


def _constant_strings(t: ops_lib.Tensor) -> list | None:
    if t.op.type != "Const":
        return None
    from graphcore.framework import tensor_util

    value = tensor_util.MakeNdarray(t.op._attrs["value"].tensor)
    return [v.decode() if isinstance(v, bytes) else str(v) for v in np.ravel(value)]


def _slice_shape_of_spec(spec: str) -> tuple | None:
    """The shape of the slice a "d0 d1 ... slice" spec names (None for a bad spec)."""
    try:
        full_shape, part = tensor_slice.parse_shape_and_slice(spec)
    except errors.InvalidArgumentError:
        return None
    return tensor_slice.slice_shape(full_shape, part)


op_registry.register_op("SaveV2").input("prefix: string").input("tensor_names: string") \
    .input("shape_and_slices: string").input("tensors: dtypes") \
    .attr("dtypes: list(type) >= 1").stateful().shape_fn(common_shapes.no_outputs)

op_registry.register_op("RestoreV2").input("prefix: string").input("tensor_names: string") \
    .input("shape_and_slices: string").output("tensors: dtypes") \
    .attr("dtypes: list(type) >= 1").stateful().shape_fn(_restore_v2_shape)

op_registry.register_op("MergeV2Checkpoints").input("checkpoint_prefixes: string") \
    .input("destination_prefix: string").attr("delete_old_dirs: bool = true") \
    .attr("allow_missing_files: bool = false").stateful() \
    .shape_fn(common_shapes.no_outputs)

op_registry.register_op("ShardedFilename").input("basename: string").input("shard: int32") \
    .input("num_shards: int32").output("filename: string") \
    .shape_fn(common_shapes.scalar_shape)


def save_v2(prefix: Any, tensor_names: Any, shape_and_slices: Any, tensors: list,
            name: str | None = None) -> ops_lib.Operation:
    """Saves ``tensors`` under ``tensor_names`` in the V2 checkpoint ``prefix``."""
    return apply_op("SaveV2", name=name, prefix=prefix, tensor_names=tensor_names,
                    shape_and_slices=shape_and_slices, tensors=list(tensors))


def restore_v2(prefix: Any, tensor_names: Any, shape_and_slices: Any, dtypes: list,
               name: str | None = None) -> list[ops_lib.Tensor]:
    """The tensors ``tensor_names`` (of ``dtypes``) read from the checkpoint ``prefix``."""
    dtypes = [dtypes_lib.as_dtype(d) for d in dtypes]
    return apply_op("RestoreV2", name=name, prefix=prefix, tensor_names=tensor_names,
                    shape_and_slices=shape_and_slices, dtypes=dtypes).outputs


def merge_v2_checkpoints(checkpoint_prefixes: Any, destination_prefix: Any,
                         delete_old_dirs: bool = True, allow_missing_files: bool = False,
                         name: str | None = None) -> ops_lib.Operation:
    """Merges per-shard checkpoints into one at ``destination_prefix``."""
    return apply_op("MergeV2Checkpoints", name=name, checkpoint_prefixes=checkpoint_prefixes,
                    destination_prefix=destination_prefix, delete_old_dirs=delete_old_dirs,
                    allow_missing_files=allow_missing_files)


def sharded_filename(basename: Any, shard: Any, num_shards: Any,
                     name: str | None = None) -> ops_lib.Tensor:
    """``"%s-%05d-of-%05d" % (basename, shard, num_shards)``."""
    return apply_op("ShardedFilename", name=name, basename=basename, shard=shard,
                    num_shards=num_shards).outputs[0]


op_registry.register_op("ReadFile").input("filename: string").output("contents: string") \
    .shape_fn(common_shapes.scalar_shape)

op_registry.register_op("WriteFile").input("filename: string").input("contents: string") \
    .stateful().shape_fn(common_shapes.no_outputs)


def read_file(filename: Any, name: str | None = None) -> ops_lib.Tensor:
    """The contents of the file ``filename``."""
    return apply_op("ReadFile", name=name, filename=filename).outputs[0]


def write_file(filename: Any, contents: Any, name: str | None = None) -> ops_lib.Operation:
    """Writes ``contents`` to the file ``filename``, creating its directories."""
    return apply_op("WriteFile", name=name, filename=filename, contents=contents)
