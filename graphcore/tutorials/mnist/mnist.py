"""The model module of TF1's MNIST tutorials (``tensorflow.examples.tutorials.mnist.mnist``):
a two-hidden-layer perceptron built in the four calls ``fully_connected_feed.py``-style
scripts make: ``inference``, ``loss``, ``training``, ``evaluation``."""

from __future__ import annotations

import math

import graphcore as tf

NUM_CLASSES = 10
IMAGE_SIZE = 28
IMAGE_PIXELS = IMAGE_SIZE * IMAGE_SIZE


def _layer(inputs, fan_in: int, units: int, scope: str, activation=None):
    with tf.name_scope(scope):
        weights = tf.Variable(
            tf.truncated_normal([fan_in, units], stddev=1.0 / math.sqrt(float(fan_in))),
            name="weights")
        biases = tf.Variable(tf.zeros([units]), name="biases")
        out = tf.matmul(inputs, weights) + biases
        return activation(out) if activation is not None else out


def inference(images, hidden1_units: int, hidden2_units: int):
    """Logits of the model: images [batch, IMAGE_PIXELS] through two ReLU layers
    (name scopes ``hidden1``, ``hidden2``) and a linear ``softmax_linear`` layer."""
    hidden1 = _layer(images, IMAGE_PIXELS, hidden1_units, "hidden1", tf.nn.relu)
    hidden2 = _layer(hidden1, hidden1_units, hidden2_units, "hidden2", tf.nn.relu)
    return _layer(hidden2, hidden2_units, NUM_CLASSES, "softmax_linear")


def loss(logits, labels):
    """Mean softmax cross entropy of ``logits`` against int ``labels`` [batch]."""
    labels = tf.to_int64(labels)
    return tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)


def training(loss, learning_rate: float):
    """A gradient-descent step on ``loss`` that increments a ``global_step`` variable,
    with a ``loss`` scalar summary."""
    tf.summary.scalar("loss", loss)
    optimizer = tf.train.GradientDescentOptimizer(learning_rate)
    global_step = tf.Variable(0, name="global_step", trainable=False)
    return optimizer.minimize(loss, global_step=global_step)


def evaluation(logits, labels):
    """The number of examples in the batch whose label is the top logit (int32)."""
    correct = tf.nn.in_top_k(logits, labels, 1)
    return tf.reduce_sum(tf.cast(correct, tf.int32))
