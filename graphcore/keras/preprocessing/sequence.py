"""tf.keras.preprocessing.sequence: ``pad_sequences`` (lists of sequences to one array,
padded or truncated before or after) and ``make_sampling_table``."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["make_sampling_table", "pad_sequences"]


def pad_sequences(sequences: Any, maxlen: int | None = None, dtype: Any = "int32",
                  padding: str = "pre", truncating: str = "pre", value: Any = 0.0) -> Any:
    """[num_samples, maxlen] (plus each element's shape): each sequence cut to ``maxlen``
    (its start dropped with truncating='pre') and filled with ``value`` before it
    (padding='pre') or after it."""
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    num_samples = len(sequences)
    lengths, sample_shape, flag = [], (), True
    for x in sequences:
        try:
            lengths.append(len(x))
            if flag and len(x):
                sample_shape = np.asarray(x).shape[1:]
                flag = False
        except TypeError as e:
            raise ValueError("`sequences` must be a list of iterables. Found non-iterable: "
                             f"{x}") from e
    if maxlen is None:
        maxlen = np.max(lengths)
    is_dtype_str = np.issubdtype(dtype, np.str_)
    if isinstance(value, str) and dtype is not object and not is_dtype_str:
        raise ValueError(f"`dtype` {dtype} is not compatible with `value`'s type: "
                         f"{type(value)}\nYou should set `dtype=object` for variable length "
                         "strings.")
    x = np.full((num_samples, maxlen) + sample_shape, value, dtype=dtype)
    for idx, s in enumerate(sequences):
        if not len(s):
            continue
        if truncating == "pre":
            trunc = s[-maxlen:]
        elif truncating == "post":
            trunc = s[:maxlen]
        else:
            raise ValueError(f'Truncating type "{truncating}" not understood')
        trunc = np.asarray(trunc, dtype=dtype)
        if trunc.shape[1:] != sample_shape:
            raise ValueError(f"Shape of sample {trunc.shape[1:]} of sequence at position "
                             f"{idx} is different from expected shape {sample_shape}")
        if padding == "post":
            x[idx, :len(trunc)] = trunc
        elif padding == "pre":
            x[idx, -len(trunc):] = trunc
        else:
            raise ValueError(f'Padding type "{padding}" not understood')
    return x


def make_sampling_table(size: int, sampling_factor: float = 1e-5) -> Any:
    """The probability of sampling the word of each rank (word2vec's subsampling of
    frequent words, for Zipf-distributed frequencies)."""
    gamma = 0.577
    rank = np.arange(size)
    rank[0] = 1
    inv_fq = rank * (np.log(rank) + gamma) + 0.5 - 1.0 / (12.0 * rank)
    f = sampling_factor * inv_fq
    return np.minimum(1.0, f / np.sqrt(f))
