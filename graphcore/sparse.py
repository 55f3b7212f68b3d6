"""tf.sparse: TF1's namespace of SparseTensor functions (``tf.sparse.add``,
``tf.sparse.to_dense``, ``tf.sparse.sparse_dense_matmul``...), the same functions as the
top-level ``tf.sparse_*`` names."""

# ruff: noqa: F401
from graphcore.framework.sparse_tensor import SparseTensor
from graphcore.ops.accumulator_ops import SparseConditionalAccumulator
from graphcore.ops.sparse_compose_ops import sparse_expand_dims as expand_dims
from graphcore.ops.sparse_compose_ops import sparse_eye as eye
from graphcore.ops.sparse_compose_ops import sparse_reset_shape as reset_shape
from graphcore.ops.sparse_compose_ops import sparse_to_indicator as to_indicator
from graphcore.ops.sparse_count_ops import sparse_bincount as bincount
from graphcore.ops.sparse_count_ops import sparse_cross as cross
from graphcore.ops.sparse_count_ops import sparse_cross_hashed as cross_hashed
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
from graphcore.ops.sparse_reduce_ops import sparse_maximum as maximum
from graphcore.ops.sparse_reduce_ops import sparse_minimum as minimum
from graphcore.ops.sparse_reduce_ops import sparse_reduce_max as reduce_max
from graphcore.ops.sparse_reduce_ops import sparse_reduce_max_sparse as reduce_max_sparse
from graphcore.ops.sparse_reduce_ops import sparse_reduce_sum_sparse as reduce_sum_sparse
from graphcore.ops.sparse_segment_ops import sparse_segment_mean as segment_mean
from graphcore.ops.sparse_segment_ops import sparse_segment_sqrt_n as segment_sqrt_n
from graphcore.ops.sparse_segment_ops import sparse_segment_sum as segment_sum

__all__ = [
    "SparseConditionalAccumulator", "SparseTensor", "add", "bincount", "concat", "cross", "cross_hashed", "expand_dims",
    "eye", "fill_empty_rows", "from_dense", "mask", "matmul", "maximum", "merge", "minimum",
    "placeholder", "reduce_max", "reduce_max_sparse", "reduce_sum", "reduce_sum_sparse",
    "reorder", "reset_shape", "reshape", "retain", "segment_mean", "segment_sqrt_n",
    "segment_sum", "slice", "softmax", "sparse_dense_matmul", "split", "to_dense",
    "to_indicator", "transpose",
]
