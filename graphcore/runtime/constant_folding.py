"""Constant folding for graph building: the value of a small op whose inputs are all known,
computed with its CPU kernel (TF's shape inference evaluates such constant subgraphs).
Registered with :func:`graphcore.framework.tensor_util.register_constant_folder` on import,
so ``constant_value`` sees through Fill, ConcatV2, StridedSlice... of known values."""

from __future__ import annotations

from typing import Any

import numpy as np

from graphcore import kernels  # noqa: F401 - registers the kernels
from graphcore.framework import tensor_util
from graphcore.kernels import registry

# Ops whose value graph building may compute when all their inputs are known (TF's shape
# inference evaluates such small constant subgraphs); run through their CPU kernels.
_FOLDABLE = frozenset({
    "ConcatV2", "Fill", "StridedSlice", "Unpack", "Reshape", "ExpandDims", "Squeeze", "Slice",
    "GatherV2", "Transpose", "Tile", "Range", "ZerosLike", "OnesLike", "Pad", "PadV2",
    "ReverseV2", "Split", "SplitV", "Equal", "NotEqual", "Add", "AddV2", "Sub", "Mul", "Neg",
    "FloorDiv", "FloorMod", "Maximum", "Minimum", "Prod", "Sum", "Max", "Min", "Less",
    "LessEqual", "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr", "LogicalNot",
    "Select", "SelectV2", "InvertPermutation", "ConcatOffset", "BroadcastArgs", "OneHot",
})
_FOLD_MAX_ELEMENTS = 1024


def fold(op: Any, index: int) -> np.ndarray | None:
    """The value of output ``index`` of ``op`` when its inputs are known and small, its
    type foldable and its CPU kernel computes it; else None."""
    if op.type not in _FOLDABLE:
        return None
    values = []
    for t in op.inputs:
        v = tensor_util.constant_value(t)
        if v is None or np.size(v) > _FOLD_MAX_ELEMENTS:
            return None
        values.append(v)
    out_shape = op.outputs[index].shape
    if out_shape.is_fully_defined() and out_shape.num_elements() > _FOLD_MAX_ELEMENTS:
        return None
    try:
        kdef = registry.find_kernel(op.type, "CPU", op._attrs)
        if kdef is None or kdef.needs_step:
            return None
        ctx = registry.KernelContext(op.node_def, "", "CPU", None,
                                     [t.dtype for t in op.inputs],
                                     [t.dtype for t in op.outputs])
        with np.errstate(all="ignore"):  # as the executor runs kernels
            result = kdef.factory(ctx)(*values)[index]
    except Exception:
        return None
    result = np.asarray(result)
    if result.size > _FOLD_MAX_ELEMENTS:
        return None
    return result


tensor_util.register_constant_folder(fold)
