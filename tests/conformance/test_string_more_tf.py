"""Reference tier: UnicodeScript, string hashing (StringToHashBucket's Hash64,
StringToHashBucketStrong's SipHash, Fingerprint), splitting (StringSplit, StringSplitV2 as
TF1's SparseTensor results), UnsortedSegmentJoin, UnicodeTranscode and UnicodeEncode
against TensorFlow's compat.v1: values, dtypes, static shapes, the GraphDef each builds
and kernel errors. Skipped without TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1
# Shapes print as TF1 prints them, (?, 2), on both sides.
pytestmark = pytest.mark.usefixtures("tf_v1_tensorshape")

WORDS = ["", "a", "hello", "hello world!", "0123456789abcdef", "x" * 23, "ünï"]
TEXT = ["a b  c", "", "  lead and trail  ", "x,y,,z", "tab\there\nnl"]
BYTES = [b"ab\x01c\x7f\xc2\x85d", b"\xff\xfeok", b"\xe2\x82x", b"caf\xc3\xa9", b"\xed\xa0\x80z"]

CASES = {
    "to_hash_bucket": lambda lib: lib.strings.to_hash_bucket(WORDS, 1000000007),
    "string_to_hash_bucket": lambda lib: lib.string_to_hash_bucket(input=WORDS,
                                                                   num_buckets=10),
    "to_hash_bucket_strong": lambda lib: lib.strings.to_hash_bucket_strong(
        WORDS, 1 << 40, [1, 2]),
    "hash_bucket_strong_big_key": lambda lib: lib.string_to_hash_bucket_strong(
        WORDS, 77, [0xDECAFCAFFE, 12345678901234]),
    "fingerprint_strings": lambda lib: lib.fingerprint(WORDS),
    "fingerprint_ints": lambda lib: lib.fingerprint(lib.constant([[1, 2], [3, 4]])),
    "fingerprint_string_rows": lambda lib: lib.fingerprint(lib.constant([["a", "b"],
                                                                        ["c", "dd"]])),
    "fingerprint_doubles": lambda lib: lib.fingerprint(np.arange(6.0).reshape(3, 2)),
    "string_split": lambda lib: lib.string_split(TEXT),
    "string_split_keep_empty": lambda lib: lib.string_split(TEXT, skip_empty=False),
    "string_split_chars": lambda lib: lib.string_split(TEXT, ""),
    "string_split_any_of": lambda lib: lib.string_split(TEXT, delimiter=", "),
    "split_whitespace": lambda lib: lib.strings.split(TEXT),
    "split_sep": lambda lib: lib.strings.split(TEXT, " "),
    "split_maxsplit": lambda lib: lib.strings.split(TEXT, maxsplit=1),
    "split_maxsplit_tail": lambda lib: lib.strings.split(["a b", "", "x"], maxsplit=2),
    "split_sep_maxsplit": lambda lib: lib.strings.split(TEXT, ",", maxsplit=1),
    "split_maxsplit_0": lambda lib: lib.strings.split(TEXT, maxsplit=0),
    "split_scalar": lambda lib: lib.strings.split("a b"),
    "split_matrix": lambda lib: lib.strings.split([["a b", "c"], ["", "d e f"]]),
    "segment_join": lambda lib: lib.strings.unsorted_segment_join(
        ["a", "b", "c", "d"], [1, 0, 1, 2], 4, separator="-"),
    "segment_join_rows": lambda lib: lib.strings.unsorted_segment_join(
        [["a", "b"], ["c", "d"]], [0, 0], 2),
    "segment_join_int64": lambda lib: lib.strings.unsorted_segment_join(
        TEXT, [0, 0, 1, 1, 0], lib.constant(2, lib.int64)),
    "transcode_replace": lambda lib: lib.strings.unicode_transcode(
        BYTES, "UTF-8", "UTF-8", replacement_char=ord("?")),
    "transcode_controls": lambda lib: lib.strings.unicode_transcode(
        BYTES, "UTF-8", "UTF-8", replacement_char=ord("?"), replace_control_characters=True),
    "transcode_ignore": lambda lib: lib.strings.unicode_transcode(
        BYTES, "UTF-8", "UTF-8", errors="ignore", replace_control_characters=True),
    "transcode_utf16": lambda lib: lib.strings.unicode_transcode(BYTES, "UTF-8", "UTF-16-BE"),
    "transcode_latin1": lambda lib: lib.strings.unicode_transcode([b"caf\xe9"], "ISO-8859-1",
                                                                  "UTF-32-BE"),
    "transcode_from_utf16": lambda lib: lib.strings.unicode_transcode([b"\x00a\xd8\x00"],
                                                                      "UTF-16-BE", "UTF-8"),
    "unicode_script": lambda lib: lib.strings.unicode_script(
        [[65, 0x3B1, 0x416, 0x5D0, 0x627, 0x915, 0x4E2D, 0x3042, 0x30A2, 0xAC00, 0x301, 48]]),
    "unicode_script_sweep": lambda lib: lib.strings.unicode_script(
        np.arange(0, 0x110000, 61, dtype=np.int32)),
    "unicode_script_invalid": lambda lib: lib.strings.unicode_script(
        [-1, 0x110000, 0x10FFFF, 0x1F600, 0xE000]),
    "encode_vector": lambda lib: lib.strings.unicode_encode([104, 0x110000, 233], "UTF-8"),
    "encode_ignore": lambda lib: lib.strings.unicode_encode([104, -1], "UTF-8",
                                                            errors="ignore"),
    "encode_utf16": lambda lib: lib.strings.unicode_encode([104, 233], "UTF-16-BE"),
    "encode_matrix": lambda lib: lib.strings.unicode_encode(
        [[104, 105, -1, 0x110000, 0xD800, 233]], "UTF-8"),
    "encode_empty_rows": lambda lib: lib.strings.unicode_encode(lib.zeros([2, 3, 0],
                                                                          lib.int32), "UTF-8"),
    "encode_rank3": lambda lib: lib.strings.unicode_encode([[[65, 66], [67, 68]]], "UTF-32-BE"),
}
# Built by TF through RaggedTensor ops graphcore does not have: values and shapes only.
_RAGGED_PATH = {"split_matrix", "encode_matrix", "encode_empty_rows", "encode_rank3"}


def _run(lib, case):
    with lib.Graph().as_default() as g:
        out = CASES[case](lib)
        value = lib.Session().run(out)
        parts = [out] if isinstance(out, (tf.Tensor, tf_ref.Tensor)) else \
            [out.indices, out.values, out.dense_shape]
        shapes = [str(t.shape) for t in parts]
        # TF's reshape to [] leaves an unused second shape Const (Reshape/shape_1).
        nodes = None if case in _RAGGED_PATH else [(n.name, n.op)
                                                   for n in g.as_graph_def().node
                                                   if not n.name.endswith("Reshape/shape_1")]
    values = [np.asarray(v) for v in (value if isinstance(value, tuple) else (value,))]
    return values, shapes, nodes


@pytest.mark.parametrize("case", sorted(CASES))
def test_string_ops_match_tf(case):
    ours, theirs = _run(tf, case), _run(tf1, case)
    for a, b in zip(ours[0], theirs[0]):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.tolist() == b.tolist()
    assert ours[1:] == theirs[1:]


ERRORS = {
    "transcode_strict": lambda lib: lib.strings.unicode_transcode(BYTES, "UTF-8", "UTF-8",
                                                                  errors="strict"),
    "encode_strict": lambda lib: lib.strings.unicode_encode([104, -5], "UTF-8",
                                                            errors="strict"),
    "segment_join_negative": lambda lib: lib.strings.unsorted_segment_join(["a"], [-1], 1),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_string_op_errors_match_tf(case):
    messages = []
    for lib in (tf, tf1):
        with lib.Graph().as_default():
            out = ERRORS[case](lib)
            with pytest.raises(lib.errors.InvalidArgumentError) as info:
                lib.Session().run(out)
        messages.append(info.value.message)
    assert messages[0].split("\n")[0] in messages[1]
