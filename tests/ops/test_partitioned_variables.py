"""Partitioned variables (graphcore/ops/partitioned_variables.py, the PartitionedVariable
of graphcore/ops/variables.py, get_variable(partitioner=...) in variable_scope.py):
partitioner results, shard names/shapes/offsets, partition_info, reuse, conversion,
assignment, errors, embedding_lookup and sparse training over the shards."""

import numpy as np
import pytest

import graphcore as tf


@pytest.mark.parametrize("partitioner,shape,dtype,want", [
    (lambda: tf.fixed_size_partitioner(3), [10, 4], tf.float32, [3, 1]),
    (lambda: tf.fixed_size_partitioner(5), [2, 4], tf.float32, [2, 1]),
    (lambda: tf.fixed_size_partitioner(2, axis=1), [3, 5], tf.float32, [1, 2]),
    (lambda: tf.min_max_variable_partitioner(), [1000, 64], tf.float32, [1, 1]),
    (lambda: tf.min_max_variable_partitioner(4, min_slice_size=1 << 10), [100, 64],
     tf.float32, [4, 1]),
    (lambda: tf.min_max_variable_partitioner(8, min_slice_size=64), [40, 2], tf.string,
     [8, 1]),
    (lambda: tf.variable_axis_size_partitioner(1000), [100, 8], tf.float32, [4, 1]),
    (lambda: tf.variable_axis_size_partitioner(10), [6, 8], tf.float32, [6, 1]),
    (lambda: tf.variable_axis_size_partitioner(64, max_shards=3), [100, 4], tf.int64,
     [3, 1]),
])
def test_partitioners(partitioner, shape, dtype, want):
    assert partitioner()(shape=tf.TensorShape(shape), dtype=dtype) == want


def test_partitioner_argument_errors():
    with pytest.raises(ValueError, match="must be positive"):
        tf.variable_axis_size_partitioner(0)
    with pytest.raises(ValueError, match="max_shards must be positive"):
        tf.variable_axis_size_partitioner(10, max_shards=-1)
    with pytest.raises(ValueError, match="Cannot partition variable along axis 2"):
        tf.min_max_variable_partitioner(2, axis=2)(shape=tf.TensorShape([4, 4]),
                                                   dtype=tf.float32)


FULL = np.arange(70, dtype=np.float32).reshape(10, 7)


def test_get_variable_builds_shards_with_partition_info():
    seen = []

    def init(shape, dtype=None, partition_info=None):
        seen.append((list(shape), partition_info.full_shape, partition_info.var_offset,
                     partition_info.single_offset(shape)))
        start = partition_info.var_offset[0]
        return tf.constant(FULL[start:start + shape[0]], dtype=dtype)

    with tf.Graph().as_default():
        with tf.variable_scope("s", partitioner=tf.fixed_size_partitioner(3)) as scope:
            v = tf.get_variable("v", [10, 7], initializer=init)
        with tf.variable_scope(scope, reuse=True):
            assert tf.get_variable("v", [10, 7]) is v
        assert seen == [([4, 7], [10, 7], [0, 0], 0), ([3, 7], [10, 7], [4, 0], 4),
                        ([3, 7], [10, 7], [7, 0], 7)]
        assert [s.name for s in v] == [f"s/v/part_{i}:0" for i in range(3)]
        assert [s.name for s in tf.trainable_variables()] == [s.name for s in v]
        assert (v.name, v.shape.as_list(), v.dtype, len(v), v._get_partitions()) == \
            ("s/v", [10, 7], tf.float32, 3, [3, 1])
        assert [s._get_save_slice_info().spec for s in v] == \
            ["10 7 0,4:0,7", "10 7 4,3:0,7", "10 7 7,3:0,7"]
        full = tf.convert_to_tensor(v)
        assert full.name == "s/v:0" and full.op.inputs[0].op.name == "s/v/ConcatPartitions/concat"
        assign = v.assign(tf.zeros([10, 7]) + 2.0)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(full), FULL)
            sess.run(assign)
            np.testing.assert_array_equal(sess.run(v.as_tensor()), np.full((10, 7), 2.0))


def test_tensor_initializer_and_scalar_shape():
    with tf.Graph().as_default():
        v = tf.get_variable("v", initializer=tf.constant(FULL),
                            partitioner=tf.fixed_size_partitioner(4, axis=1))
        scalar = tf.get_variable("c", [], partitioner=tf.fixed_size_partitioner(2))
        assert [s.shape.as_list() for s in v] == [[10, 2], [10, 2], [10, 2], [10, 1]]
        assert type(scalar).__name__ == "Variable"
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(v)), FULL)


def test_partitioned_errors():
    with tf.Graph().as_default():
        tf.get_variable("v", [4])
        with pytest.raises(ValueError, match="unpartitioned version of the variable"):
            tf.get_variable("v", [4], partitioner=tf.fixed_size_partitioner(2))
        tf.get_variable("p", [4], partitioner=tf.fixed_size_partitioner(2))
        with pytest.raises(ValueError, match="Partitioned variable with name p already"):
            tf.get_variable("p", [4], partitioner=tf.fixed_size_partitioner(2))
        with pytest.raises(ValueError, match="Can only slice a variable along one"):
            tf.get_variable("q", [4, 4], partitioner=lambda shape, dtype: [2, 2])
        with pytest.raises(ValueError, match="Partitioner must be callable"):
            tf.get_variable("q", [4], partitioner=3)
        with pytest.raises(ValueError, match="must have rank at least 1"):
            tf.create_partitioned_variables([], [], tf.zeros_initializer())


def test_create_partitioned_variables():
    with tf.Graph().as_default():
        parts = tf.create_partitioned_variables([10, 7], [1, 2], tf.constant(FULL))
        assert [p.name for p in parts] == ["PartitionedVariable/part_0:0",
                                           "PartitionedVariable/part_1:0"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(np.concatenate(sess.run(parts), 1), FULL)


def test_embedding_lookup_trains_only_the_looked_up_rows():
    ids = np.array([1, 5, 9, 5], np.int64)
    with tf.Graph().as_default():
        emb = tf.get_variable("emb", initializer=tf.constant(FULL),
                              partitioner=tf.fixed_size_partitioner(3))
        out = tf.nn.embedding_lookup(emb, ids, partition_strategy="div")
        loss = tf.reduce_sum(out)
        grads = tf.gradients(loss, list(emb))
        assert [type(g).__name__ for g in grads] == ["IndexedSlices"] * 3
        train = tf.train.AdagradOptimizer(1.0).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(out), FULL[ids])
            sess.run(train)
            after = sess.run(emb.as_tensor())
    moved = sorted(np.nonzero((after != FULL).any(axis=1))[0].tolist())
    assert moved == [1, 5, 9]
