"""tf.data in graph mode without TensorFlow: construction errors, iterator states,
shuffling and caching across passes, and the traced functions in the GraphDef library."""

import numpy as np
import pytest

import graphcore as tf

D = tf.data.Dataset


def _all(dataset, initializable=False):
    it = dataset.make_initializable_iterator() if initializable else \
        dataset.make_one_shot_iterator()
    nxt = it.get_next()
    out = []
    with tf.Session() as sess:
        if initializable:
            sess.run(it.initializer)
        while True:
            try:
                out.append(sess.run(nxt))
            except tf.errors.OutOfRangeError:
                return out


@pytest.mark.parametrize("build,error,text", [
    (lambda: D.range(3).make_one_shot_iterator().initializer, ValueError,
     "The iterator does not have an initializer"),
    (lambda: D.from_tensors(tf.placeholder(tf.int32)).make_one_shot_iterator(), ValueError,
     "Cannot capture a placeholder"),
    (lambda: D.range(3).filter(lambda x: x), ValueError,
     "`predicate` must return a `tf.bool` scalar tensor"),
    (lambda: D.zip([D.range(1), D.range(1)]), TypeError, "Python `list` is not supported"),
    (lambda: D.range(3).flat_map(lambda x: x), TypeError,
     "must return a `tf.data.Dataset`"),
    (lambda: tf.data.Iterator.from_structure(tf.float32, []).make_initializer(D.range(2)),
     TypeError, "Expected output types"),
    (lambda: iter(D.range(2)), RuntimeError, "only supports Python-style iteration"),
])
def test_build_errors(build, error, text):
    with tf.Graph().as_default():
        _OUTER[0] = tf.constant(1, tf.int64)
        with pytest.raises(error, match=text.replace("(", r"\(")):
            build()


_OUTER = [None]


def test_functions_capture_outer_tensors():
    """map/filter/flat_map functions take outer tensors (a constant, a lookup table's
    handle, a placeholder fed at initialization) as TF's FuncGraph captures them: through
    the dataset op's other_arguments."""
    with tf.Graph().as_default():
        offset = tf.constant(10, tf.int64)
        limit = tf.placeholder(tf.int64, [])
        table = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer([0, 1, 2, 3], [5, 6, 7, 8], tf.int64,
                                                tf.int64), -1)
        ds = (D.range(4).map(lambda x: table.lookup(x) + offset)
              .filter(lambda x: x < limit + offset)
              .flat_map(lambda x: D.from_tensors(x).repeat(2).map(lambda y: y * offset)))
        it = ds.make_initializable_iterator()
        nxt = it.get_next()
        with tf.Session() as sess:
            sess.run(tf.tables_initializer())
            sess.run(it.initializer, {limit: 7})
            out = []
            while True:
                try:
                    out.append(sess.run(nxt))
                except tf.errors.OutOfRangeError:
                    break
    assert out == [150, 150, 160, 160]


def test_shard():
    with tf.Graph().as_default():
        assert _all(D.range(10).shard(3, 1)) == [1, 4, 7]
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Index must be between 0 and 2 \(currently index = 3\)"):
            _all(D.range(10).shard(3, 3))


def test_uninitialized_iterator_and_reinitialization():
    with tf.Graph().as_default():
        it = D.range(2).make_initializable_iterator()
        nxt = it.get_next()
        with tf.Session() as sess:
            with pytest.raises(tf.errors.FailedPreconditionError,
                               match="iterator has not been initialized"):
                sess.run(nxt)
            sess.run(it.initializer)
            first = [sess.run(nxt), sess.run(nxt)]
            sess.run(it.initializer)
            assert [first, sess.run(nxt)] == [[0, 1], 0]


def test_slices_of_unequal_sizes_fail_at_run_time():
    with tf.Graph().as_default():
        a = tf.placeholder_with_default(np.arange(3), shape=[None])
        ds = D.from_tensor_slices((a, np.arange(2)))
        it = ds.make_initializable_iterator()
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                                 match="same size in the 0th dimension"):
            sess.run(it.initializer)
            sess.run(it.get_next())


def test_shuffle_seeded_reshuffles_each_pass_deterministically():
    with tf.Graph().as_default():
        runs = [_all(D.range(20).shuffle(20, seed=3).repeat(2), initializable=True)
                for _ in range(2)]
    assert runs[0] == runs[1]  # same seed, same sequence
    assert sorted(runs[0][:20]) == list(range(20))
    assert runs[0][:20] != runs[0][20:]  # reshuffled for the second pass


def test_cache_replays_the_first_pass():
    with tf.Graph().as_default():
        out = _all(D.range(6).shuffle(6).cache().repeat(3))
    assert out[:6] == out[6:12] == out[12:]
    assert sorted(out[:6]) == list(range(6))


def test_map_function_is_in_the_library_and_structures_flow():
    with tf.Graph().as_default() as g:
        ds = D.from_tensor_slices({"a": np.arange(3), "b": np.ones(3, np.float32)})
        ds = ds.map(lambda d: (d["a"] * 2, d["b"] + 1.0)).batch(2, drop_remainder=True)
        assert ds.output_types == (tf.int64, tf.float32)
        assert [s.as_list() for s in ds.output_shapes] == [[2], [2]]
        names = [f.signature.name for f in g.as_graph_def().library.function]
        assert any(n.startswith("__inference_Dataset_map_lambda_") for n in names)
        out = _all(ds)
    assert [a.tolist() for a, _ in out] == [[0, 2]]
    assert out[0][1].dtype == np.float32


def test_training_loop_over_epochs_ends_with_out_of_range():
    """A TF1 loop: a shuffled, batched dataset for 3 epochs trains a linear model until
    get_next raises OutOfRangeError."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 2)).astype(np.float32)
    y = x @ np.array([[2.0], [-1.0]], np.float32)
    with tf.Graph().as_default():
        ds = D.from_tensor_slices((x, y)).shuffle(32, seed=1).batch(8).repeat(3)
        bx, by = tf.data.make_one_shot_iterator(ds).get_next()
        w = tf.Variable(tf.zeros([2, 1]))
        loss = tf.reduce_mean(tf.square(tf.matmul(bx, w) - by))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        steps = 0
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            first = None
            while True:
                try:
                    value, _ = sess.run([loss, train])
                except tf.errors.OutOfRangeError:
                    break
                first = value if first is None else first
                steps += 1
            final = sess.run(tf.reduce_mean(tf.square(tf.matmul(x, w) - y)))
    assert steps == 12
    assert final < first / 10
