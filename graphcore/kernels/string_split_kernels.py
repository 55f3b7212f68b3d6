"""CPU kernels of StringSplit, StringSplitV2, UnsortedSegmentJoin
(:mod:`graphcore.ops.string_split_ops`) and StringNGrams
(:mod:`graphcore.ops.string_ngrams_ops`, TF's padding and short-sequence rules)."""

from __future__ import annotations

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel

# TF's StringSplitV2 with an empty separator splits at runs of these (absl's ascii
# whitespace).
_WHITESPACE = b" \t\n\v\f\r"


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _scalar_bytes(x) -> bytes:
    x = np.asarray(x, dtype=object)
    if x.ndim != 0:
        raise _invalid(f"delimiter must be a scalar, got shape: {list(x.shape)}")
    return bytes(x.item())


def _vector(x) -> list[bytes]:
    x = np.asarray(x, dtype=object)
    if x.ndim != 1:
        raise _invalid(f"input must be a vector, got shape: {list(x.shape)}")
    return [bytes(s) for s in x]


def _sparse_tokens(rows: list[list[bytes]]) -> tuple:
    indices = [[i, j] for i, row in enumerate(rows) for j in range(len(row))]
    values = [t for row in rows for t in row]
    width = max((len(r) for r in rows), default=0)
    return (np.array(indices, np.int64).reshape(len(indices), 2),
            np.array(values, dtype=object).reshape(len(values)),
            np.array([len(rows), width], np.int64))


def _split_any(s: bytes, delims: bytes, skip_empty: bool) -> list[bytes]:
    if not s:  # TF's StringSplit gives an empty string no token, even an empty one
        return []
    if not delims:
        return [s[i:i + 1] for i in range(len(s))]
    tokens, start = [], 0
    for i, c in enumerate(s):
        if c in delims:
            tokens.append(s[start:i])
            start = i + 1
    tokens.append(s[start:])
    return [t for t in tokens if t] if skip_empty else tokens


@register_kernel("StringSplit")
def _string_split(ctx: KernelContext):
    skip_empty = ctx.node_def.attr["skip_empty"].b

    def compute(x, delimiter):
        delims = _scalar_bytes(delimiter)
        return _sparse_tokens([_split_any(s, delims, skip_empty) for s in _vector(x)])

    return compute


@register_kernel("StringSplitV2")
def _string_split_v2(ctx: KernelContext):
    maxsplit = ctx.node_def.attr["maxsplit"].i

    def split(s: bytes, sep: bytes) -> list[bytes]:
        if maxsplit == 0:
            return [s]
        if sep:
            return s.split(sep, maxsplit)
        # TF's whitespace split: once maxsplit tokens are out, the rest (even empty)
        # is one more token.
        tokens, rest = [], s.lstrip(_WHITESPACE)
        while rest:
            end = next((i for i, c in enumerate(rest) if c in _WHITESPACE), len(rest))
            tokens.append(rest[:end])
            rest = rest[end:].lstrip(_WHITESPACE)
            if maxsplit > 0 and len(tokens) == maxsplit:
                tokens.append(rest)
                break
        return tokens

    def compute(x, sep):
        sep = _scalar_bytes(sep)
        return _sparse_tokens([split(s, sep) for s in _vector(x)])

    return compute


@register_kernel("UnsortedSegmentJoin")
def _unsorted_segment_join(ctx: KernelContext):
    separator = ctx.node_def.attr["separator"].s

    def compute(inputs, segment_ids, num_segments):
        data = np.asarray(inputs, dtype=object)
        ids = np.asarray(segment_ids)
        n = int(np.asarray(num_segments))
        if data.shape[:ids.ndim] != ids.shape:
            raise _invalid(f"data.shape = {list(data.shape)} does not start with "
                           f"segment_ids.shape = {list(ids.shape)}")
        if n < 0:
            raise _invalid(f"Number of segments cannot be negative, got {n}")
        inner = data.shape[ids.ndim:]
        rows = data.reshape((ids.size,) + inner)
        parts: list[list] = [[] for _ in range(n)]
        for k, seg in enumerate(ids.reshape(-1).tolist()):
            if not 0 <= seg < n:
                raise _invalid("segment_ids are not allowed to exceed num_segments or to "
                               "have negative values.")
            parts[seg].append(k)
        out = np.empty((n,) + inner, dtype=object)
        for seg in range(n):
            for pos in np.ndindex(*inner):
                out[(seg,) + pos] = separator.join(bytes(rows[(k,) + pos]) for k in parts[seg])
        return (out,)

    return compute


@register_kernel("StringNGrams")
def _string_ngrams(ctx: KernelContext):
    attr = ctx.node_def.attr
    separator = attr["separator"].s
    widths = list(attr["ngram_widths"].list.i)
    left_pad, right_pad = attr["left_pad"].s, attr["right_pad"].s
    pad_width_attr = attr["pad_width"].i
    preserve_short = attr["preserve_short_sequences"].b
    splits_dtype = ctx.attr("Tsplits").as_numpy_dtype

    def pad_width_for(width: int) -> int:
        return min(width - 1 if pad_width_attr < 0 else pad_width_attr, width - 1)

    def make(tokens: list[bytes], num: int, width: int, pad: int) -> list[bytes]:
        out = []
        for k in range(num):
            left = max(0, pad - k)
            right = max(0, pad - (num - (k + 1)))
            count = width - (left + right)
            start = 0 if left > 0 else k - pad
            parts = [left_pad] * left + tokens[start:start + count] + [right_pad] * right
            out.append(separator.join(parts))
        return out

    def compute(data, data_splits):
        tokens = [bytes(t) for t in np.asarray(data, dtype=object).reshape(-1)]
        splits = np.asarray(data_splits).reshape(-1).tolist()
        if splits and (splits[0] != 0 or splits[-1] != len(tokens)):
            raise _invalid("Invalid data_splits: they must start at 0 and end at the "
                           "number of tokens")
        grams, out_splits = [], [0]
        for a, b in zip(splits[:-1], splits[1:]):
            row, before = tokens[a:b], len(grams)
            for width in widths:
                pad = pad_width_for(width)
                num = max(0, len(row) + 2 * pad - width + 1)
                grams += make(row, num, width, pad)
            if preserve_short and len(grams) == before and row:
                width = len(row) + 2 * pad_width_attr
                grams += make(row, 1, width, pad_width_for(width))
            out_splits.append(len(grams))
        return (np.array(grams, dtype=object).reshape(len(grams)),
                np.asarray(out_splits, splits_dtype))

    return compute
