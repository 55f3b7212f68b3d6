"""Reference tier: SequenceExample parsing (ParseSequenceExampleV2 through
tf.io.parse_sequence_example and tf.parse_single_sequence_example), SparseFeature in
parse_example/parse_single_example, and DecodeJSONExample's bytes against TensorFlow's
compat.v1 on the same serialized protos: values, dtypes, static shapes, GraphDefs and
errors. Skipped without TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1
# Shapes print as TF1 prints them, (?, 2), on both sides.
pytestmark = pytest.mark.usefixtures("tf_v1_tensorshape")
example_pb2 = pytest.importorskip("tensorflow.core.example.example_pb2")


def _sequence(length, tokens, frames, label=None):
    s = example_pb2.SequenceExample()
    s.context.feature["length"].int64_list.value.append(length)
    if label is not None:
        s.context.feature["label"].bytes_list.value.extend(label)
    lists = s.feature_lists.feature_list
    for t in tokens:
        lists["tokens"].feature.add().bytes_list.value.extend(t)
    for f in frames:
        lists["frames"].feature.add().float_list.value.extend(f)
    return s.SerializeToString()


SEQUENCES = [_sequence(2, [[b"a"], [b"b", b"c"]], [[1.0, 2.0], [3.0, 4.0]], [b"x"]),
             _sequence(1, [[b"d"]], [[5.0, 6.0]]), _sequence(0, [], [])]


def _example(ids, values):
    e = example_pb2.Example()
    e.features.feature["ix"].int64_list.value.extend(ids)
    e.features.feature["val"].float_list.value.extend(values)
    e.features.feature["ix2"].int64_list.value.extend([0] * len(ids))
    return e.SerializeToString()


EXAMPLES = [_example([3, 1], [0.5, 0.25]), _example([], []), _example([0], [9.0])]
JSON = ['{"features": {"feature": {"z": {"floatList": {"value": [1.5, 2]}}, "a": {"int64List":'
        ' {"value": ["-1", 7]}}, "e": {}, "b": {"bytesList": {"value": []}}}}}', '{}',
        '{"features": {}}', '{"features": {"feature": {"q": {"bytes_list": {"value": ["aGk=",'
        ' ""]}}}}}']


def _features(lib):
    context = {"length": lib.io.FixedLenFeature([], lib.int64),
               "label": lib.io.VarLenFeature(lib.string)}
    sequence = {"tokens": lib.io.VarLenFeature(lib.string),
                "frames": lib.io.FixedLenSequenceFeature([2], lib.float32, allow_missing=True)}
    return context, sequence


CASES = {
    "parse_sequence_example": lambda lib: lib.io.parse_sequence_example(
        SEQUENCES, *_features(lib)),
    "parse_sequence_example_named": lambda lib: lib.io.parse_sequence_example(
        SEQUENCES, sequence_features=_features(lib)[1], example_names=["a", "b", "c"],
        name="seq"),
    "parse_single_sequence_example": lambda lib: lib.parse_single_sequence_example(
        SEQUENCES[0], *_features(lib)),
    "parse_single_sequence_context_only": lambda lib: lib.io.parse_single_sequence_example(
        SEQUENCES[1], context_features=_features(lib)[0]),
    "sparse_feature": lambda lib: lib.io.parse_example(EXAMPLES, {
        "sp": lib.io.SparseFeature("ix", "val", lib.float32, 5),
        "val": lib.io.VarLenFeature(lib.float32)}),
    "sparse_feature_2d": lambda lib: lib.parse_example(EXAMPLES, {
        "sp2": lib.SparseFeature(["ix2", "ix"], "val", lib.float32, [1, 4],
                                 already_sorted=True)}),
    "sparse_feature_single": lambda lib: lib.io.parse_single_example(EXAMPLES[0], {
        "sp": lib.io.SparseFeature("ix", "val", lib.float32, 5)}),
    "decode_json_example": lambda lib: lib.io.decode_json_example(JSON),
}


def _flat(x):
    if isinstance(x, (tuple, list)):
        return [_flat(v) for v in x]
    if isinstance(x, dict):
        return [(k, _flat(x[k])) for k in sorted(x)]
    if hasattr(x, "indices"):
        return [x.indices.tolist(), x.values.tolist(), x.values.dtype.name,
                x.dense_shape.tolist()]
    return [np.asarray(x).tolist(), np.asarray(x).dtype.name]


def _static(x):
    if isinstance(x, (tuple, list)):
        return [_static(v) for v in x]
    if isinstance(x, dict):
        return [(k, _static(x[k])) for k in sorted(x)]
    if hasattr(x, "indices"):
        return [str(x.indices.shape), str(x.dense_shape.shape), str(x.shape)]
    return str(x.shape)


def _run(lib, case):
    with lib.Graph().as_default() as g:
        out = CASES[case](lib)
        value = lib.Session().run(out)
        return _flat(value), _static(out), [(n.name, n.op) for n in g.as_graph_def().node]


@pytest.mark.parametrize("case", sorted(CASES))
def test_sequence_example_parsing_matches_tf(case):
    assert _run(tf, case) == _run(tf1, case)


ERRORS = {
    "missing_required_list": lambda lib: lib.io.parse_sequence_example(
        SEQUENCES, sequence_features={"frames": lib.io.FixedLenSequenceFeature(
            [2], lib.float32)})[1]["frames"],
    "list_step_count": lambda lib: lib.io.parse_sequence_example(
        [SEQUENCES[2], _sequence(0, [], [[1.0, 2.0], [1.0, 2.0, 3.0], [4.0]])],
        sequence_features={"frames": lib.io.FixedLenSequenceFeature(
            [2], lib.float32, allow_missing=True)})[1]["frames"],
    "list_total_count": lambda lib: lib.io.parse_single_sequence_example(
        _sequence(0, [], [[1.0, 2.0, 3.0]]), sequence_features={
            "frames": lib.io.FixedLenSequenceFeature([2], lib.float32)})[1]["frames"],
    "wrong_list_type": lambda lib: lib.io.parse_single_sequence_example(
        SEQUENCES[0], sequence_features={"tokens": lib.io.VarLenFeature(lib.int64)})[1][
        "tokens"].values,
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_sequence_example_errors_match_tf(case):
    messages = []
    for lib in (tf, tf1):
        with lib.Graph().as_default():
            out = ERRORS[case](lib)
            with pytest.raises(lib.errors.InvalidArgumentError) as info:
                lib.Session().run(out)
        messages.append(info.value.message)
    assert messages[0].split("\n")[0] in messages[1]
