"""Tensors kept in a session between runs (TF's session_ops): ``get_session_handle(x)``
stores ``x``'s value in the session and returns its handle
("<node>;<id>;<device>"), ``get_session_tensor`` reads a stored value back by handle,
``delete_session_tensor`` drops it. Kernels: :mod:`graphcore.kernels.session_kernels`;
the fetched handle object: :class:`graphcore.client.session_handle.TensorHandle`."""

from __future__ import annotations

from typing import Any

from graphcore.framework import common_shapes, op_registry
from graphcore.framework import device as device_lib
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.ops import array_ops

__all__ = ["delete_session_tensor", "get_session_handle", "get_session_tensor"]

op_registry.register_op("GetSessionHandle").input("value: T").output("handle: string") \
    .attr("T: type").stateful().shape_fn(common_shapes.scalar_shape)
op_registry.register_op("GetSessionTensor").input("handle: string").output("value: dtype") \
    .attr("dtype: type").stateful().shape_fn(common_shapes.unknown_shapes)
op_registry.register_op("DeleteSessionTensor").input("handle: string").stateful() \
    .shape_fn(common_shapes.no_outputs)


def handle_device(handle: Any) -> str:
    """The device a handle's tensor lives on (its last ';' field), canonicalized."""
    text = handle.decode() if isinstance(handle, bytes) else str(handle)
    return device_lib.canonical_name(text.split(";")[-1])


def get_session_handle(data: Any, name: str | None = None) -> ops_lib.Tensor:
    """A string handle for ``data``'s value, kept in the session after the run that fetches
    it (Session.run returns a TensorHandle)."""
    if not isinstance(data, ops_lib.Tensor):
        raise TypeError("`data` must be of type Tensor.")
    with ops_lib.colocate_with(data):
        return apply_op("GetSessionHandle", name=name, value=data).outputs[0]


def get_session_tensor(handle: Any, dtype: Any,
                       name: str | None = None) -> tuple[ops_lib.Tensor, ops_lib.Tensor]:
    """(holder, tensor): feed a handle to the string placeholder ``holder`` to read its
    stored value as ``tensor``."""
    with ops_lib.device(handle_device(handle)):
        holder = array_ops.placeholder(dtypes_lib.string)
        tensor = apply_op("GetSessionTensor", name=name, handle=holder,
                          dtype=dtypes_lib.as_dtype(dtype)).outputs[0]
    return holder, tensor


def delete_session_tensor(handle: Any,
                          name: str | None = None) -> tuple[ops_lib.Tensor, ops_lib.Operation]:
    """(holder, deleter): running ``deleter`` with a handle fed to ``holder`` drops it."""
    with ops_lib.device(handle_device(handle)):
        holder = array_ops.placeholder(dtypes_lib.string)
        deleter = apply_op("DeleteSessionTensor", name=name, handle=holder)
    return holder, deleter
