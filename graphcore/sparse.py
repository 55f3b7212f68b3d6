"""tf.sparse: TF1's namespace of SparseTensor functions (``tf.sparse.add``,
``tf.sparse.to_dense``, ``tf.sparse.sparse_dense_matmul``...), the same functions as the
top-level ``tf.sparse_*`` names."""

# ruff: noqa: F401
from graphcore.framework.sparse_tensor import SparseTensor
from graphcore.ops.sparse_ops import from_dense
from graphcore.ops.sparse_ops import sparse_add as add
from graphcore.ops.sparse_ops import sparse_concat as concat
from graphcore.ops.sparse_ops import sparse_fill_empty_rows as fill_empty_rows
from graphcore.ops.sparse_ops import sparse_mask as mask
from graphcore.ops.sparse_ops import sparse_merge as merge
from graphcore.ops.sparse_ops import sparse_placeholder as placeholder
from graphcore.ops.sparse_ops import sparse_reduce_sum as reduce_sum
from graphcore.ops.sparse_ops import sparse_reorder as reorder
from graphcore.ops.sparse_ops import sparse_reshape as reshape
from graphcore.ops.sparse_ops import sparse_retain as retain
from graphcore.ops.sparse_ops import sparse_slice as slice  # noqa: A004
from graphcore.ops.sparse_ops import sparse_softmax as softmax
from graphcore.ops.sparse_ops import sparse_split as split
from graphcore.ops.sparse_ops import sparse_tensor_dense_matmul as matmul
from graphcore.ops.sparse_ops import sparse_tensor_dense_matmul as sparse_dense_matmul
from graphcore.ops.sparse_ops import sparse_tensor_to_dense as to_dense
from graphcore.ops.sparse_ops import sparse_transpose as transpose
from graphcore.ops.sparse_segment_ops import sparse_segment_mean as segment_mean
from graphcore.ops.sparse_segment_ops import sparse_segment_sqrt_n as segment_sqrt_n
from graphcore.ops.sparse_segment_ops import sparse_segment_sum as segment_sum

__all__ = [
    "SparseTensor", "add", "concat", "fill_empty_rows", "from_dense", "mask", "matmul",
    "merge", "placeholder", "reduce_sum", "reorder", "reshape", "retain", "segment_mean",
    "segment_sqrt_n", "segment_sum", "slice", "softmax", "sparse_dense_matmul", "split",
    "to_dense", "transpose",
]
