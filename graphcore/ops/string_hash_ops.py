"""String hashing (TF's string_ops and array_ops): StringToHashBucket (TF's legacy
Hash64), StringToHashBucketStrong (SipHash-2-4 under a 128-bit key) and Fingerprint
(farmhash Fingerprint64 per row, little-endian bytes), with ``tf.strings.to_hash_bucket``,
``tf.strings.to_hash_bucket_strong`` and ``tf.fingerprint``; ids and bytes equal TF's.
Kernels: :mod:`graphcore.kernels.string_hash_kernels`."""

from __future__ import annotations

from typing import Any

from graphcore.framework import common_shapes, op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.gradient_registry import NotDifferentiable
from graphcore.framework.op_def_library import apply_op

__all__ = ["fingerprint", "string_to_hash_bucket", "string_to_hash_bucket_strong"]


def _fingerprint_shape(op: ops_lib.Operation) -> list:
    data = op._inputs[0].shape
    if data.ndims is not None and data.ndims < 1:
        raise ValueError(f"Shape must be at least rank 1 but is rank {data.ndims} for "
                         f"'{op.name}' (op: 'Fingerprint').")
    op._inputs[1].shape.assert_has_rank(0)
    return [shape_lib.TensorShape([data.dims[0].value if data.ndims else None, 8])]


op_registry.register_op("StringToHashBucket").input("string_tensor: string") \
    .output("output: int64").attr("num_buckets: int >= 1") \
    .shape_fn(common_shapes.unchanged_shape)
op_registry.register_op("StringToHashBucketStrong").input("input: string") \
    .output("output: int64").attr("num_buckets: int >= 1").attr("key: list(int)") \
    .shape_fn(common_shapes.unchanged_shape)
op_registry.register_op("Fingerprint").input("data: T").input("method: string") \
    .output("fingerprint: uint8").attr("T: type").shape_fn(_fingerprint_shape)
for _op_type in ("StringToHashBucket", "StringToHashBucketStrong", "Fingerprint"):
    NotDifferentiable(_op_type)


def string_to_hash_bucket(string_tensor: Any = None, num_buckets: Any = None,
                          name: str | None = None, input: Any = None) -> ops_lib.Tensor:  # noqa: A002
    """TF's Hash64 of each string modulo ``num_buckets`` (StringToHashBucket)."""
    if input is not None and string_tensor is not None:
        raise ValueError("Cannot specify both 'input' and 'string_tensor'.")
    string_tensor = input if string_tensor is None else string_tensor
    return apply_op("StringToHashBucket", name=name, string_tensor=string_tensor,
                    num_buckets=num_buckets).outputs[0]


def string_to_hash_bucket_strong(input: Any, num_buckets: int, key: Any,  # noqa: A002
                                 name: str | None = None) -> ops_lib.Tensor:
    """SipHash-2-4 of each string under ``key`` (two uint64s) modulo ``num_buckets``."""
    return apply_op("StringToHashBucketStrong", name=name, input=input,
                    num_buckets=num_buckets, key=key).outputs[0]


def fingerprint(data: Any, method: str = "farmhash64",
                name: str | None = None) -> ops_lib.Tensor:
    """An 8-byte fingerprint of each row (first dimension) of ``data`` (Fingerprint)."""
    return apply_op("Fingerprint", name=name, data=data, method=method).outputs[0]
