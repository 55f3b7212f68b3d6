"""Reference tier: the lookup tables (graphcore/ops/lookup_ops.py) and the initializers
of tf.initializers against TensorFlow's compat.v1 — looked-up values, sizes, exports, the
GraphDef a table builds, errors. Skipped without TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("vocab")
    words = d / "words.txt"
    words.write_text("emerson\nlake\npalmer\n")
    columns = d / "columns.csv"
    columns.write_text("a,10,x\nb,20,y\nc,30,z\n")
    return {"words": str(words), "columns": str(columns)}


def _text(t, f, **kw):
    return t.lookup.TextFileInitializer(f["words"], t.string, t.lookup.TextFileIndex.WHOLE_LINE,
                                        t.int64, t.lookup.TextFileIndex.LINE_NUMBER, **kw)


CASES = {
    "string_to_int": lambda t, f: t.lookup.StaticHashTable(
        t.lookup.KeyValueTensorInitializer(["a", "b", "c"], [1, 2, 3]), -1).lookup(
        t.constant([["a", "x"], ["c", "b"]])),
    "int_to_string": lambda t, f: t.lookup.StaticHashTable(
        t.lookup.KeyValueTensorInitializer(t.constant([3, 5], t.int64), ["three", "five"]),
        "?").lookup(t.constant([5, 4, 3], t.int64)),
    "int_to_float_size": lambda t, f: t.lookup.StaticHashTable(
        t.lookup.KeyValueTensorInitializer([1, 2, 3], [0.5, 1.5, 2.5]), 0.0).size(),
    "sparse_keys": lambda t, f: t.lookup.StaticHashTable(
        t.lookup.KeyValueTensorInitializer(["a", "b"], [7, 8]), 0).lookup(
        t.SparseTensor([[0, 1], [2, 0]], ["b", "q"], [3, 2])).values,
    "text_file": lambda t, f: t.lookup.StaticHashTable(_text(t, f), -1).lookup(
        t.constant(["palmer", "emerson", "zappa"])),
    "text_file_offset_vocab_size": lambda t, f: t.lookup.StaticHashTable(
        _text(t, f, vocab_size=2, value_index_offset=5), -1).lookup(
        t.constant(["palmer", "emerson", "lake"])),
    "text_columns": lambda t, f: t.lookup.StaticHashTable(t.lookup.TextFileInitializer(
        f["columns"], t.string, 2, t.int64, 1, delimiter=","), -1).lookup(
        t.constant(["z", "x", "w"])),
    "text_line_to_column": lambda t, f: t.lookup.StaticHashTable(t.lookup.TextFileInitializer(
        f["columns"], t.int64, t.lookup.TextFileIndex.LINE_NUMBER, t.string, 0,
        delimiter=","), "").lookup(t.constant([2, 0, 9], t.int64)),
    "vocabulary_oov": lambda t, f: t.lookup.StaticVocabularyTable(_text(t, f), 3).lookup(
        t.constant(["lake", "x", "palmer", "zz", "yes"])),
    "vocabulary_size": lambda t, f: t.lookup.StaticVocabularyTable(_text(t, f), 3).size(),
    "vocabulary_int_keys": lambda t, f: t.lookup.StaticVocabularyTable(
        t.lookup.KeyValueTensorInitializer(t.constant([10, 20], t.int64),
                                           t.constant([0, 1], t.int64)), 4).lookup(
        t.constant([20, 7, 10, 99], t.int64)),
    "buckets_only": lambda t, f: t.lookup.StaticVocabularyTable(None, 5).lookup(
        t.constant(["a", "b", "c"])),
    "export": lambda t, f: t.lookup.StaticHashTable(
        t.lookup.KeyValueTensorInitializer([4, 1, 3], [40, 10, 30]), 0).export(),
}


def _run(lib, build, files):
    with lib.Graph().as_default():
        out = build(lib, files)
        with lib.Session() as sess:
            sess.run(lib.tables_initializer())
            return sess.run(out)


@pytest.mark.parametrize("case", sorted(CASES))
def test_lookup_values_match_tf(case, files):
    ours, theirs = _run(tf, CASES[case], files), _run(tf1, CASES[case], files)
    if case == "export":  # entries come out in hash order: compare them sorted by key
        ours, theirs = (np.stack([k[np.argsort(k)], v[np.argsort(k)]]) for k, v in (ours, theirs))
    assert np.asarray(ours).dtype == np.asarray(theirs).dtype
    np.testing.assert_array_equal(ours, theirs)


def _mutable(lib):
    table = lib.lookup.experimental.MutableHashTable(lib.string, lib.int64, -1)
    vectors = lib.lookup.experimental.MutableHashTable(lib.int64, lib.float32, [0.0, 0.0],
                                                       name="vectors")
    steps = [table.insert(["q", "r", "s"], lib.constant([5, 6, 7], lib.int64)),
             table.remove(lib.constant(["r"])),
             vectors.insert(lib.constant([1, 2], lib.int64), [[1.0, 2.0], [3.0, 4.0]])]
    fetches = [table.lookup(["q", "r", "s", "t"]), table.size(), table.export(), vectors.lookup(lib.constant([2, 9], lib.int64)),
               table.lookup(["q", "zz"], dynamic_default_values=lib.constant([0, 42],
                                                                              lib.int64))]
    return steps, fetches


def test_mutable_hash_table_matches_tf():
    results = []
    for lib in (tf, tf1):
        with lib.Graph().as_default():
            steps, fetches = _mutable(lib)
            with lib.Session() as sess:
                for step in steps:
                    sess.run(step)
                out = sess.run(fetches)
                keys, values = out[2]
                out[2] = (np.sort(keys), values[np.argsort(keys)])
                results.append(out)
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(ours, theirs)


def _dense(lib):
    table = lib.lookup.experimental.DenseHashTable(lib.int64, lib.float32, -1.0, empty_key=0,
                                                   deleted_key=-1, initial_num_buckets=4)
    pairs = lib.lookup.experimental.DenseHashTable(
        lib.int64, lib.int64, lib.constant(7, lib.int64), empty_key=[0, 0],
        deleted_key=[-1, -1])
    steps = [table.insert(lib.constant([5, 6, 7, 8], lib.int64), [0.5, 0.6, 0.7, 0.8]),
             table.erase(lib.constant([6], lib.int64)),
             pairs.insert_or_assign(lib.constant([[1, 2], [3, 4]], lib.int64),
                                    lib.constant([12, 34], lib.int64))]
    keys, values = table.export()
    fetches = [table.lookup(lib.constant([5, 6, 9], lib.int64)), table.size(),
               lib.size(keys), pairs.lookup(lib.constant([[3, 4], [1, 1]], lib.int64)),
               pairs.size()]
    return steps, fetches, table.lookup(lib.constant([0], lib.int64))


def test_dense_hash_table_matches_tf():
    results = []
    for lib in (tf, tf1):
        with lib.Graph().as_default():
            steps, fetches, reserved = _dense(lib)
            with lib.Session() as sess:
                for step in steps:
                    sess.run(step)
                results.append(sess.run(fetches))
                with pytest.raises(lib.errors.InvalidArgumentError,
                                   match="Using the empty_key as a table key is not allowed"):
                    sess.run(reserved)
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(ours, theirs)


def _graph(lib, files):
    with lib.Graph().as_default() as g:
        table = lib.lookup.StaticHashTable(_text(lib, files), -1)
        table.lookup(lib.constant(["a"]))
        table.size()
        lib.lookup.StaticVocabularyTable(
            lib.lookup.KeyValueTensorInitializer(["a"], lib.constant([0], lib.int64)),
            2).lookup(lib.constant(["b"]))
        lib.initialize_all_tables()
        return [(n.name, n.op, list(n.input)) for n in g.as_graph_def().node], table


def test_graph_def_matches_tf(files):
    (ours, table), (theirs, ref) = _graph(tf, files), _graph(tf1, files)
    assert ours == theirs
    assert (table.name, table.key_dtype.name, table.value_dtype.name) == \
        (ref.name, ref.key_dtype.name, ref.value_dtype.name)
    assert table.initializer.name == ref.initializer.name


def test_errors_match_tf():
    for lib in (tf, tf1):
        with lib.Graph().as_default():
            table = lib.lookup.StaticHashTable(
                lib.lookup.KeyValueTensorInitializer(["a"], [1]), -1)
            found = table.lookup(lib.constant(["a"]))
            with pytest.raises(TypeError, match="Dtype of argument `keys` must be"):
                table.lookup(lib.constant([1]))
            with pytest.raises(ValueError, match="`num_oov_buckets` must be > 0"):
                lib.lookup.StaticVocabularyTable(None, 0)
            with pytest.raises(ValueError, match="`vocab_size` should be > 0"):
                lib.lookup.TextFileInitializer("f", lib.string, -2, lib.int64, -1, vocab_size=0)
            dup = lib.lookup.StaticHashTable(
                lib.lookup.KeyValueTensorInitializer(["a", "a"], [1, 2]), -1)
            with lib.Session() as sess:
                with pytest.raises(lib.errors.FailedPreconditionError,
                                   match="Table not initialized"):
                    sess.run(found)
                with pytest.raises(lib.errors.FailedPreconditionError,
                                   match="HashTable has different value for same key"):
                    sess.run(dup.initializer)


INITIALIZERS = {
    "identity": lambda t: t.initializers.identity(gain=3.0)([3, 4]),
    "identity_float64": lambda t: t.initializers.identity()([2, 2], dtype=t.float64),
}


@pytest.mark.parametrize("case", sorted(INITIALIZERS))
def test_initializer_values_match_tf(case):
    results = []
    for lib in (tf, tf1):
        with lib.Graph().as_default(), lib.Session() as sess:
            results.append(sess.run(INITIALIZERS[case](lib)))
    assert results[0].dtype == results[1].dtype
    np.testing.assert_array_equal(*results)


def test_random_initializers_draw_tf_distributions():
    with tf.Graph().as_default(), tf.Session() as sess:
        q = sess.run(tf.initializers.orthogonal(gain=2.0, seed=1)([6, 4]))
        u = sess.run(tf.initializers.uniform_unit_scaling(factor=2.0, seed=2)([50, 400]))
    np.testing.assert_allclose(q.T @ q, 4.0 * np.eye(4), atol=1e-5)
    limit = np.sqrt(3.0 / 50) * 2.0
    assert u.min() >= -limit and u.max() <= limit and u.max() > 0.95 * limit
    for name in ("identity", "orthogonal", "uniform_unit_scaling"):
        ours, theirs = getattr(tf.initializers, name), getattr(tf1.initializers, name)
        assert ours().get_config().keys() == theirs().get_config().keys()
    with pytest.raises(ValueError, match="two-dimensional"):
        tf.initializers.identity()([2, 2, 2])


def _table_checkpoint_graph(lib):
    table = lib.lookup.experimental.MutableHashTable(lib.string, lib.int64, -1)
    dense = lib.lookup.experimental.DenseHashTable(lib.int64, lib.float32, 0.0, empty_key=0,
                                                   deleted_key=-1, name="dense")
    fill = [table.insert(["a", "b"], lib.constant([1, 2], lib.int64)),
            dense.insert(lib.constant([3], lib.int64), [0.5])]
    counter = lib.Variable(7, name="counter")
    find = [table.lookup(["a", "b", "c"]), dense.lookup(lib.constant([3, 4], lib.int64))]
    return fill, counter, find, lib.train.Saver()


@pytest.mark.parametrize("writer,reader", [("tf", "gc"), ("gc", "tf"), ("gc", "gc")])
def test_tables_in_checkpoints_cross_tf(tmp_path, writer, reader):
    """A Saver saves mutable tables (``MutableHashTable-keys``/``-values``) next to the
    variables; each library restores what the other wrote."""
    libs = {"tf": tf1, "gc": tf}
    prefix = str(tmp_path / "model")
    with libs[writer].Graph().as_default():
        fill, counter, _, saver = _table_checkpoint_graph(libs[writer])
        with libs[writer].Session() as sess:
            sess.run(counter.initializer)
            sess.run(fill)
            saver.save(sess, prefix)
    with libs[reader].Graph().as_default():
        _, _, find, saver = _table_checkpoint_graph(libs[reader])
        with libs[reader].Session() as sess:
            saver.restore(sess, prefix)
            found, dense_found = sess.run(find)
    np.testing.assert_array_equal(found, [1, 2, -1])
    np.testing.assert_array_equal(dense_found, [0.5, 0.0])


def _contrib_lookup(lookup, lib, f):
    """tf.contrib.lookup's vocabulary tables (graphcore) / lookup_ops' (TF)."""
    words = lib.constant([["lake", "zappa"], ["emerson", "palmer"]])
    ids = lib.constant([[2, 0], [7, 1]], lib.int64)
    numbers = lib.constant([20, 99, 10], lib.int64)
    tables = [
        lookup.index_table_from_tensor(["emerson", "lake", "palmer"]).lookup(words),
        lookup.index_table_from_tensor(["emerson", "lake"], num_oov_buckets=3).lookup(words),
        lookup.index_table_from_tensor([10, 20], num_oov_buckets=2,
                                       dtype=lib.int64).lookup(numbers),
        lookup.index_table_from_file(f["words"], default_value=-5).lookup(words),
        lookup.index_table_from_file(f["words"], num_oov_buckets=1, vocab_size=2).lookup(
            words),
        lookup.index_to_string_table_from_tensor(["a", "b", "c"]).lookup(ids),
        lookup.index_to_string_table_from_file(f["words"], default_value="?").lookup(ids),
        lookup.HashTable(lookup.KeyValueTensorInitializer(["x", "y"], [7, 8]), -1).lookup(
            lib.constant(["y", "q"])),
    ]
    with lib.Session() as sess:
        sess.run(lib.tables_initializer())
        return sess.run(tables)


def test_contrib_lookup_tables_match_tf(files):
    from tensorflow.python.ops import lookup_ops

    class TFContribLookup:  # TF 1.15's tf.contrib.lookup names, from TF's lookup_ops
        index_table_from_tensor = staticmethod(lookup_ops.index_table_from_tensor)
        index_table_from_file = staticmethod(lookup_ops.index_table_from_file)
        index_to_string_table_from_tensor = staticmethod(
            lookup_ops.index_to_string_table_from_tensor)
        index_to_string_table_from_file = staticmethod(
            lookup_ops.index_to_string_table_from_file)
        KeyValueTensorInitializer = lookup_ops.KeyValueTensorInitializer
        HashTable = lookup_ops.HashTable

    results = []
    for lookup, lib in ((TFContribLookup, tf1), (tf.contrib.lookup, tf)):
        with lib.Graph().as_default():
            results.append(_contrib_lookup(lookup, lib, files))
    for got, want in zip(results[1], results[0]):
        np.testing.assert_array_equal(got, want)
    with tf.Graph().as_default():  # TF 1.15's HashTable names its shared table
        table = tf.contrib.lookup.HashTable(
            tf.contrib.lookup.KeyValueTensorInitializer(["x"], [1]), -1, shared_name="xy")
        assert table.resource_handle.op.get_attr("shared_name") in (b"xy", "xy")
