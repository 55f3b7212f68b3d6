"""SparseTensors to and from strings (TF's sparse_ops): SerializeSparse,
SerializeManySparse and DeserializeManySparse, with ``tf.io.serialize_sparse``,
``tf.io.serialize_many_sparse`` and ``tf.io.deserialize_many_sparse`` (also top-level).
A serialized SparseTensor is a string vector of its three serialized TensorProtos, the
bytes TF writes. Kernels: :mod:`graphcore.kernels.sparse_serialize_kernels`."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.gradient_registry import NotDifferentiable
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.sparse_tensor import SparseTensor
from graphcore.ops.sparse_ops import _convert_to_sparse_tensor

__all__ = ["deserialize_many_sparse", "serialize_many_sparse", "serialize_sparse"]

_SP = ("sparse_indices: int64", "sparse_values: T", "sparse_shape: int64")
for _op_type, _out in (("SerializeSparse", [3]), ("SerializeManySparse", [None, 3])):
    _b = op_registry.register_op(_op_type)
    for _spec in _SP:
        _b.input(_spec)
    _b.output("serialized_sparse: out_type").attr("T: type") \
        .attr("out_type: {string, variant} = DT_STRING") \
        .shape_fn(lambda op, _out=_out: [shape_lib.TensorShape(_out)])
op_registry.register_op("DeserializeManySparse").input("serialized_sparse: string") \
    .output("sparse_indices: int64").output("sparse_values: dtype") \
    .output("sparse_shape: int64").attr("dtype: type") \
    .shape_fn(lambda op: [shape_lib.TensorShape([None, None]), shape_lib.TensorShape([None]),
                          shape_lib.TensorShape([None])])
for _op_type in ("SerializeSparse", "SerializeManySparse", "DeserializeManySparse"):
    NotDifferentiable(_op_type)


def serialize_sparse(sp_input: Any, name: str | None = None,
                     out_type: Any = dtypes_lib.string) -> ops_lib.Tensor:
    """``sp_input`` as a 3-vector of serialized TensorProtos (SerializeSparse)."""
    sp_input = _convert_to_sparse_tensor(sp_input)
    return apply_op("SerializeSparse", name=name, sparse_indices=sp_input.indices,
                    sparse_values=sp_input.values, sparse_shape=sp_input.dense_shape,
                    out_type=out_type).outputs[0]


def serialize_many_sparse(sp_input: Any, name: str | None = None,
                          out_type: Any = dtypes_lib.string) -> ops_lib.Tensor:
    """Each minibatch entry (first dimension) of ``sp_input`` serialized: [N, 3]
    (SerializeManySparse)."""
    sp_input = _convert_to_sparse_tensor(sp_input)
    return apply_op("SerializeManySparse", name=name, sparse_indices=sp_input.indices,
                    sparse_values=sp_input.values, sparse_shape=sp_input.dense_shape,
                    out_type=out_type).outputs[0]


def deserialize_many_sparse(serialized_sparse: Any, dtype: Any, rank: Any = None,
                            name: str | None = None) -> SparseTensor:
    """The [N, 3] serialized SparseTensors stacked into one of rank ``rank``
    (DeserializeManySparse); each dimension but the first is the inputs' largest."""
    output_indices, output_values, output_shape = apply_op(
        "DeserializeManySparse", name=name, serialized_sparse=serialized_sparse,
        dtype=dtype).outputs
    output_indices.set_shape([None, rank])
    output_shape.set_shape([rank])
    return SparseTensor(output_indices, output_values, output_shape)
