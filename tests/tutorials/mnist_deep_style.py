"""A TF1 tutorial-style script (a two-layer convolutional net on MNIST, in the way the r1
"deep MNIST" tutorial builds it), run unmodified by graphcore.run and by TF."""

import argparse
import sys

import numpy as np
import tensorflow as tf
from tensorflow.examples.tutorials.mnist import input_data

FLAGS = None


def deepnn(x):
    with tf.name_scope("reshape"):
        x_image = tf.reshape(x, [-1, 28, 28, 1])
    with tf.name_scope("conv1"):
        W_conv1 = weight_variable([5, 5, 1, 16])
        b_conv1 = bias_variable([16])
        h_conv1 = tf.nn.relu(conv2d(x_image, W_conv1) + b_conv1)
    with tf.name_scope("pool1"):
        h_pool1 = max_pool_2x2(h_conv1)
    with tf.name_scope("conv2"):
        W_conv2 = weight_variable([5, 5, 16, 32])
        b_conv2 = bias_variable([32])
        h_conv2 = tf.nn.relu(conv2d(h_pool1, W_conv2) + b_conv2)
    with tf.name_scope("pool2"):
        h_pool2 = max_pool_2x2(h_conv2)
    with tf.name_scope("fc1"):
        W_fc1 = weight_variable([7 * 7 * 32, 256])
        b_fc1 = bias_variable([256])
        h_pool2_flat = tf.reshape(h_pool2, [-1, 7 * 7 * 32])
        h_fc1 = tf.nn.relu(tf.matmul(h_pool2_flat, W_fc1) + b_fc1)
    with tf.name_scope("dropout"):
        keep_prob = tf.placeholder(tf.float32)
        h_fc1_drop = tf.nn.dropout(h_fc1, keep_prob)
    with tf.name_scope("fc2"):
        W_fc2 = weight_variable([256, 10])
        b_fc2 = bias_variable([10])
        y_conv = tf.matmul(h_fc1_drop, W_fc2) + b_fc2
    return y_conv, keep_prob


def conv2d(x, W):
    return tf.nn.conv2d(x, W, strides=[1, 1, 1, 1], padding="SAME")


def max_pool_2x2(x):
    return tf.nn.max_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")


def weight_variable(shape):
    initial = tf.truncated_normal(shape, stddev=0.1)
    return tf.Variable(initial)


def bias_variable(shape):
    initial = tf.constant(0.1, shape=shape)
    return tf.Variable(initial)


def main(_):
    mnist = input_data.read_data_sets(FLAGS.data_dir, seed=FLAGS.seed)
    x = tf.placeholder(tf.float32, [None, 784])
    y_ = tf.placeholder(tf.int64, [None])
    y_conv, keep_prob = deepnn(x)
    with tf.name_scope("loss"):
        cross_entropy = tf.losses.sparse_softmax_cross_entropy(labels=y_, logits=y_conv)
    with tf.name_scope("adam_optimizer"):
        train_step = tf.train.AdamOptimizer(1e-3).minimize(cross_entropy)
    with tf.name_scope("accuracy"):
        correct_prediction = tf.cast(tf.equal(tf.argmax(y_conv, 1), y_), tf.float32)
        accuracy = tf.reduce_mean(correct_prediction)
    tf.set_random_seed(FLAGS.seed)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(FLAGS.steps):
            batch = mnist.train.next_batch(50)
            train_step.run(feed_dict={x: batch[0], y_: batch[1], keep_prob: 0.5})
        images, labels = mnist.test.images[:1000], mnist.test.labels[:1000]
        print("accuracy", np.mean([accuracy.eval(feed_dict={
            x: images[i:i + 500], y_: labels[i:i + 500], keep_prob: 1.0})
            for i in (0, 500)]))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", type=str, default="/tmp/tensorflow/mnist/input_data")
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    FLAGS, unparsed = parser.parse_known_args()
    tf.app.run(main=main, argv=[sys.argv[0]] + unparsed)
