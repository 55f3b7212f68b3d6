"""CPU kernels of the string hashes (:mod:`graphcore.ops.string_hash_ops`): TF's Hash64
(a MurmurHash64A variant seeded 0xDECAFCAFFE), SipHash-2-4 and farmhash Fingerprint64,
bit for bit."""

from __future__ import annotations

import struct

import farmhash
import numpy as np

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel

_MASK = (1 << 64) - 1
_M = 0xC6A4A7935BD1E995


def hash64(data: bytes, seed: int = 0xDECAFCAFFE) -> int:
    """TF's ``Hash64`` (core/lib/hash/hash.cc)."""
    n = len(data)
    h = (seed ^ (n * _M)) & _MASK
    full = n - n % 8
    for (k,) in struct.iter_unpack("<Q", data[:full]):
        k = (k * _M) & _MASK
        k ^= k >> 47
        k = (k * _M) & _MASK
        h ^= k
        h = (h * _M) & _MASK
    tail = data[full:]
    if tail:
        for i in range(len(tail) - 1, -1, -1):
            h ^= tail[i] << (8 * i)
        h = (h * _M) & _MASK
    h ^= h >> 47
    h = (h * _M) & _MASK
    return h ^ (h >> 47)


def _rotl(x: int, b: int) -> int:
    return ((x << b) | (x >> (64 - b))) & _MASK


def siphash24(k0: int, k1: int, data: bytes) -> int:
    """SipHash-2-4 of ``data`` under the key (k0, k1)."""
    v0, v1 = k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D
    v2, v3 = k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573

    def rounds(v0, v1, v2, v3, n):
        for _ in range(n):
            v0 = (v0 + v1) & _MASK
            v1 = _rotl(v1, 13) ^ v0
            v0 = _rotl(v0, 32)
            v2 = (v2 + v3) & _MASK
            v3 = _rotl(v3, 16) ^ v2
            v0 = (v0 + v3) & _MASK
            v3 = _rotl(v3, 21) ^ v0
            v2 = (v2 + v1) & _MASK
            v1 = _rotl(v1, 17) ^ v2
            v2 = _rotl(v2, 32)
        return v0, v1, v2, v3

    n = len(data)
    full = n - n % 8
    for (m,) in struct.iter_unpack("<Q", data[:full]):
        v3 ^= m
        v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 2)
        v0 ^= m
    last = int.from_bytes(data[full:] + bytes(7 - n % 8), "little") | ((n & 0xFF) << 56)
    v3 ^= last
    v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 2)
    v0 ^= last
    v2 ^= 0xFF
    v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 4)
    return v0 ^ v1 ^ v2 ^ v3


def _bucket_kernel(fn):
    def factory(ctx: KernelContext):
        buckets = ctx.node_def.attr["num_buckets"].i
        hash_fn = fn(ctx)

        def compute(x):
            x = np.asarray(x, dtype=object)
            out = np.array([hash_fn(bytes(s)) % buckets for s in x.reshape(-1)], np.int64)
            return (out.reshape(x.shape),)

        return compute

    return factory


register_kernel("StringToHashBucket")(_bucket_kernel(lambda ctx: hash64))


def _strong(ctx: KernelContext):
    key = [k & _MASK for k in ctx.node_def.attr["key"].list.i]
    if len(key) != 2:
        raise errors.InvalidArgumentError(None, None,
                                          "Key must have 2 elements, but got: "
                                          f"{len(key)}")
    return lambda s: siphash24(key[0], key[1], s)


register_kernel("StringToHashBucketStrong")(_bucket_kernel(_strong))


def _fingerprint_rows(rows: list[bytes]) -> np.ndarray:
    out = np.zeros((len(rows), 8), np.uint8)
    for i, row in enumerate(rows):
        out[i] = np.frombuffer(struct.pack("<Q", farmhash.fingerprint64(row)), np.uint8)
    return out


@register_kernel("Fingerprint")
def _fingerprint(ctx: KernelContext):
    del ctx

    def compute(data, method):
        method = bytes(np.asarray(method, dtype=object).item()).decode()
        if method != "farmhash64":
            raise errors.InvalidArgumentError(
                None, None, f"Unsupported fingerprint method is given: {method}")
        data = np.asarray(data)
        if data.ndim < 1:
            raise errors.InvalidArgumentError(
                None, None, f"`data` should have at least one dimension: {data.shape}")
        dim0 = data.shape[0]
        if data.dtype == object:
            flat = [bytes(s) for s in data.reshape(-1)]
            if dim0 < len(flat):
                per_string = _fingerprint_rows(flat)
                return (_fingerprint_rows([r.tobytes() for r in
                                           per_string.reshape(dim0, -1)]),)
            return (_fingerprint_rows(flat),)
        raw = np.ascontiguousarray(data).view(np.uint8).reshape(dim0, -1) if dim0 else \
            np.zeros((0, 0), np.uint8)
        return (_fingerprint_rows([r.tobytes() for r in raw]),)

    return compute
