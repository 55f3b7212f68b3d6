"""CPU kernels of SerializeSparse, SerializeManySparse and DeserializeManySparse
(:mod:`graphcore.ops.sparse_serialize_ops`): TensorProto bytes as TF's."""

from __future__ import annotations

import numpy as np
from google.protobuf.message import DecodeError

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import errors
from graphcore.kernels.parsing_kernels import parse_tensor_proto, tensor_proto_bytes
from graphcore.kernels.registry import KernelContext, register_kernel
from graphcore.kernels.sparse_kernels import _invalid, _row_major_order, _sparse
from graphcore.protobuf import tensor_pb2


def _check_string_out(ctx: KernelContext) -> None:
    if ctx.attr("out_type") != dtypes_lib.string:
        raise errors.UnimplementedError(
            None, None, "SparseTensor serialization to DT_VARIANT is not supported")


def _serialize(idx: np.ndarray, vals: np.ndarray, shape: np.ndarray,
               dtype: dtypes_lib.DType) -> list[bytes]:
    return [tensor_proto_bytes(idx, dtypes_lib.int64),
            tensor_proto_bytes(vals, dtype, strings_as_content=True),
            tensor_proto_bytes(shape, dtypes_lib.int64)]


@register_kernel("SerializeSparse")
def _serialize_sparse(ctx: KernelContext):
    _check_string_out(ctx)
    dtype = ctx.attr("T")

    def compute(sparse_indices, sparse_values, sparse_shape):
        idx, vals, shape = _sparse(sparse_indices, sparse_values, sparse_shape)
        return (np.array(_serialize(idx, vals, shape, dtype), dtype=object),)

    return compute


@register_kernel("SerializeManySparse")
def _serialize_many_sparse(ctx: KernelContext):
    _check_string_out(ctx)
    dtype = ctx.attr("T")

    def compute(sparse_indices, sparse_values, sparse_shape):
        idx, vals, shape = _sparse(sparse_indices, sparse_values, sparse_shape)
        if len(shape) < 2:
            raise _invalid(f"Rank of input SparseTensor should be > 1, but saw rank: "
                           f"{len(shape)}")
        order = _row_major_order(idx)
        idx, vals = idx[order], vals[order]
        out = np.empty((int(shape[0]), 3), dtype=object)
        for b in range(int(shape[0])):
            rows = idx[:, 0] == b
            out[b] = _serialize(idx[rows, 1:], vals[rows], shape[1:], dtype)
        return (out,)

    return compute


def _parse(serialized: bytes, dtype: dtypes_lib.DType, what: str) -> np.ndarray:
    proto = tensor_pb2.TensorProto()
    try:
        proto.ParseFromString(bytes(serialized))
    except DecodeError:
        raise _invalid(f"Could not parse serialized_sparse[{what}]") from None
    if dtypes_lib.as_dtype(proto.dtype) != dtype:
        raise _invalid(f"Requested SparseTensor of type {dtype.name} but "
                       f"SparseTensor[{what}].dtype() == "
                       f"{dtypes_lib.as_dtype(proto.dtype).name}")
    return parse_tensor_proto(proto)


@register_kernel("DeserializeManySparse")
def _deserialize_many_sparse(ctx: KernelContext):
    dtype = ctx.attr("dtype")

    def compute(serialized_sparse):
        ser = np.asarray(serialized_sparse, dtype=object)
        if ser.ndim != 2 or ser.shape[1] != 3:
            raise _invalid(f"Serialized sparse should be a matrix with 3 columns but "
                           f"received shape: {list(ser.shape)}")
        if ser.shape[0] == 0:
            raise _invalid("Must have at least 1 serialized SparseTensor, but input matrix "
                           "has 0 rows")
        parts = []
        for b in range(ser.shape[0]):
            idx = _parse(ser[b, 0], dtypes_lib.int64, f"{b}].indices")
            vals = _parse(ser[b, 1], dtype, f"{b}].values")
            shape = _parse(ser[b, 2], dtypes_lib.int64, f"{b}].shape")
            parts.append(_sparse(idx, vals, shape))
        ranks = {len(p[2]) for p in parts}
        if len(ranks) != 1:
            raise _invalid("Inconsistent rank across SparseTensors: rank prior to "
                           f"SparseTensor[{len(parts) - 1}] was: {len(parts[0][2])} but rank "
                           f"of SparseTensor[{len(parts) - 1}] is: {len(parts[-1][2])}")
        rank = ranks.pop()
        shape = np.concatenate([[len(parts)], np.max([p[2] for p in parts], axis=0)
                                if rank else np.zeros(0, np.int64)]).astype(np.int64)
        idx = np.concatenate([np.concatenate([np.full((p[0].shape[0], 1), b, np.int64), p[0]],
                                             axis=1) for b, p in enumerate(parts)])
        vals = np.concatenate([p[1] for p in parts]).astype(dtype.as_numpy_dtype
                                                             if dtype != dtypes_lib.string
                                                             else object)
        return (idx, vals, shape)

    return compute
