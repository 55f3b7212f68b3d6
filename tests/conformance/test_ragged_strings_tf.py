"""Reference tier: the string ops TF gives RaggedTensor results — unicode_decode (and
_with_offsets), unicode_split (and _with_offsets), bytes_split, strings.split and
string_split with result_type="RaggedTensor" — and RaggedTensor.to_tensor/to_sparse,
against TensorFlow's compat.v1: fetched values (RaggedTensorValue.to_list, ragged rank),
result kinds, static shapes and dtypes. Skipped without TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1
# Shapes print as TF1 prints them, (?, 2), on both sides.
pytestmark = pytest.mark.usefixtures("tf_v1_tensorshape")

B = [b"ab\x01c\xc2\x85d", b"\xff\xfeok", b"\xe2\x82x", b"caf\xc3\xa9", b"", b"\xed\xa0\x80z"]
UTF16 = [b"\x00a\xd8\x00\x00b"]

CASES = {
    "decode": lambda s: s.unicode_decode(B, "UTF-8"),
    "decode_scalar": lambda s: s.unicode_decode(B[3], "UTF-8"),
    "decode_ignore_controls": lambda s: s.unicode_decode(B, "UTF-8", errors="ignore",
                                                         replace_control_characters=True),
    "decode_matrix": lambda s: s.unicode_decode([[B[0], B[1]], [B[2], B[3]]], "UTF-8",
                                                replacement_char=63),
    "decode_offsets": lambda s: s.unicode_decode_with_offsets(B, "UTF-8"),
    "decode_offsets_scalar": lambda s: s.unicode_decode_with_offsets(B[0], "UTF-8"),
    "decode_utf16": lambda s: s.unicode_decode(UTF16, "UTF-16-BE"),
    "decode_utf16_offsets": lambda s: s.unicode_decode_with_offsets(UTF16, "UTF-16-BE"),
    "split": lambda s: s.unicode_split(B, "UTF-8"),
    "split_offsets_matrix": lambda s: s.unicode_split_with_offsets([[B[3]], [B[2]]], "UTF-8"),
    "bytes_split": lambda s: s.bytes_split(B),
    "bytes_split_scalar": lambda s: s.bytes_split(B[3]),
    "bytes_split_matrix": lambda s: s.bytes_split([["ab", ""], ["c", "de"]]),
    "strings_split_ragged": lambda s: s.split(["a b", "", "c  d e"], result_type="RaggedTensor"),
    "strings_split_ragged_matrix": lambda s: s.split([["a b"], ["c"]],
                                                     result_type="RaggedTensor"),
    "ngrams": lambda s: s.ngrams(["a", "b", "c", "d"], 2),
    "ngrams_widths": lambda s: s.ngrams(["a", "b", "c", "d"], [1, 3], separator="_"),
    "ngrams_padded": lambda s: s.ngrams(["a", "b", "c", "d"], 3, pad_values="#"),
    "ngrams_pad_pair_width": lambda s: s.ngrams(["a", "b", "c", "d"], 3,
                                                pad_values=("<", ">"), padding_width=1),
    "ngrams_preserve_short": lambda s: s.ngrams(["a", "b"], 3, preserve_short_sequences=True),
    "ngrams_preserve_short_padded": lambda s: s.ngrams(
        ["a"], 4, pad_values="x", padding_width=1, preserve_short_sequences=True),
    "ngrams_matrix": lambda s: s.ngrams([["a", "b", "c"], ["d", "e", "f"]], 2),
    "ngrams_rank3": lambda s: s.ngrams([[["a", "b"], ["c", "d"]]], 2),
    "ngrams_too_wide": lambda s: s.ngrams(["a", "b", "c", "d"], 5),
    "ngrams_ragged": lambda s: s.ngrams(s.split(["a b c", "", "d"], result_type="RaggedTensor"),
                                        2, pad_values="P"),
    "ngrams_ragged_short": lambda s: s.ngrams(
        s.split(["a b c", "", "d"], result_type="RaggedTensor"), 2,
        preserve_short_sequences=True),
    "to_tensor": lambda s: s.unicode_decode(B, "UTF-8").to_tensor(),
    "to_tensor_default": lambda s: s.bytes_split(["ab", "", "c"]).to_tensor("-"),
    "to_sparse": lambda s: s.unicode_decode([[B[0], B[1]], [B[2], B[3]]], "UTF-8").to_sparse(),
}


def _value(r):
    if isinstance(r, tuple):
        return tuple(_value(x) for x in r)
    if hasattr(r, "to_list"):
        return "ragged", r.to_list(), r.ragged_rank
    if hasattr(r, "indices"):
        return r.indices.tolist(), r.values.tolist(), r.dense_shape.tolist()
    return np.asarray(r).tolist(), np.asarray(r).dtype.name


def _static(o):
    if isinstance(o, tuple):
        return tuple(_static(x) for x in o)
    kind = "RaggedTensor" if hasattr(o, "row_splits") else \
        "SparseTensor" if hasattr(o, "indices") else "Tensor"
    return kind, str(o.shape), o.dtype.name


def _run(lib, case):
    with lib.Graph().as_default():
        out = CASES[case](lib.strings)
        return _value(lib.Session().run(out)), _static(out)


@pytest.mark.parametrize("case", sorted(CASES))
def test_ragged_string_ops_match_tf(case):
    assert _run(tf, case) == _run(tf1, case)


def test_string_split_ragged_result_matches_tf():
    def run(lib):
        with lib.Graph().as_default():
            out = lib.string_split(["a b", "", "c"], result_type="RaggedTensor")
            return _value(lib.Session().run(out)), _static(out)

    assert run(tf) == run(tf1)
