"""Reference tier: tf.feature_column (graphcore/feature_column/) against TensorFlow's
compat.v1 — the same columns over the same features in both, the same values put into
both libraries' variables by name: input_layer / linear_model outputs, the variables'
names and shapes, cols_to_vars, one GradientDescent step (the updated variables and
outputs), make_parse_example_spec with parse_example, sequence columns, and errors.
Skipped without TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1
tf_ref.get_logger().setLevel("ERROR")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("vocab")
    words = d / "words.txt"
    words.write_text("a\nb\nc\nd\n")
    ints = d / "ints.txt"
    ints.write_text("100\n200\n300\n")
    return {"words": str(words), "ints": str(ints)}


def _sparse(lib, indices, values, shape, dtype=None):
    return lib.SparseTensor(indices=np.array(indices, np.int64).reshape(-1, 2),
                            values=lib.constant(values, dtype=dtype),
                            dense_shape=np.array(shape, np.int64))


def _features(lib):
    """A batch of 3 examples, dense and sparse, strings, integers and floats."""
    return {
        "a": lib.constant([[1.0, -2.0], [0.5, 3.0], [2.5, 0.0]]),
        "b": lib.constant([1, 5, -3], dtype=lib.int64),          # rank 1: expanded
        "c": lib.constant([[-1.0], [0.5], [1.5]]),
        "s": lib.constant([["a", ""], ["z", "b"], ["c", "c"]]),   # '' cells dropped
        "t": _sparse(lib, [[0, 0], [1, 0], [1, 1], [2, 0]], ["x", "y", "q", "x"], [3, 2]),
        "u": lib.constant([["p"], ["q"], ["r"]]),
        "i": lib.constant([[10, -1], [30, 20], [40, 10]]),        # -1 cells dropped
        "id": _sparse(lib, [[0, 0], [0, 1], [2, 0]], [1, 3, 7], [3, 2], lib.int64),
        "id2": lib.constant([[0, 2], [4, 4], [1, -1]], dtype=lib.int64),
        "w": _sparse(lib, [[0, 0], [0, 1], [2, 0]], [0.5, 2.0, 1.5], [3, 2]),
        "sw": lib.constant([[2.0, 0.0], [1.0, 3.0], [0.5, 1.0]]),
        "wi": lib.constant([[2, 1], [1, 0], [3, 1]]),
        "h": _sparse(lib, [[0, 0], [1, 0], [1, 1], [2, 1]], ["apple", "pear", "fig", "kiwi"],
                     [3, 2]),
        "hi": lib.constant([[7], [123456789], [-5]], dtype=lib.int64),
        "n": _sparse(lib, [[0, 0], [1, 0], [2, 0], [2, 1]], [100, 300, 999, 200], [3, 2],
                     lib.int64),
    }


def _numeric(fc, lib, f):
    return [fc.numeric_column("a", shape=2, normalizer_fn=lambda x: x * 2.0),
            fc.numeric_column("b", dtype=lib.int64),
            fc.bucketized_column(fc.numeric_column("c"), [0.0, 1.0, 2.0])]


def _vocabulary(fc, lib, f):
    return [fc.indicator_column(fc.categorical_column_with_vocabulary_list(
                "s", ["a", "b", "c"], num_oov_buckets=2)),
            fc.indicator_column(fc.categorical_column_with_vocabulary_list(
                "t", ["x", "y"], default_value=0)),
            fc.indicator_column(fc.categorical_column_with_vocabulary_list(
                "i", [10, 20, 30], num_oov_buckets=3)),
            fc.embedding_column(fc.categorical_column_with_vocabulary_file(
                "u", f["words"], num_oov_buckets=1), 3, combiner="sqrtn"),
            fc.embedding_column(fc.categorical_column_with_vocabulary_file(
                "n", f["ints"], vocabulary_size=3, dtype=lib.int64, default_value=1), 2)]


def _hash_identity(fc, lib, f):
    return [fc.embedding_column(fc.categorical_column_with_hash_bucket("h", 7), 2,
                                combiner="sum"),
            fc.indicator_column(fc.categorical_column_with_hash_bucket("hi", 5, lib.int64)),
            fc.indicator_column(fc.categorical_column_with_identity("id", 4, default_value=0)),
            fc.embedding_column(fc.categorical_column_with_identity("id2", 6), 3)]


def _weighted(fc, lib, f):
    return [fc.embedding_column(fc.weighted_categorical_column(
                fc.categorical_column_with_identity("id", 8), "w"), 3, combiner="mean"),
            fc.indicator_column(fc.weighted_categorical_column(
                fc.categorical_column_with_vocabulary_list("s", ["a", "b", "c"]), "sw"))]


def _crossed(fc, lib, f):
    cbucket = fc.bucketized_column(fc.numeric_column("c"), [0.0, 1.0])
    return [fc.indicator_column(fc.crossed_column(["s", cbucket], 11)),
            fc.embedding_column(fc.crossed_column(
                ["u", "t", fc.categorical_column_with_identity("id2", 5)], 13, hash_key=7), 2),
            fc.indicator_column(fc.crossed_column([fc.crossed_column(["s", "t"], 5), "u"], 9)),
            fc.indicator_column(fc.crossed_column(["i", "hi"], 6))]


def _shared(fc, lib, f):
    shared = fc.shared_embedding_columns([fc.categorical_column_with_identity("id2", 8),
                                          fc.categorical_column_with_identity("id", 8)], 3,
                                         combiner="sqrtn")
    return shared + [fc.numeric_column("c")]


def _max_norm(fc, lib, f):
    return [fc.embedding_column(fc.categorical_column_with_identity("id2", 6), 4,
                                max_norm=0.5),
            fc.embedding_column(fc.categorical_column_with_hash_bucket("h", 9), 2,
                                combiner="sum", use_safe_embedding_lookup=False)]


def _linear(fc, lib, f):
    return (_numeric(fc, lib, f)
            + [fc.categorical_column_with_vocabulary_list("s", ["a", "b", "c"],
                                                          num_oov_buckets=1),
               fc.categorical_column_with_hash_bucket("h", 7),
               fc.crossed_column(["s", "u"], 10),
               fc.weighted_categorical_column(fc.categorical_column_with_identity("id", 8),
                                              "w"),
               fc.embedding_column(fc.categorical_column_with_identity("id2", 6), 2),
               fc.indicator_column(fc.categorical_column_with_identity("id", 8))])


def _misc(fc, lib, f):
    pair = fc.bucketized_column(fc.numeric_column("a", shape=(2,)), [0.0, 1.0, 2.0])
    return [fc.indicator_column(pair), fc.embedding_column(pair, 2),
            fc.embedding_column(fc.categorical_column_with_vocabulary_file(
                "u", f["words"], vocabulary_size=2), 2, trainable=False),
            fc.numeric_column("b", dtype=lib.int64, default_value=3),
            fc.indicator_column(fc.weighted_categorical_column(
                fc.categorical_column_with_identity("id2", 5), "wi", dtype=lib.int32))]


# name -> (columns, model, model kwargs)
CASES = {
    "numeric_bucketized": (_numeric, "input_layer", {}),
    "misc": (_misc, "input_layer", {}),
    "vocabulary": (_vocabulary, "input_layer", {}),
    "hash_identity": (_hash_identity, "input_layer", {}),
    "weighted": (_weighted, "input_layer", {}),
    "crossed": (_crossed, "input_layer", {}),
    "shared_embedding": (_shared, "input_layer", {}),
    "max_norm_unsafe": (_max_norm, "input_layer", {}),
    "not_trainable": (_hash_identity, "input_layer",
                      {"trainable": False, "weight_collections": ["extra"]}),
    "linear_sum": (_linear, "linear_model", {"units": 2}),
    "linear_mean": (_linear, "linear_model", {"sparse_combiner": "mean"}),
    # Variables split by the enclosing scope's partitioner.
    "partitioned_embeddings": (_hash_identity, "input_layer", {"partitioned": True}),
    "partitioned_linear_sqrtn": (_linear, "linear_model",
                                 {"units": 3, "sparse_combiner": "sqrtn", "partitioned": True}),
}


def _values(shapes):
    rng = np.random.RandomState(7)
    return {name: rng.uniform(-1, 1, shape).astype(np.float32)
            for name, shape in sorted(shapes.items())}


def _run(lib, case, files, values=None):
    build, model, kwargs = CASES[case]
    kwargs = dict(kwargs)
    partitioner = kwargs.pop("partitioned", False)
    with lib.Graph().as_default() as g:
        columns = build(lib.feature_column, lib, files)
        cols_to_vars = {}
        with lib.variable_scope("model", partitioner=(lib.fixed_size_partitioner(2)
                                                      if partitioner else None)):
            out = getattr(lib.feature_column, model)(_features(lib), columns,
                                                     cols_to_vars=cols_to_vars, **kwargs)
        loss = lib.reduce_sum(lib.square(out) * lib.cast(lib.range(1, 1 + lib.size(out)),
                                                         lib.float32)[0])
        trainable = lib.trainable_variables()
        step = (lib.train.GradientDescentOptimizer(0.1).minimize(loss) if trainable
                else lib.no_op())
        variables = lib.global_variables()
        info = {
            "shapes": {v.op.name: tuple(v.shape.as_list()) for v in variables},
            "trainable": sorted(v.op.name for v in trainable),
            "collections": {k: sorted(v.op.name for v in g.get_collection(k))
                            for k in ("model_variables", "extra")},
            "cols_to_vars": {(c if isinstance(c, str) else c.name): [v.op.name for v in vs]
                             for c, vs in cols_to_vars.items()},
            # TF's C++ shape inference evaluates the constant features' subgraphs (a
            # SparseCross's dense_shape), which graphcore's does not: the batch dimension
            # may be known in TF only.
            "out_shape": out.shape.as_list()[1:],
        }
        slots = {v.op.name: lib.placeholder(v.dtype.base_dtype, v.shape) for v in variables}
        load = lib.group(*[v.assign(slots[v.op.name]) for v in variables])
        with lib.Session() as sess:
            sess.run([lib.global_variables_initializer(), lib.tables_initializer()])
            if values is None:
                values = _values(info["shapes"])
            sess.run(load, {slots[name]: value for name, value in values.items()})
            info["out0"] = sess.run(out)
            sess.run(step)
            info["out1"], after = sess.run([out, variables])
            info["after"] = {v.op.name: a for v, a in zip(variables, after)}
    return info, values


@pytest.mark.parametrize("case", sorted(CASES))
def test_models_match_tf(case, files):
    want, values = _run(tf1, case, files)
    got, _ = _run(tf, case, files, values)
    for key in ("shapes", "trainable", "collections", "cols_to_vars", "out_shape"):
        assert got[key] == want[key], key
    np.testing.assert_allclose(got["out0"], want["out0"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["out1"], want["out1"], rtol=1e-4, atol=1e-5)
    for name, value in want["after"].items():
        np.testing.assert_allclose(got["after"][name], value, rtol=1e-4, atol=1e-5,
                                   err_msg=name)


def _fed(lib):
    """input_layer and linear_model over placeholders: a dense one of unknown rank, a
    sparse one, an int one with -1 cells."""
    fc = lib.feature_column
    x, occ, ids = (lib.placeholder(lib.float32), lib.sparse_placeholder(lib.string),
                   lib.placeholder(lib.int64, [None, None]))
    features = {"x": x, "occ": occ, "i": ids}
    hashed = fc.categorical_column_with_hash_bucket("occ", 20)
    cols = [fc.numeric_column("x"), fc.embedding_column(hashed, 3),
            fc.indicator_column(fc.categorical_column_with_identity("i", 4))]
    out = fc.input_layer(features, cols)
    lm = fc.linear_model(features, [fc.numeric_column("x"), hashed], units=2)
    feed = {x: [1.0, 2.0], ids: [[1, -1], [3, 3]],
            occ: lib.SparseTensorValue([[0, 0], [1, 1]], ["a", "b"], [2, 2])}
    with lib.Session() as sess:
        sess.run([lib.global_variables_initializer(), lib.tables_initializer()])
        for v in lib.global_variables():
            shape = v.shape.as_list()
            v.load(np.linspace(-1, 1, int(np.prod(shape))).reshape(shape), sess)
        return out.shape.as_list()[1:], sess.run([out, lm], feed)


def test_fed_features_match_tf():
    results = []
    for lib in (tf1, tf):
        with lib.Graph().as_default():
            results.append(_fed(lib))
    (want_shape, want), (got_shape, got) = results
    assert got_shape == want_shape
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def _parse(lib, files):
    fc = lib.feature_column
    age = fc.numeric_column("age", default_value=-1.0)
    cols = [age, fc.bucketized_column(age, [18.0, 40.0]),
            fc.embedding_column(fc.categorical_column_with_vocabulary_list(
                "job", ["x", "y", "z"]), 2, initializer=lib.ones_initializer()),
            fc.indicator_column(fc.weighted_categorical_column(
                fc.categorical_column_with_identity("ids", 4), "idw")),
            fc.indicator_column(fc.crossed_column(["job", "city"], 5))]
    spec = fc.make_parse_example_spec(cols)
    with lib.Graph().as_default():
        parsed = lib.parse_example(lib.constant(_examples()), features=spec)
        out = fc.input_layer(parsed, cols)
        with lib.Session() as sess:
            sess.run([lib.global_variables_initializer(), lib.tables_initializer()])
            return {k: repr(v) for k, v in spec.items()}, sess.run(out)


def _examples():
    def feature(v):
        if isinstance(v[0], float):
            return tf_ref.train.Feature(float_list=tf_ref.train.FloatList(value=v))
        if isinstance(v[0], int):
            return tf_ref.train.Feature(int64_list=tf_ref.train.Int64List(value=v))
        return tf_ref.train.Feature(bytes_list=tf_ref.train.BytesList(
            value=[s.encode() for s in v]))

    rows = [{"age": [30.0], "job": ["x", "z"], "ids": [1, 3], "idw": [0.5, 2.0],
             "city": ["paris"]},
            {"job": ["q"], "ids": [2], "idw": [1.0], "city": ["rome", "oslo"]}]
    return [tf_ref.train.Example(features=tf_ref.train.Features(
        feature={k: feature(v) for k, v in row.items()})).SerializeToString() for row in rows]


def test_parse_example_spec_and_input_layer_match_tf(files):
    want_spec, want = _parse(tf1, files)
    got_spec, got = _parse(tf, files)
    assert got_spec == want_spec
    np.testing.assert_allclose(got, want, rtol=1e-6)


def _sequence(lib, builder_cls):
    fc = lib.feature_column
    emb = fc.embedding_column(fc.sequence_categorical_column_with_identity("ids", 4), 2,
                              initializer=lib.constant_initializer(
                                  np.arange(8, dtype=np.float32).reshape(4, 2)))
    ind = fc.indicator_column(fc.sequence_categorical_column_with_vocabulary_list(
        "words", ["a", "b", "c"], num_oov_buckets=1))
    spec = fc.make_parse_example_spec([emb, ind])
    with lib.Graph().as_default():
        builder = builder_cls({
            "ids": _sparse(lib, [[0, 0], [0, 1], [1, 0], [2, 2]], [1, 2, 3, 0], [3, 3],
                           lib.int64),
            "words": _sparse(lib, [[0, 0], [1, 0], [1, 1]], ["a", "c", "zz"], [3, 2])})
        tensors = [c._get_sequence_dense_tensor(builder) for c in (emb, ind)]
        with lib.Session() as sess:
            sess.run([lib.global_variables_initializer(), lib.tables_initializer()])
            return {k: repr(v) for k, v in spec.items()}, sess.run(tensors)


def test_sequence_columns_match_tf():
    from tensorflow.python.feature_column import feature_column as fc_old

    from graphcore.feature_column.base import _LazyBuilder
    want_spec, want = _sequence(tf1, fc_old._LazyBuilder)
    got_spec, got = _sequence(tf, _LazyBuilder)
    assert got_spec == want_spec
    for (g_dense, g_len), (w_dense, w_len) in zip(got, want):
        np.testing.assert_allclose(g_dense, w_dense)
        np.testing.assert_array_equal(g_len, w_len)
    with pytest.raises(ValueError, match="must not be of type _SequenceCategoricalColumn"):
        with tf.Graph().as_default():
            tf.feature_column.input_layer(
                {"ids": _sparse(tf, [[0, 0]], [1], [1, 1], tf.int64)},
                [tf.feature_column.embedding_column(
                    tf.feature_column.sequence_categorical_column_with_identity("ids", 4), 2)])


def test_sequence_numeric_column_matches_tf():
    from tensorflow.python.feature_column import feature_column_v2 as fc_v2

    from graphcore.feature_column.base import _LazyBuilder
    results = []
    for lib in (tf1, tf):
        col = lib.feature_column.sequence_numeric_column("x", shape=(2,), default_value=-1.0)
        with lib.Graph().as_default():
            features = {"x": _sparse(lib, [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1]],
                                     [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [3, 4])}
            if lib is tf1:
                pair = col.get_sequence_dense_tensor(
                    fc_v2.FeatureTransformationCache(features), None)
            else:
                pair = col._get_sequence_dense_tensor(_LazyBuilder(features))
            with lib.Session() as sess:
                results.append((repr(col.parse_example_spec), col.variable_shape.as_list(),
                                *sess.run(list(pair))))
    (ws, wv, wd, wl), (gs, gv, gd, gl) = results
    assert (gs, gv) == (ws, wv)
    np.testing.assert_allclose(gd, wd)
    np.testing.assert_array_equal(gl, wl)


ERRORS = {
    "categorical_in_input_layer": lambda fc, lib: fc.input_layer(
        {"s": lib.constant([["a"]])}, [fc.categorical_column_with_hash_bucket("s", 3)]),
    "duplicate_names": lambda fc, lib: fc.input_layer(
        {"a": lib.constant([[1.0]])}, [fc.numeric_column("a"), fc.numeric_column("a")]),
    "empty_columns": lambda fc, lib: fc.linear_model({"a": lib.constant([[1.0]])}, []),
    "missing_feature": lambda fc, lib: fc.input_layer(
        {"a": lib.constant([[1.0]])}, [fc.numeric_column("b")]),
    "conflicting_spec": lambda fc, lib: fc.make_parse_example_spec(
        [fc.numeric_column("a"), fc.categorical_column_with_hash_bucket("a", 3)]),
    "unsorted_boundaries": lambda fc, lib: fc.bucketized_column(fc.numeric_column("a"),
                                                                [1.0, 0.0]),
    "hash_in_cross": lambda fc, lib: fc.crossed_column(
        [fc.categorical_column_with_hash_bucket("a", 3), "b"], 5),
    "oov_and_default": lambda fc, lib: fc.categorical_column_with_vocabulary_list(
        "a", ["x"], default_value=0, num_oov_buckets=1),
    "identity_default_range": lambda fc, lib: fc.categorical_column_with_identity(
        "a", 3, default_value=3),
    "bad_dimension": lambda fc, lib: fc.embedding_column(
        fc.categorical_column_with_identity("a", 3), 0),
    "shared_mismatch": lambda fc, lib: fc.shared_embedding_columns(
        [fc.categorical_column_with_identity("a", 3),
         fc.categorical_column_with_identity("b", 4)], 2),
    "rank0_feature": lambda fc, lib: fc.input_layer(
        {"a": lib.constant(1.0)}, [fc.numeric_column("a")]),
    "sparse_numeric": lambda fc, lib: fc.input_layer(
        {"a": _sparse(lib, [[0, 0]], [1.0], [1, 1])}, [fc.numeric_column("a")]),
}


def _error(lib, case):
    with lib.Graph().as_default():
        try:
            ERRORS[case](lib.feature_column, lib)
        except (ValueError, TypeError) as e:
            return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_tf(case):
    want = _error(tf1, case)
    assert want is not None
    got = _error(tf, case)
    assert got is not None and got[0] == want[0], (got, want)
    # Column reprs name TF's classes; compare the messages up to the first repr.
    assert got[1].split("(")[0] == want[1].split("(")[0], (got, want)


def _sequence_input(lib):
    """tf.contrib.feature_column.sequence_input_layer (graphcore) / Keras' SequenceFeatures
    (TF 2.21, the same computation) and concatenate_context_input."""
    fc = lib.feature_column
    contrib_fc = tf.contrib.feature_column if lib is tf else None
    numeric = (contrib_fc or fc).sequence_numeric_column("x", default_value=-1.0,
                                                         normalizer_fn=lambda t: t * 2.0)
    columns = [fc.embedding_column(fc.sequence_categorical_column_with_identity("ids", 4), 2,
                                   initializer=lib.constant_initializer(
                                       np.arange(8.0).reshape(4, 2))),
               fc.indicator_column(fc.sequence_categorical_column_with_vocabulary_list(
                   "words", ["a", "b", "c"], num_oov_buckets=1)), numeric]
    rows = [[0, 0], [0, 1], [1, 0], [2, 0], [2, 1], [2, 2]]
    features = {
        "ids": _sparse(lib, [[0, 0], [0, 1], [1, 0], [2, 2]], [1, 2, 3, 0], [3, 3], lib.int64),
        "words": _sparse(lib, rows, ["a", "c", "zz", "b", "b", "a"], [3, 3]),
        "x": _sparse(lib, rows, [1.0, 2.0, 4.0, 6.0, 7.0, 8.0], [3, 3])}
    if lib is tf:
        out, length = contrib_fc.sequence_input_layer(features, columns)
        with_context = contrib_fc.concatenate_context_input(
            lib.constant([[1.0], [2.0], [3.0]]), out)
    else:
        from tensorflow.python.feature_column import sequence_feature_column
        tf_keras = pytest.importorskip("tf_keras")
        out, length = tf_keras.experimental.SequenceFeatures(columns)(features)
        with_context = sequence_feature_column.concatenate_context_input(
            lib.constant([[1.0], [2.0], [3.0]]), out)
    with lib.Session() as sess:
        sess.run([lib.global_variables_initializer(), lib.tables_initializer()])
        return sess.run([out, length, with_context])


def test_contrib_sequence_input_layer_matches_tf():
    results = []
    for lib in (tf1, tf):
        with lib.Graph().as_default():
            results.append(_sequence_input(lib))
    for got, want in zip(results[1], results[0]):
        np.testing.assert_allclose(got, want)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="must be of type _SequenceDenseColumn"):
            tf.contrib.feature_column.sequence_input_layer(
                {"a": tf.constant([[1.0]])}, [tf.feature_column.numeric_column("a")])
