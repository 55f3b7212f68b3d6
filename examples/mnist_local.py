"""A TF1-style MLP on scikit-learn's digits, trained in-process.

    python examples/mnist_local.py                  # graphcore
    python examples/mnist_local.py --backend tensorflow   # the same script on TF

Prints the loss and accuracy per epoch and the final test accuracy.
"""

import argparse
import sys
import time

import digits_model
import numpy as np


def get_tf(backend):
    if backend == "tensorflow":
        import tensorflow.compat.v1 as tf

        tf.disable_v2_behavior()
        return tf
    import graphcore as tf

    return tf


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--backend", choices=["graphcore", "tensorflow"], default="graphcore")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--learning-rate", type=float, default=0.1)
    parser.add_argument("--optimizer", choices=["sgd", "adam"], default="sgd")
    args = parser.parse_args(argv)
    tf = get_tf(args.backend)

    x_train, y_train, x_test, y_test = digits_model.load_digits_split()
    tf.set_random_seed(0)
    images = tf.placeholder(tf.float32, [None, 64], name="images")
    labels = tf.placeholder(tf.int64, [None], name="labels")
    logits = digits_model.inference(tf, images)
    loss = digits_model.loss_fn(tf, logits, labels)
    accuracy = digits_model.evaluation(tf, logits, labels)
    global_step = tf.train.get_or_create_global_step()
    if args.optimizer == "adam":
        optimizer = tf.train.AdamOptimizer(args.learning_rate / 100)
    else:
        optimizer = tf.train.GradientDescentOptimizer(args.learning_rate)
    train_op = optimizer.minimize(loss, global_step=global_step)

    rng = np.random.default_rng(0)
    start = time.time()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for epoch in range(1, args.epochs + 1):
            losses = []
            for bx, by in digits_model.batches(x_train, y_train, args.batch_size, rng):
                _, value = sess.run([train_op, loss], feed_dict={images: bx, labels: by})
                losses.append(value)
            if epoch % 5 == 0 or epoch == 1:
                train_acc = sess.run(accuracy, feed_dict={images: x_train, labels: y_train})
                print(f"epoch {epoch:3d}  step {sess.run(global_step):5d}  "
                      f"loss {np.mean(losses):.4f}  train accuracy {train_acc:.4f}", flush=True)
        test_acc = sess.run(accuracy, feed_dict={images: x_test, labels: y_test})
    print(f"test accuracy {test_acc:.4f}  ({time.time() - start:.1f}s, {args.backend})")
    return float(test_acc)


if __name__ == "__main__":
    sys.exit(0 if main() >= 0.95 else 1)
