"""The digits MLP shared by the examples, written the way TF1 tutorials write models.

``tf`` is whichever TF1-style module the caller uses (graphcore, or
``tensorflow.compat.v1`` for comparison).
"""

import numpy as np


def load_digits_split(seed=0):
    """scikit-learn's bundled 8x8 digits: (x_train, y_train, x_test, y_test), 80/20."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int64)
    x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.2, random_state=seed,
                                                        stratify=y)
    return x_train, y_train, x_test, y_test


def dense(tf, inputs, n_in, n_out, name, activation=None):
    """A fully connected layer: weights ~ truncated normal, biases zero."""
    with tf.variable_scope(name):
        weights = tf.get_variable(
            "weights", [n_in, n_out],
            initializer=tf.truncated_normal_initializer(stddev=1.0 / np.sqrt(n_in)))
        biases = tf.get_variable("biases", [n_out], initializer=tf.zeros_initializer())
        out = tf.matmul(inputs, weights) + biases
        return activation(out) if activation is not None else out


def inference(tf, images, hidden=(256, 256)):
    """Logits of the 64-256-256-10 MLP."""
    h1 = dense(tf, images, 64, hidden[0], "hidden1", tf.nn.relu)
    h2 = dense(tf, h1, hidden[0], hidden[1], "hidden2", tf.nn.relu)
    return dense(tf, h2, hidden[1], 10, "softmax_linear")


def loss_fn(tf, logits, labels):
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return tf.reduce_mean(xent, name="xentropy_mean")


def evaluation(tf, logits, labels):
    correct = tf.equal(tf.argmax(logits, 1), labels)
    return tf.reduce_mean(tf.cast(correct, tf.float32), name="accuracy")


def batches(x, y, batch_size, rng):
    """One epoch of shuffled minibatches."""
    order = rng.permutation(len(x))
    for start in range(0, len(x), batch_size):
        idx = order[start:start + batch_size]
        yield x[idx], y[idx]
