"""CPU (numpy) kernels of :mod:`graphcore.ops.space_ops`: pads, reshapes and transposes
(TF's ``spacetobatch_op.cc``, ``depthtospace_op.cc``)."""

from __future__ import annotations

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _text(shape) -> str:
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


def _block_and_pads(x: np.ndarray, block, pads, what: str) -> tuple:
    block = np.asarray(block).astype(np.int64)
    pads = np.asarray(pads).astype(np.int64)
    if block.ndim != 1:
        raise _invalid(f"block_shape must be one-dimensional, but got shape "
                       f"{_text(block.shape)}")
    m = block.shape[0]
    if pads.shape != (m, 2):
        raise _invalid(f"{what} should have shape [{m}, 2] instead of {_text(pads.shape)}")
    if x.ndim < 1 + m:
        raise _invalid(f"input rank should be >= {1 + m} instead of {x.ndim}")
    if (block < 1).any():
        raise _invalid(f"All values in block_shape must be positive, got value, "
                       f"{block.min()} at index {int(np.argmin(block))}.")
    if (pads < 0).any():
        raise _invalid(f"All values in {what} must be non-negative, got {pads.tolist()}")
    return block, pads


def space_to_batch(x: np.ndarray, block, pads) -> np.ndarray:
    x = np.asarray(x)
    block, pads = _block_and_pads(x, block, pads, "paddings")
    m = len(block)
    padded = np.pad(x, [(0, 0)] + [tuple(p) for p in pads] + [(0, 0)] * (x.ndim - 1 - m))
    batch, rest = x.shape[0], padded.shape[1 + m:]
    split = [batch]
    for i in range(m):
        size = padded.shape[1 + i]
        if size % block[i]:
            raise _invalid(f"padded_shape[{i}]={size} is not divisible by "
                           f"block_shape[{i}]={block[i]}")
        split += [size // block[i], block[i]]
    y = padded.reshape(split + list(rest))
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + \
        list(range(1 + 2 * m, y.ndim))
    out_shape = [batch * int(np.prod(block))] + [split[1 + 2 * i] for i in range(m)] + \
        list(rest)
    return np.ascontiguousarray(y.transpose(perm)).reshape(out_shape)


def batch_to_space(x: np.ndarray, block, crops) -> np.ndarray:
    x = np.asarray(x)
    block, crops = _block_and_pads(x, block, crops, "crops")
    m = len(block)
    prod = int(np.prod(block))
    if x.shape[0] % prod:
        raise _invalid(f"Input batch dimension ({x.shape[0]}) is not divisible by product of "
                       f"block sizes ({prod})")
    batch = x.shape[0] // prod
    spatial, rest = list(x.shape[1:1 + m]), list(x.shape[1 + m:])
    y = x.reshape(list(block) + [batch] + spatial + rest)
    perm = [m]
    for i in range(m):
        perm += [m + 1 + i, i]
    perm += list(range(2 * m + 1, y.ndim))
    full = [spatial[i] * block[i] for i in range(m)]
    y = np.ascontiguousarray(y.transpose(perm)).reshape([batch] + full + rest)
    index = [slice(None)]
    for i in range(m):
        start, end = int(crops[i][0]), int(crops[i][1])
        if start + end > full[i]:
            raise _invalid(f"Cropped size must be non-negative: start: {start} end: {end} "
                           f"size {full[i]}")
        index.append(slice(start, full[i] - end))
    return np.ascontiguousarray(y[tuple(index)])


@register_kernel("SpaceToBatchND")
def _space_to_batch_nd(ctx: KernelContext):
    return lambda x, block, pads: (space_to_batch(x, block, pads),)


@register_kernel("BatchToSpaceND")
def _batch_to_space_nd(ctx: KernelContext):
    return lambda x, block, crops: (batch_to_space(x, block, crops),)


def _check_rank4(x: np.ndarray) -> None:
    if x.ndim != 4:
        raise _invalid(f"input rank should be 4 instead of {x.ndim}")


def _square_block_kernel(fn):
    """SpaceToBatch / BatchToSpace: the ND op's ``fn`` with a square block on 4-D input."""
    def factory(ctx: KernelContext):
        b = ctx.attr("block_size")

        def compute(x, pads_or_crops):
            x = np.asarray(x)
            _check_rank4(x)
            return (fn(x, [b, b], pads_or_crops),)

        return compute

    return factory


register_kernel("SpaceToBatch")(_square_block_kernel(space_to_batch))
register_kernel("BatchToSpace")(_square_block_kernel(batch_to_space))


def _depth_kernel(to_depth: bool):
    def factory(ctx: KernelContext):
        b = ctx.attr("block_size")
        data_format = ctx.attr("data_format")
        data_format = data_format.decode() if isinstance(data_format, bytes) else data_format
        if data_format == "NCHW_VECT_C":
            raise _invalid(f"{ctx.op_type} with NCHW_VECT_C needs qint8 data")
        nchw = data_format == "NCHW"

        def compute(x):
            x = np.asarray(x)
            if x.ndim != 4:
                raise _invalid(f"Input rank should be: 4 instead of: {x.ndim}")
            if nchw:
                x = x.transpose(0, 2, 3, 1)
            n, h, w, c = x.shape
            if to_depth:
                if h % b or w % b:
                    raise _invalid(f"Image width {w} and height {h} should be divisible by "
                                   f"block_size: {b}")
                y = x.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5) \
                    .reshape(n, h // b, w // b, b * b * c)
            else:
                if c % (b * b):
                    raise _invalid(f"Input depth dimension {c} should be divisible by: "
                                   f"{b * b}")
                y = x.reshape(n, h, w, b, b, c // (b * b)).transpose(0, 1, 3, 2, 4, 5) \
                    .reshape(n, h * b, w * b, c // (b * b))
            if nchw:
                y = y.transpose(0, 3, 1, 2)
            return (np.ascontiguousarray(y),)

        return compute

    return factory


register_kernel("SpaceToDepth")(_depth_kernel(True))
register_kernel("DepthToSpace")(_depth_kernel(False))
