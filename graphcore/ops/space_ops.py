"""The space <-> batch/depth rearrangements of TF's ``array_ops.py`` (SpaceToBatchND,
BatchToSpaceND, SpaceToBatch, BatchToSpace, SpaceToDepth, DepthToSpace) with their shape
functions, and required_space_to_batch_paddings (ExtractImagePatches, whose gradient is in
:mod:`graphcore.ops.space_grad`, is defined in :mod:`graphcore.ops.image_box_ops`). Gradients in
:mod:`graphcore.ops.space_grad`, kernels in :mod:`graphcore.kernels.space_kernels`."""

from __future__ import annotations

from typing import Any

import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import op_registry, tensor_util
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops
from graphcore.ops.image_box_ops import extract_image_patches
from graphcore.platform.deprecation import deprecated_argument_lookup

__all__ = ["batch_to_space", "batch_to_space_nd", "depth_to_space", "extract_image_patches",
           "required_space_to_batch_paddings", "space_to_batch", "space_to_batch_nd",
           "space_to_depth"]


def _divisible(size: int, factor: int) -> int:
    if size % factor:
        raise ValueError(f"Dimension size must be evenly divisible by {factor} but is {size}")
    return size // factor


def _space_batch_shape(input_shape: shape_lib.TensorShape, block: Any, pads: Any,
                       to_batch: bool) -> shape_lib.TensorShape:
    """TF's SpaceToBatchShapeHelper / BatchToSpaceShapeHelper; ``block`` is the
    block_shape's value (None: unknown) and ``pads`` the paddings/crops' value."""
    m = None if block is None else len(block)
    if input_shape.ndims is None:
        return shape_lib.unknown_shape()
    dims = input_shape.as_list()
    if m is not None and len(dims) < m + 1:
        raise ValueError(f"Shape must be at least rank {m + 1} but is rank {len(dims)}")
    if block is not None and any(b < 1 for b in block):
        raise ValueError(f"block_shape must be positive, got {list(block)}")
    out = list(dims)
    if block is None:
        out[0] = None
        if pads is None:
            return shape_lib.TensorShape([out[0]] + [None] * (len(dims) - 1))
        m = len(pads)
    block_prod = None if block is None else int(np.prod(block))
    batch = dims[0]
    if block_prod is not None and batch is not None:
        out[0] = batch * block_prod if to_batch else _divisible(batch, block_prod)
    else:
        out[0] = None
    for i in range(m):
        size = dims[i + 1]
        if size is None or pads is None or block is None:
            out[i + 1] = None
            continue
        start, end = int(pads[i][0]), int(pads[i][1])
        if to_batch:
            out[i + 1] = _divisible(size + start + end, int(block[i]))
        else:
            out[i + 1] = size * int(block[i]) - start - end
    return shape_lib.TensorShape(out)


def _const(t: ops_lib.Tensor) -> Any:
    value = tensor_util.constant_value(t)
    return None if value is None else value.tolist()


def _check_pads(block_shape: ops_lib.Tensor, pads: ops_lib.Tensor, what: str) -> None:
    if block_shape.shape.ndims not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {block_shape.shape.ndims}")
    if pads.shape.ndims not in (None, 2):
        raise ValueError(f"Shape must be rank 2 but is rank {pads.shape.ndims}")
    if pads.shape.ndims == 2 and pads.shape.as_list()[1] not in (None, 2):
        raise ValueError(f"Dimension must be 2 but is {pads.shape.as_list()[1]}")
    del what


def _space_to_batch_nd_shape(op: ops_lib.Operation) -> list:
    _check_pads(op.inputs[1], op.inputs[2], "paddings")
    return [_space_batch_shape(op.inputs[0].shape, _const(op.inputs[1]),
                               _const(op.inputs[2]), True)]


def _batch_to_space_nd_shape(op: ops_lib.Operation) -> list:
    _check_pads(op.inputs[1], op.inputs[2], "crops")
    return [_space_batch_shape(op.inputs[0].shape, _const(op.inputs[1]),
                               _const(op.inputs[2]), False)]


def _with_rank4(shape: shape_lib.TensorShape) -> shape_lib.TensorShape:
    if shape.ndims is not None and shape.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {shape.ndims}")
    return shape if shape.ndims is not None else shape_lib.unknown_shape(rank=4)


def _space_to_batch_shape(op: ops_lib.Operation) -> list:
    b = op.get_attr("block_size")
    return [_space_batch_shape(_with_rank4(op.inputs[0].shape), [b, b], _const(op.inputs[1]),
                               True)]


def _batch_to_space_shape(op: ops_lib.Operation) -> list:
    b = op.get_attr("block_size")
    return [_space_batch_shape(_with_rank4(op.inputs[0].shape), [b, b], _const(op.inputs[1]),
                               False)]


def _depth_shape(to_depth: bool):
    def fn(op: ops_lib.Operation) -> list:
        dims = _with_rank4(op.inputs[0].shape).as_list()
        b = op.get_attr("block_size")
        nchw = op.get_attr("data_format") == b"NCHW"
        n, c, h, w = (dims[0], dims[1], dims[2], dims[3]) if nchw else \
            (dims[0], dims[3], dims[1], dims[2])
        if to_depth:
            h = None if h is None else _divisible(h, b)
            w = None if w is None else _divisible(w, b)
            c = None if c is None else c * b * b
        else:
            h = None if h is None else h * b
            w = None if w is None else w * b
            c = None if c is None else _divisible(c, b * b)
        return [shape_lib.TensorShape([n, c, h, w] if nchw else [n, h, w, c])]

    return fn


op_registry.register_op("SpaceToBatchND").input("input: T") \
    .input("block_shape: Tblock_shape").input("paddings: Tpaddings").output("output: T") \
    .attr("T: type").attr("Tblock_shape: {int32, int64} = DT_INT32") \
    .attr("Tpaddings: {int32, int64} = DT_INT32").shape_fn(_space_to_batch_nd_shape)
op_registry.register_op("BatchToSpaceND").input("input: T") \
    .input("block_shape: Tblock_shape").input("crops: Tcrops").output("output: T") \
    .attr("T: type").attr("Tblock_shape: {int32, int64} = DT_INT32") \
    .attr("Tcrops: {int32, int64} = DT_INT32").shape_fn(_batch_to_space_nd_shape)
op_registry.register_op("SpaceToBatch").input("input: T").input("paddings: Tpaddings") \
    .output("output: T").attr("T: type").attr("Tpaddings: {int32, int64} = DT_INT32") \
    .attr("block_size: int >= 2").shape_fn(_space_to_batch_shape)
op_registry.register_op("BatchToSpace").input("input: T").input("crops: Tidx") \
    .output("output: T").attr("T: type").attr("block_size: int >= 2") \
    .attr("Tidx: {int32, int64} = DT_INT32").shape_fn(_batch_to_space_shape)
for _op_type, _to_depth in (("SpaceToDepth", True), ("DepthToSpace", False)):
    op_registry.register_op(_op_type).input("input: T").output("output: T") \
        .attr("T: type").attr("block_size: int >= 2") \
        .attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'") \
        .shape_fn(_depth_shape(_to_depth))

def space_to_batch_nd(input: Any, block_shape: Any, paddings: Any,  # noqa: A002
                      name: str | None = None) -> ops_lib.Tensor:
    """Zero-pads the spatial dimensions and moves blocks of them into the batch."""
    return apply_op("SpaceToBatchND", name=name, input=input, block_shape=block_shape,
                    paddings=paddings).outputs[0]


def batch_to_space_nd(input: Any, block_shape: Any, crops: Any,  # noqa: A002
                      name: str | None = None) -> ops_lib.Tensor:
    """The inverse of space_to_batch_nd: batch blocks back into space, then cropped."""
    return apply_op("BatchToSpaceND", name=name, input=input, block_shape=block_shape,
                    crops=crops).outputs[0]


def space_to_batch(input: Any, paddings: Any, block_size: Any = None,  # noqa: A002
                   name: str | None = None, block_shape: Any = None) -> ops_lib.Tensor:
    """space_to_batch_nd of a 4-D ``input`` with a square block (TF1's signature)."""
    block_size = deprecated_argument_lookup("block_shape", block_shape, "block_size", block_size)
    result = space_to_batch_nd(input, paddings=paddings,
                               block_shape=np.array([block_size, block_size], np.int64),
                               name=name)
    result.set_shape(result.get_shape().with_rank(4))
    return result


def batch_to_space(input: Any, crops: Any, block_size: Any,  # noqa: A002
                   name: str | None = None, block_shape: Any = None) -> ops_lib.Tensor:
    """batch_to_space_nd of a 4-D ``input`` with a square block (TF1's signature)."""
    block_size = deprecated_argument_lookup("block_shape", block_shape, "block_size", block_size)
    result = batch_to_space_nd(input, crops=crops,
                               block_shape=np.array([block_size, block_size], np.int64),
                               name=name)
    result.set_shape(result.get_shape().with_rank(4))
    return result


def space_to_depth(input: Any, block_size: int, name: str | None = None,  # noqa: A002
                   data_format: str = "NHWC") -> ops_lib.Tensor:
    """Moves block_size x block_size spatial blocks into the depth dimension."""
    return apply_op("SpaceToDepth", name=name, input=input, block_size=block_size,
                    data_format=data_format).outputs[0]


def depth_to_space(input: Any, block_size: int, name: str | None = None,  # noqa: A002
                   data_format: str = "NHWC") -> ops_lib.Tensor:
    """Moves depth into block_size x block_size spatial blocks."""
    return apply_op("DepthToSpace", name=name, input=input, block_size=block_size,
                    data_format=data_format).outputs[0]


def required_space_to_batch_paddings(input_shape: Any, block_shape: Any,
                                     base_paddings: Any = None,
                                     name: str | None = None) -> tuple:
    """(paddings, crops) making ``input_shape`` (+ base_paddings) divisible by
    ``block_shape``, for space_to_batch_nd / batch_to_space_nd."""
    with ops_lib.name_scope(name, "required_space_to_batch_paddings",
                            [input_shape, block_shape]):
        input_shape = convert_to_tensor(input_shape, dtype=dtypes_lib.int32,
                                        name="input_shape")
        block_shape = convert_to_tensor(block_shape, dtype=dtypes_lib.int32,
                                        name="block_shape")
        block_shape.get_shape().assert_is_fully_defined()
        block_shape.get_shape().assert_has_rank(1)
        num_block_dims = block_shape.get_shape().as_list()[0]
        if num_block_dims == 0:
            return (array_ops.zeros([0, 2], dtypes_lib.int32),
                    array_ops.zeros([0, 2], dtypes_lib.int32))
        input_shape.get_shape().assert_is_compatible_with([num_block_dims])
        if base_paddings is not None:
            base_paddings = convert_to_tensor(base_paddings, dtype=dtypes_lib.int32,
                                              name="base_paddings")
            base_paddings.get_shape().assert_is_compatible_with([num_block_dims, 2])
        else:
            base_paddings = array_ops.zeros([num_block_dims, 2], dtypes_lib.int32)
        const_block_shape = tensor_util.constant_value(block_shape)
        const_input_shape = tensor_util.constant_value(input_shape)
        const_base_paddings = tensor_util.constant_value(base_paddings)
        if const_block_shape is not None and const_input_shape is not None and \
                const_base_paddings is not None:
            block_shape = const_block_shape
            input_shape = const_input_shape
            base_paddings = const_base_paddings
        pad_start = base_paddings[:, 0]
        orig_pad_end = base_paddings[:, 1]
        full_input_shape = input_shape + pad_start + orig_pad_end
        pad_end_extra = (block_shape - full_input_shape % block_shape) % block_shape
        pad_end = orig_pad_end + pad_end_extra
        result_paddings = array_ops.stack(
            [[pad_start[i], pad_end[i]] for i in range(num_block_dims)], name="paddings")
        result_crops = array_ops.stack(
            [[0, pad_end_extra[i]] for i in range(num_block_dims)], name="crops")
        return result_paddings, result_crops
