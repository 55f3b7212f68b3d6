"""Reference tier: the parsing ops (graphcore/ops/parsing_ops.py) and the Example protos
against TensorFlow's compat.v1 — Example bytes, parse_example / parse_single_example
outputs (values, dtypes, static shapes, node names), decode_raw, decode_csv,
serialize_tensor / parse_tensor, read_file / write_file, and error classes. Skipped
without TensorFlow."""

import gzip
import os
import zlib

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1


def _example(lib, **features):
    """An Example of ``lib``'s protos; a feature value is (kind, values)."""
    make = {"f": lambda v: lib.train.Feature(float_list=lib.train.FloatList(value=v)),
            "i": lambda v: lib.train.Feature(int64_list=lib.train.Int64List(value=v)),
            "b": lambda v: lib.train.Feature(bytes_list=lib.train.BytesList(value=v))}
    return lib.train.Example(features=lib.train.Features(
        feature={k: make[kind](v) for k, (kind, v) in features.items()}))


EXAMPLES = [
    {"a": ("f", [3.0, 4.0]), "b": ("i", [1, 2, 3]), "c": ("b", [b"x"]),
     "d": ("i", [5, 6, 7, 8]), "s": ("b", [b"p", b"q"])},
    {"c": ("b", [b"y"]), "d": ("i", [9, 10]), "s": ("b", [])},
    {"a": ("f", [0.5, -1.0]), "c": ("b", [b"z"]), "b": ("i", [])},
]


def _serialized(lib, examples=EXAMPLES):
    return [_example(lib, **e).SerializeToString() for e in examples]


def test_example_bytes_equal_tf():
    ours = _example(tf, **EXAMPLES[0])
    theirs = _example(tf1, **EXAMPLES[0])
    assert ours.SerializeToString(deterministic=True) == \
        theirs.SerializeToString(deterministic=True)
    # Both ways: TF's bytes parse here into the same message.
    assert tf.train.Example.FromString(theirs.SerializeToString()) == ours
    seq = tf.train.SequenceExample(context=ours.features)
    seq.feature_lists.feature_list["t"].feature.add().int64_list.value.extend([1, 2])
    ref = tf1.train.SequenceExample.FromString(seq.SerializeToString(deterministic=True))
    assert ref.feature_lists.feature_list["t"].feature[0].int64_list.value == [1, 2]
    assert ref.SerializeToString(deterministic=True) == seq.SerializeToString(
        deterministic=True)


FEATURES = {
    "fixed_default": lambda t: {"a": t.FixedLenFeature([2], t.float32, default_value=[1, 2])},
    "fixed_required": lambda t: {"c": t.FixedLenFeature([], t.string)},
    "fixed_2d_default": lambda t: {"a": t.FixedLenFeature([1, 2], t.float32,
                                                          default_value=[[7.0, 8.0]])},
    "varlen": lambda t: {"b": t.VarLenFeature(t.int64), "s": t.VarLenFeature(t.string)},
    "sequence": lambda t: {"d": t.FixedLenSequenceFeature([2], t.int64, allow_missing=True)},
    "sequence_scalar_padding": lambda t: {"d": t.FixedLenSequenceFeature(
        [], t.int64, allow_missing=True, default_value=-1)},
    "mixed": lambda t: {"a": t.FixedLenFeature([2], t.float32, default_value=[1, 2]),
                        "b": t.VarLenFeature(t.int64), "c": t.FixedLenFeature([], t.string),
                        "d": t.FixedLenSequenceFeature([2], t.int64, allow_missing=True)},
    # errors: a required feature missing, a wrong type, a wrong count
    "missing_required": lambda t: {"a": t.FixedLenFeature([2], t.float32)},
    "wrong_type": lambda t: {"c": t.FixedLenFeature([], t.int64)},
    "wrong_count": lambda t: {"b": t.FixedLenFeature([2], t.int64, default_value=[0, 0])},
    "wrong_count_bytes": lambda t: {"c": t.FixedLenFeature([2], t.string,
                                                           default_value=["", ""])},
    "not_a_multiple": lambda t: {"b": t.FixedLenSequenceFeature([2], t.int64,
                                                                allow_missing=True)},
}


def _error(e):
    """The error's class and message: TF's line before its ``{{node}}`` line (after the
    traceback it adds), graphcore's first line (before the op's creation site)."""
    lines = [ln for ln in e.message.splitlines() if ln.strip()]
    if isinstance(e, tf_ref.errors.OpError) and "{{node" in lines[-1]:
        return [type(e).__name__, lines[-2]]
    return [type(e).__name__, lines[0]]


def _value(v):
    if hasattr(v, "dense_shape"):
        return [_value(v.indices), _value(v.values), _value(v.dense_shape)]
    a = np.asarray(v)
    return [str(a.dtype), a.tolist()]


def _static(t):
    if hasattr(t, "dense_shape"):
        return [_static(t.indices), _static(t.values), _static(t.dense_shape)]
    return [t.dtype.name, t.shape.as_list() if t.shape.ndims is not None else None]


def _nodes(g):
    """(name, op) of the graph's nodes, less a Const no node reads: TF's reshape(x, [])
    leaves the float "Reshape/shape" it first makes of [] dangling (its "shape_1" is the
    int32 one the Reshape reads); graphcore's reshape makes only the one it uses, so
    the rest is compared with that unread node left out."""
    graph_def = g.as_graph_def()
    read = {i.split(":")[0].lstrip("^") for n in graph_def.node for i in n.input}
    return [(n.name.replace("shape_1", "shape"), n.op) for n in graph_def.node
            if n.op != "Const" or n.name in read or "/" not in n.name
            or not n.name.endswith("Reshape/shape") or n.attr["dtype"].type == 3]


def _parse(lib, case, single):
    with lib.Graph().as_default() as g:
        if single:
            s = lib.placeholder(lib.string, [], name="s")
            out = lib.parse_single_example(s, FEATURES[case](lib))
            feed = _serialized(lib)[0]
        else:
            s = lib.placeholder(lib.string, [None], name="s")
            out = lib.io.parse_example(s, FEATURES[case](lib), name="parsed")
            feed = _serialized(lib)
        static = {k: _static(v) for k, v in out.items()}
        nodes = _nodes(g)
        with lib.Session() as sess:
            try:
                values = {k: _value(v) for k, v in sess.run(out, {s: feed}).items()}
            except tf_ref.errors.OpError as e:
                values = _error(e)
            except tf.errors.OpError as e:
                values = _error(e)
    return static, nodes, values


@pytest.mark.parametrize("single", [False, True], ids=["batch", "single"])
@pytest.mark.parametrize("case", sorted(FEATURES))
def test_parse_example_matches_tf(case, single):
    assert _parse(tf, case, single) == _parse(tf1, case, single)


OPS = {
    "decode_raw_int32": lambda t: t.decode_raw(t.constant([b"\x01\x00\x00\x00\x02\x00\x00\x00",
                                                           b"\xff\xff\xff\xff\x00\x00\x00\x80"]),
                                               t.int32),
    "decode_raw_big_endian": lambda t: t.io.decode_raw(t.constant([[b"\x00\x01", b"\x01\x00"]]),
                                                       t.uint16, little_endian=False),
    "decode_raw_float64_uint8": lambda t: [
        t.decode_raw(t.constant(np.array([1.5, -2.0]).tobytes()), t.float64),
        t.decode_raw(t.constant(b"abc"), t.uint8)],
    "decode_raw_bad_length": lambda t: t.decode_raw(t.constant(b"abc"), t.float32),
    "decode_raw_unequal": lambda t: t.decode_raw(t.constant([b"ab", b"abcd"]), t.uint8),
    "decode_csv": lambda t: t.decode_csv(
        t.constant(['1,2.5,"a,""b""",7', ",3,x,8", " 4 ,NA,,9"]),
        [[7], [0.0], t.constant(["dflt"]), t.constant([], t.int64)], na_value="NA"),
    "decode_csv_doubles": lambda t: t.decode_csv(
        t.constant(["1e3,-.5,inf", "2,3,4"]), [[0.0], t.constant([0.0], t.float64), [1]]),
    "decode_csv_select_delim": lambda t: t.io.decode_csv(
        t.constant([["1|x|2.0", "3|y|4.5"]]), [[0], [0.0]], field_delim="|",
        select_cols=[0, 2]),
    "decode_csv_no_quote": lambda t: t.decode_csv(t.constant(['a"b,1']), [[""], [0]],
                                                  use_quote_delim=False),
    "decode_csv_required_missing": lambda t: t.decode_csv(t.constant([",1"]),
                                                          [t.constant([], t.int32), [0]]),
    "decode_csv_bad_int": lambda t: t.decode_csv(t.constant(["1.5"]), [[0]]),
    "decode_csv_field_count": lambda t: t.decode_csv(t.constant(["1,2,3"]), [[0], [0]]),
    "decode_compressed": lambda t: [
        t.decode_compressed(t.constant([zlib.compress(b"abc" * 9), zlib.compress(b"")]),
                            "ZLIB"),
        t.io.decode_compressed(t.constant([[gzip.compress(b"\x00z")]]), compression_type="GZIP"),
        t.decode_compressed(t.constant(b"plain"))],
    "serialize_tensor": lambda t: [
        t.serialize_tensor(t.constant([[1.0, 2.0]])),
        t.serialize_tensor(t.constant(3, t.int64)),
        t.serialize_tensor(t.constant([b"ab", b""])),
        t.serialize_tensor(t.constant([True, False]))],
    "parse_tensor": lambda t: [
        t.parse_tensor(t.serialize_tensor(t.constant([[1, 2], [3, 4]])), t.int32),
        t.io.parse_tensor(t.serialize_tensor(t.constant([b"x", b"yz"])), t.string)],
    "parse_tensor_wrong_type": lambda t: t.parse_tensor(
        t.serialize_tensor(t.constant([1.0])), t.int32),
}


def _run(lib, case):
    with lib.Graph().as_default() as g:
        out = OPS[case](lib)
        outs = out if isinstance(out, list) else [out]
        static = [_static(o) for o in outs]
        nodes = [(n.name, n.op) for n in g.as_graph_def().node]
        with lib.Session() as sess:
            try:
                values = [_value(v) for v in sess.run(outs)]
            except tf_ref.errors.OpError as e:
                values = _error(e)
            except tf.errors.OpError as e:
                values = _error(e)
    return static, nodes, values


@pytest.mark.parametrize("case", sorted(OPS))
def test_parsing_ops_match_tf(case):
    assert _run(tf, case) == _run(tf1, case)


def test_read_and_write_file_match_tf(tmp_path):
    results = []
    for lib, sub in ((tf, "ours"), (tf1, "theirs")):
        path = str(tmp_path / sub / "deeper" / "f.bin")
        with lib.Graph().as_default() as g:
            write = lib.write_file(path, b"\x00contents\xff")
            read = lib.io.read_file(path)
            missing = lib.read_file(str(tmp_path / sub / "absent"))
            nodes = [(n.name, n.op) for n in g.as_graph_def().node]
            with lib.Session() as sess:
                sess.run(write)
                value = sess.run(read)
                with pytest.raises(Exception) as err:
                    sess.run(missing)
        results.append((nodes, value, type(err.value).__name__, read.shape.as_list()))
    assert results[0] == results[1]
    assert results[0][1] == b"\x00contents\xff"


def test_write_graph_matches_tf(tmp_path):
    written = []
    for lib in (tf, tf1):
        with lib.Graph().as_default() as g:
            lib.add(lib.constant(1.5, name="a"), lib.constant([2.0, 0.25]), name="sum")
            text = lib.train.write_graph(g, str(tmp_path / lib.__name__ / "d"), "g.pbtxt")
            binary = lib.io.write_graph(g.as_graph_def(), str(tmp_path / lib.__name__),
                                        "g.pb", as_text=False)
        written.append((os.path.relpath(text, tmp_path / lib.__name__),
                        open(text).read().split("versions")[0],
                        type(tf1.GraphDef.FromString(open(binary, "rb").read())).__name__))
    assert written[0] == written[1]
