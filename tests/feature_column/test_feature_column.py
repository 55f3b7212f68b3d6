"""graphcore.feature_column without TensorFlow: hand-computed input_layer and
linear_model values, the variables' names, make_parse_example_spec, the Bucketize op and
the vocabulary index tables."""

import numpy as np
import pytest

import graphcore as tf
from graphcore.ops import index_table_ops, manip_ops

fc = tf.feature_column


def _run(fetches, init_values=None):
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
        for var, value in (init_values or {}).items():
            var.load(value, sess)
        return sess.run(fetches)


def test_input_layer_values_and_column_order():
    with tf.Graph().as_default():
        features = {
            "price": tf.constant([[1.0], [5.0], [20.0]]),
            "color": tf.constant([["red"], ["blue"], ["pink"]]),
            "tags": tf.SparseTensor([[0, 0], [0, 1], [2, 0]],
                                    tf.constant([2, 2, 0], tf.int64), [3, 2]),
        }
        price = fc.numeric_column("price")
        columns = [
            fc.indicator_column(fc.categorical_column_with_vocabulary_list(
                "color", ["red", "blue"], num_oov_buckets=1)),
            fc.bucketized_column(price, [2.0, 10.0]),
            price,
            fc.embedding_column(fc.categorical_column_with_identity("tags", 3), 2,
                                combiner="sum", initializer=tf.constant_initializer(
                                    [[1.0, 0.0], [0.0, 1.0], [10.0, 10.0]])),
        ]
        out = fc.input_layer(features, columns)
        names = [v.op.name for v in tf.global_variables()]
        got = _run(out)
    assert names == ["input_layer/tags_embedding/embedding_weights"]
    # Name order: color_indicator (3), price (1), price_bucketized (3), tags_embedding (2).
    np.testing.assert_allclose(got, [
        [1, 0, 0, 1, 1, 0, 0, 20, 20],
        [0, 1, 0, 5, 0, 1, 0, 0, 0],
        [0, 0, 1, 20, 0, 0, 1, 1, 0],
    ])


def test_linear_model_values_and_variables():
    with tf.Graph().as_default():
        features = {"x": tf.constant([[1.0, 2.0], [3.0, 4.0]]),
                    "k": tf.constant([["a"], ["zz"]])}
        cols_to_vars = {}
        x = fc.numeric_column("x", shape=2)
        k = fc.categorical_column_with_vocabulary_list("k", ["a", "b"])
        out = fc.linear_model(features, [x, k], units=1, cols_to_vars=cols_to_vars)
        variables = {v.op.name: v for v in tf.global_variables()}
        assert sorted(variables) == ["linear_model/bias_weights", "linear_model/k/weights",
                                     "linear_model/x/weights"]
        assert [v.op.name for v in cols_to_vars[k]] == ["linear_model/k/weights"]
        got = _run(out, {variables["linear_model/x/weights"]: [[1.0], [10.0]],
                         variables["linear_model/k/weights"]: [[100.0], [200.0]],
                         variables["linear_model/bias_weights"]: [0.5]})
    # 'zz' is out of vocabulary (id -1): the safe lookup gives it 0.
    np.testing.assert_allclose(got, [[121.5], [43.5]])


def test_make_parse_example_spec():
    age = fc.numeric_column("age", default_value=0.0)
    spec = fc.make_parse_example_spec([
        age, fc.bucketized_column(age, [1.0]),
        fc.indicator_column(fc.crossed_column(["a", "b"], 4)),
        fc.weighted_categorical_column(fc.categorical_column_with_identity("i", 3), "w")])
    assert spec == {"age": tf.FixedLenFeature((1,), tf.float32, (0.0,)),
                    "a": tf.VarLenFeature(tf.string), "b": tf.VarLenFeature(tf.string),
                    "i": tf.VarLenFeature(tf.int64), "w": tf.VarLenFeature(tf.float32)}


def test_input_layer_rejects_categorical_columns():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="must be a _DenseColumn"):
            fc.input_layer({"a": tf.constant([["x"]])},
                           [fc.categorical_column_with_hash_bucket("a", 4)])


def test_bucketize_op():
    with tf.Graph().as_default():
        x = tf.constant([[-5.0, 0.0, 0.5], [1.0, 7.0, 100.0]])
        out = manip_ops.bucketize(x, [0.0, 1.0, 10.0])
        assert out.dtype == tf.int32 and out.shape.as_list() == [2, 3]
        np.testing.assert_array_equal(_run(out), [[0, 1, 1], [2, 2, 3]])


def test_index_table_from_tensor_with_oov_buckets():
    with tf.Graph().as_default():
        table = index_table_ops.index_table_from_tensor(["a", "b"], num_oov_buckets=3)
        ids = _run(table.lookup(tf.constant(["b", "a", "zzz"])))
    assert ids[:2].tolist() == [1, 0] and 2 <= ids[2] < 5


def test_embedding_column_initialized_from_checkpoint(tmp_path):
    table = np.arange(8, dtype=np.float32).reshape(4, 2)
    with tf.Graph().as_default():
        emb = tf.Variable(table, name="emb")
        with tf.Session() as sess:
            sess.run(emb.initializer)
            path = tf.train.Saver([emb]).save(sess, str(tmp_path / "model.ckpt"))
    with tf.Graph().as_default():
        column = fc.embedding_column(fc.categorical_column_with_identity("i", 4), 2,
                                     combiner="sum", ckpt_to_load_from=path,
                                     tensor_name_in_ckpt="emb")
        out = fc.input_layer({"i": tf.constant([[3], [1]], tf.int64)}, [column])
        np.testing.assert_allclose(_run(out), table[[3, 1]])
