"""Reference tier: the string ops (graphcore/ops/string_ops.py) against TensorFlow's
compat.v1 — values (hash buckets included), op types and errors. Skipped without
TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

WORDS = [[b"Hello World", b"  ab  "], [b"caf\xc3\xa9", b""]]

CASES = {
    "join": lambda t, s: t.string_join([s, "x", s], "-"),
    "join_ns": lambda t, s: t.strings.join([s, s]),
    "substr": lambda t, s: t.substr(s, 1, 3),
    "substr_utf8": lambda t, s: t.strings.substr(s, 0, 4, unit="UTF8_CHAR"),
    "length": lambda t, s: t.strings.length(s),
    "length_utf8": lambda t, s: t.strings.length(s, unit="UTF8_CHAR"),
    "upper_lower": lambda t, s: [t.strings.upper(s), t.strings.lower(s)],
    "strip": lambda t, s: t.string_strip(s),
    "regex_replace": lambda t, s: t.regex_replace(s, "[aeiou]", "_"),
    "regex_replace_first_group": lambda t, s: t.strings.regex_replace(s, r"(\w)(\w)",
                                                                      r"\2\1", False),
    "regex_full_match": lambda t, s: t.strings.regex_full_match(s, r"\s*ab\s*"),
    "reduce_join_all": lambda t, s: t.reduce_join(s, separator="|"),
    "reduce_join_axis": lambda t, s: t.reduce_join(s, 1, keep_dims=True, separator=","),
    "hash_bucket_fast": lambda t, s: t.string_to_hash_bucket_fast(s, 1000),
    "base64": lambda t, s: [t.encode_base64(s), t.encode_base64(s, pad=True),
                            t.decode_base64(t.encode_base64(s))],
    "as_string": lambda t, s: [t.as_string(t.constant([1.5, -2.0])),
                               t.as_string(t.constant([3, 42]), width=4),
                               t.as_string(t.constant([1.23456789]), precision=3),
                               t.as_string(t.constant([True, False]))],
    "to_number": lambda t, s: [t.string_to_number(["3.5", "-2"]),
                               t.string_to_number(["7", "-12"], out_type=t.int32)],
    "to_number_fails": lambda t, s: t.string_to_number(["x1"]),
    "format": lambda t, s: t.strings.format("{} and {}", [t.constant([1, 2]),
                                                        t.constant(3.5)]),
}


def _run(lib, case):
    with lib.Graph().as_default() as g:
        s = lib.constant(WORDS)
        out = CASES[case](lib, s)
        ops = sorted({n.op for n in g.as_graph_def().node} - {"Const"})
        with lib.Session() as sess:
            try:
                value = sess.run(out)
            except Exception as e:
                return ops, type(e).__name__
    values = value if isinstance(value, list) else [value]
    return ops, [np.asarray(v).tolist() for v in values]


@pytest.mark.parametrize("case", sorted(CASES))
def test_string_ops_match_tf(case):
    assert _run(tf, case) == _run(tf1, case)
