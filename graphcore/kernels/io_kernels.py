"""CPU kernels of the checkpoint ops (SaveV2, RestoreV2, MergeV2Checkpoints,
ShardedFilename), reading and writing TensorFlow's V2 checkpoint format through
:mod:`graphcore.lib.io.checkpoint_format`, and of ReadFile / WriteFile
(:mod:`graphcore.lib.io.file_io`)."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel
from graphcore.lib.io import checkpoint_format, file_io, tensor_slice
from graphcore.ops import io_ops  # noqa: F401 - the op registrations these kernels serve


def _text(value: Any) -> str:
    if isinstance(value, np.ndarray):
        value = value.item() if value.size == 1 else value
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogateescape")
    return str(value)


def _shape_text(shape: tuple) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]" if shape else "[]"


def _strings(value: Any) -> list[str]:
    return [_text(v) for v in np.asarray(value, dtype=object).reshape(-1)]


def _validate(prefix: Any, tensor_names: Any, shape_and_slices: Any) -> tuple[str, list, list]:
    """TF's ValidateInputs of SaveV2/RestoreV2."""
    prefix = np.asarray(prefix, dtype=object)
    if prefix.size != 1:
        raise errors.InvalidArgumentError(
            None, None, f"Input prefix should have a single element, got {prefix.size} "
                        "instead.")
    names = np.asarray(tensor_names, dtype=object)
    slices = np.asarray(shape_and_slices, dtype=object)
    if names.ndim != 1 or slices.ndim != 1:
        raise errors.InvalidArgumentError(
            None, None, "Input tensor_names and shape_and_slices should be an 1-D tensors, got "
                        f"{_shape_text(names.shape)} and {_shape_text(slices.shape)} instead.")
    if names.size != slices.size:
        raise errors.InvalidArgumentError(
            None, None, "tensor_names and shape_and_slices have different number of elements: "
                        f"{names.size} vs. {slices.size}")
    return _text(prefix.reshape(-1)[0]), _strings(names), _strings(slices)


@register_kernel("SaveV2")
def _save_v2(ctx: KernelContext):
    dtypes = ctx.attr("dtypes")

    def compute(prefix, tensor_names, shape_and_slices, *tensors):
        path, names, slices = _validate(prefix, tensor_names, shape_and_slices)
        if len(names) != len(tensors):
            raise errors.InvalidArgumentError(
                None, None, f"Got {len(names)} tensor names but {len(tensors)} tensors.")
        writer = checkpoint_format.BundleWriter(path)
        try:
            for name, spec, dtype, value in zip(names, slices, dtypes, tensors):
                if not spec:
                    writer.add(name, value, dtype)
                    continue
                full_shape, part = tensor_slice.parse_shape_and_slice(spec)
                if tensor_slice.slice_shape(full_shape, part) != np.shape(value):
                    raise errors.InvalidArgumentError(
                        None, None, "Slice in shape_and_slice specification does not match "
                                    f"the shape of the tensor to  save: {spec}, tensor: "
                                    f"{_shape_text(np.shape(value))}")
                writer.add_slice(name, full_shape, part, value, dtype)
        except OSError as e:
            writer.abort()
            raise checkpoint_format.os_error(e, f"Failed to write checkpoint {path}") from None
        except BaseException:
            writer.abort()
            raise
        writer.finish()
        return ()

    return compute


@register_kernel("RestoreV2")
def _restore_v2(ctx: KernelContext):
    dtypes = ctx.attr("dtypes")

    def compute(prefix, tensor_names, shape_and_slices):
        path, names, slices = _validate(prefix, tensor_names, shape_and_slices)
        if len(names) != len(dtypes):
            raise errors.InvalidArgumentError(
                None, None, f"Got {len(names)} tensor names but {len(dtypes)} dtypes.")
        reader = checkpoint_format.BundleReader(path)
        out = []
        for name, spec, dtype in zip(names, slices, dtypes):
            stored = reader.dtype(name)
            if stored != dtype:
                raise errors.InvalidArgumentError(
                    None, None, f"tensor_name = {name}; expected dtype {dtype.name} does not "
                                f"equal original dtype {stored.name}")
            if not spec:
                out.append(reader.read(name))
                continue
            full_shape, part = tensor_slice.parse_shape_and_slice(spec)
            if full_shape != reader.shape(name):
                raise errors.InvalidArgumentError(
                    None, None, f"tensor_name = {name}; shape in shape_and_slice spec "
                                f"{_shape_text(full_shape)} does not match the shape stored "
                                f"in checkpoint: {_shape_text(reader.shape(name))}")
            out.append(reader.read_slice(name, part))
        return tuple(out)

    return compute


@register_kernel("MergeV2Checkpoints")
def _merge_v2(ctx: KernelContext):
    delete_old_dirs = ctx.node_def.attr["delete_old_dirs"].b
    allow_missing = ctx.node_def.attr["allow_missing_files"].b

    def compute(checkpoint_prefixes, destination_prefix):
        sources = _strings(checkpoint_prefixes)
        dest = np.asarray(destination_prefix, dtype=object)
        if dest.size != 1:
            raise errors.InvalidArgumentError(
                None, None, "Input destination_prefix should be a scalar tensor, got "
                            f"{_shape_text(dest.shape)} instead.")
        checkpoint_format.merge_bundles(sources, _text(dest), delete_old_dirs, allow_missing)
        return ()

    return compute


@register_kernel("ShardedFilename")
def _sharded_filename(ctx: KernelContext):
    del ctx

    def compute(basename, shard, num_shards):
        name = f"{_text(basename)}-{int(shard):05d}-of-{int(num_shards):05d}"
        return (np.array(name.encode("utf-8", "surrogateescape"), dtype=object),)

    return compute


@register_kernel("ReadFile")
def _read_file(ctx: KernelContext):
    del ctx
    return lambda filename: (np.asarray(
        file_io.read_file_to_string(_text(filename), binary_mode=True), dtype=object),)


@register_kernel("WriteFile")
def _write_file(ctx: KernelContext):
    del ctx

    def compute(filename, contents):
        path = _text(filename)
        if os.path.dirname(path):
            file_io.recursive_create_dir(os.path.dirname(path))
        file_io.write_string_to_file(path, bytes(np.asarray(contents, dtype=object).item()))
        return ()

    return compute
