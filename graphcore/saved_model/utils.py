"""TensorInfo protos of tensors and back (TF's ``saved_model.utils``)."""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework.sparse_tensor import SparseTensor
from graphcore.protobuf import meta_graph_pb2
from graphcore.train.meta_graph import prefixed_name

__all__ = ["build_tensor_info", "get_tensor_from_tensor_info"]


def build_tensor_info(tensor: Any) -> meta_graph_pb2.TensorInfo:
    """The TensorInfo of a Tensor (name, dtype, shape) or of a SparseTensor (its three
    tensors' names in ``coo_sparse``)."""
    info = meta_graph_pb2.TensorInfo()
    info.dtype = tensor.dtype.as_datatype_enum
    info.tensor_shape.CopyFrom(tensor.get_shape().as_proto())
    if isinstance(tensor, SparseTensor):
        info.coo_sparse.values_tensor_name = tensor.values.name
        info.coo_sparse.indices_tensor_name = tensor.indices.name
        info.coo_sparse.dense_shape_tensor_name = tensor.dense_shape.name
    else:
        info.name = tensor.name
    return info


def get_tensor_from_tensor_info(tensor_info: meta_graph_pb2.TensorInfo, graph: Any = None,
                                import_scope: str | None = None) -> Any:
    """The Tensor (or SparseTensor) a TensorInfo names, in ``graph`` (default: the
    default graph) under ``import_scope``."""
    graph = graph or ops_lib.get_default_graph()

    def get(name: str) -> Any:
        return graph.get_tensor_by_name(prefixed_name(name, import_scope))

    encoding = tensor_info.WhichOneof("encoding")
    if encoding == "name":
        return get(tensor_info.name)
    if encoding == "coo_sparse":
        coo = tensor_info.coo_sparse
        return SparseTensor(get(coo.indices_tensor_name), get(coo.values_tensor_name),
                            get(coo.dense_shape_tensor_name))
    raise ValueError(f"Invalid TensorInfo.encoding: {encoding}")
