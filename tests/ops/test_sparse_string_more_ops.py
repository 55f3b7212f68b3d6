"""TF-free tests of the sparse, set, string-hash, unicode, ragged, SequenceExample and
accumulator families added with graphcore/ops/sparse_reduce_ops.py, sets_ops.py,
string_hash_ops.py, unicode_decode_ops.py, ragged_tensor.py, sequence_example_ops.py and
accumulator_ops.py: known values (hashes recorded from TensorFlow 2.21), error classes and
the accumulator's blocking take."""

import threading

import numpy as np
import pytest

import graphcore as tf
from graphcore.protobuf import example_pb2


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def test_hashes_equal_tensorflow_values():
    words = ["", "a", "hello world!", "x" * 23]
    with tf.Graph().as_default():
        legacy = tf.string_to_hash_bucket(words, 2**62)
        strong = tf.strings.to_hash_bucket_strong(words, 2**62, [1, 2])
        fp = tf.fingerprint(["hello"])
        crossed = tf.sparse.cross_hashed([tf.constant([["a", "b"]]),
                                          tf.constant([[3]], tf.int64)], num_buckets=1000)
        got = _run([legacy, strong, fp, crossed.values])
    assert got[0].tolist() == [105434511174508091, 2996632905371535868, 488105371118328303,
                               4276570965344620959]
    assert got[1].tolist() == [443797209252341627, 546566331822570742, 4134433662751500283,
                               1281918655927986167]
    assert got[2].tolist() == [[232, 12, 56, 49, 169, 229, 139, 180]]
    assert got[3].tolist() == [486, 964]


def test_sparse_reductions_and_extrema():
    with tf.Graph().as_default():
        st = tf.SparseTensor([[0, 0], [0, 2], [1, 1], [3, 0]], [-1.0, -5.0, 3.0, 2.0], [4, 3])
        other = tf.SparseTensor([[0, 0], [1, 2]], [4.0, -5.0], [4, 3])
        row_max, sums, mx = _run([tf.sparse.reduce_max(st, 1),
                                  tf.sparse.reduce_sum_sparse(st, 0),
                                  tf.sparse.maximum(st, other)])
    assert row_max.tolist() == [-1.0, 3.0, 0.0, 2.0]  # an empty row is 0
    assert sums.indices.tolist() == [[0], [1], [2]] and sums.values.tolist() == [1, 3, -5]
    assert mx.indices.tolist() == [[0, 0], [0, 2], [1, 1], [1, 2], [3, 0]]
    assert mx.values.tolist() == [4.0, 0.0, 3.0, 0.0, 2.0]


def test_sets_and_edit_distance():
    with tf.Graph().as_default():
        a = tf.constant([[1, 2, 3], [4, 5, 5]])
        b = tf.constant([[3, 1, 7], [6, 6, 6]])
        hyp = tf.SparseTensor([[0, 0], [0, 1]], ["a", "b"], [1, 2])
        truth = tf.SparseTensor([[0, 0], [0, 1], [0, 2]], ["a", "c", "d"], [1, 3])
        inter, union, dist = _run([tf.sets.intersection(a, b), tf.sets.union(a, b),
                                   tf.edit_distance(hyp, truth)])
    assert inter.indices.tolist() == [[0, 0], [0, 1]] and inter.values.tolist() == [1, 3]
    assert union.dense_shape.tolist() == [2, 4]
    assert union.values.tolist() == [1, 2, 3, 7, 4, 5, 6]
    assert dist.tolist() == pytest.approx([2 / 3])


def test_serialize_many_sparse_round_trip():
    with tf.Graph().as_default():
        st = tf.SparseTensor([[0, 1], [2, 0]], ["x", "yz"], [3, 2])
        back = tf.deserialize_many_sparse(tf.serialize_many_sparse(st), tf.string)
        got = _run(back)
    assert got.indices.tolist() == [[0, 1], [2, 0]]
    assert got.values.tolist() == [b"x", b"yz"] and got.dense_shape.tolist() == [3, 2]


def test_unicode_decode_gives_ragged_rows_and_offsets():
    with tf.Graph().as_default():
        chars, offsets = tf.strings.unicode_decode_with_offsets(["h\xe9", "", "\U0001f600"],
                                                                "UTF-8")
        got_chars, got_offsets = _run([chars, offsets])
    assert isinstance(chars, tf.RaggedTensor)
    assert got_chars.to_list() == [[104, 233], [], [0x1F600]]
    assert got_offsets.to_list() == [[0, 1], [], [0]]


def test_split_and_ngrams():
    with tf.Graph().as_default():
        rt = tf.strings.split(["a b c", "", "d"], result_type="RaggedTensor")
        grams = tf.strings.ngrams(rt, 2, pad_values="#")
        dense = rt.to_tensor("-")
        got_grams, got_dense = _run([grams, dense])
    assert got_grams.to_list() == [[b"# a", b"a b", b"b c", b"c #"], [b"# #"],
                                   [b"# d", b"d #"]]  # an empty row: one all-pad n-gram
    assert got_dense.tolist() == [[b"a", b"b", b"c"], [b"-", b"-", b"-"], [b"d", b"-", b"-"]]


def test_parse_single_sequence_example():
    seq = example_pb2.SequenceExample()
    seq.context.feature["id"].int64_list.value.append(7)
    for frame in ([1.0, 2.0], [3.0, 4.0]):
        seq.feature_lists.feature_list["frames"].feature.add().float_list.value.extend(frame)
    with tf.Graph().as_default():
        context, lists = tf.parse_single_sequence_example(
            seq.SerializeToString(), {"id": tf.io.FixedLenFeature([], tf.int64)},
            {"frames": tf.io.FixedLenSequenceFeature([2], tf.float32)})
        got = _run([context["id"], lists["frames"]])
    assert got[0] == 7 and got[1].tolist() == [[1.0, 2.0], [3.0, 4.0]]


def test_conditional_accumulator_take_blocks_until_enough_gradients():
    with tf.Graph().as_default():
        acc = tf.ConditionalAccumulator(tf.float32, shape=[2])
        grad = tf.placeholder(tf.float32, [2])
        apply = acc.apply_grad(grad)
        take = acc.take_grad(2)
        with tf.Session() as sess:
            result = {}
            thread = threading.Thread(target=lambda: result.update(v=sess.run(take)))
            thread.start()
            sess.run(apply, {grad: [1.0, 2.0]})
            thread.join(0.2)
            assert thread.is_alive()  # one gradient of the two required
            sess.run(apply, {grad: [3.0, 4.0]})
            thread.join(10)
            assert np.allclose(result["v"], [2.0, 3.0])
            with pytest.raises(tf.errors.InvalidArgumentError, match="num_required"):
                sess.run(acc.take_grad(0))


def test_unicode_script_codes():
    with tf.Graph().as_default():
        got = _run(tf.strings.unicode_script([65, 0x3B1, 0x4E2D, 0x301, 48, -1]))
    assert got.tolist() == [25, 14, 17, 1, 0, -1]  # Latin, Greek, Han, Inherited, Common
