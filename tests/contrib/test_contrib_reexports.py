"""tf.contrib names TF 1.15 re-exported from core are the same objects; tf.contrib.data's
transformations give the elements of the core pipeline they stand for."""

import numpy as np
import pytest

import graphcore as tf

SAME = [
    (lambda: tf.contrib.distributions.Normal, lambda: tf.distributions.Normal),
    (lambda: tf.contrib.distributions.kl_divergence, lambda: tf.distributions.kl_divergence),
    (lambda: tf.contrib.framework.sort, lambda: tf.sort),
    (lambda: tf.contrib.framework.nest, lambda: tf.nest),
    (lambda: tf.contrib.framework.argsort, lambda: tf.argsort),
    (lambda: tf.contrib.framework.init_from_checkpoint, lambda: tf.train.init_from_checkpoint),
    (lambda: tf.contrib.framework.load_checkpoint, lambda: tf.train.load_checkpoint),
    (lambda: tf.contrib.framework.get_or_create_global_step,
     lambda: tf.train.get_or_create_global_step),
    (lambda: tf.contrib.slim.losses.get_total_loss, lambda: tf.losses.get_total_loss),
    (lambda: tf.contrib.data.shuffle_and_repeat, lambda: tf.data.experimental.shuffle_and_repeat),
    (lambda: tf.contrib.data.map_and_batch, lambda: tf.data.experimental.map_and_batch),
]


@pytest.mark.parametrize("contrib,core", SAME)
def test_same_objects(contrib, core):
    assert contrib() is core()


def _elements(dataset):
    nxt = tf.data.make_one_shot_iterator(dataset).get_next()
    out = []
    with tf.Session() as sess:
        while True:
            try:
                out.append(sess.run(nxt))
            except tf.errors.OutOfRangeError:
                return out


@pytest.mark.parametrize("transform,expected", [
    (tf.contrib.data.map_and_batch(lambda x: x * 2, 2), [[0, 2], [4, 6], [8]]),
    (tf.contrib.data.map_and_batch(lambda x: x + 1, 2, drop_remainder=True),
     [[1, 2], [3, 4]]),
    (tf.contrib.data.batch_and_drop_remainder(3), [[0, 1, 2]]),
    (tf.contrib.data.parallel_interleave(
        lambda x: tf.data.Dataset.from_tensors(x).repeat(2), cycle_length=2),
     [0, 1, 0, 1, 2, 3, 2, 3, 4, 4]),
])
def test_data_transformations(transform, expected):
    got = _elements(tf.data.Dataset.range(5).apply(transform))
    assert [np.asarray(g).tolist() for g in got] == expected


def test_padded_batch_and_drop_remainder():
    dataset = tf.data.Dataset.range(1, 4).map(lambda n: tf.fill([n], n))
    got = _elements(dataset.apply(tf.contrib.data.padded_batch_and_drop_remainder(2, [3])))
    assert [g.tolist() for g in got] == [[[1, 0, 0], [2, 2, 0]]]
