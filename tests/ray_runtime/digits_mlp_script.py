"""The digits MLP of replica_script.py, as a sibling module (so the tests also show that
a launched script imports modules from its own directory)."""

import numpy as np


def load_digits():
    """scikit-learn's bundled 8x8 digits as float32 images in [0, 1] and int64 labels."""
    from sklearn.datasets import load_digits as load

    digits = load()
    return (digits.data / 16.0).astype(np.float32), digits.target.astype(np.int64)


def inference(tf, images, hidden=64):
    """Logits of a 64-hidden-10 MLP."""
    with tf.variable_scope("hidden"):
        w1 = tf.get_variable("weights", [64, hidden],
                             initializer=tf.truncated_normal_initializer(stddev=0.125))
        b1 = tf.get_variable("biases", [hidden], initializer=tf.zeros_initializer())
        h = tf.nn.relu(tf.matmul(images, w1) + b1)
    with tf.variable_scope("softmax_linear"):
        w2 = tf.get_variable("weights", [hidden, 10],
                             initializer=tf.truncated_normal_initializer(stddev=0.125))
        b2 = tf.get_variable("biases", [10], initializer=tf.zeros_initializer())
        return tf.matmul(h, w2) + b2
