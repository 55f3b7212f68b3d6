"""Data-parallel training of the digits MLP on Ray: 2 ps tasks hold the variables
(placed round-robin by replica_device_setter), 2 worker tasks each compute the
gradients of half of every batch, and the averaged gradients update the variables
on the ps tasks (in-graph replication, one client).

    python examples/train_ps_ray.py                  # embedded local Ray cluster
    python examples/train_ps_ray.py --local          # the same graph in-process
    ray job submit --address http://127.0.0.1:8265 --working-dir . -- \\
        python examples/train_ps_ray.py              # on a running Ray cluster

Prints progress per epoch and the final test accuracy.
"""

import argparse
import sys
import time

import digits_model
import numpy as np

import graphcore as tf
import ray_runtime


def average_gradients(tower_grads):
    """[(grad, var)] per tower -> [(mean grad, var)]."""
    averaged = []
    for grads_and_vars in zip(*tower_grads):
        grads = [g for g, _ in grads_and_vars]
        averaged.append((tf.add_n(grads) / float(len(grads)), grads_and_vars[0][1]))
    return averaged


def _device(cluster, worker):
    """replica_device_setter for worker ``worker``, or no placement (cluster None: the
    same graph, op for op, for an in-process run)."""
    if cluster is None:
        return None
    return tf.train.replica_device_setter(cluster=cluster,
                                          worker_device=f"/job:worker/task:{worker}")


def build(cluster, num_workers, learning_rate):
    images = tf.placeholder(tf.float32, [None, 64], name="images")
    labels = tf.placeholder(tf.int64, [None], name="labels")
    image_shards = tf.split(images, num_workers)
    label_shards = tf.split(labels, num_workers)
    optimizer = tf.train.GradientDescentOptimizer(learning_rate)
    tower_grads = []
    losses = []
    for i in range(num_workers):
        with tf.device(_device(cluster, i)), tf.variable_scope("model", reuse=i > 0):
            logits = digits_model.inference(tf, image_shards[i])
            loss = digits_model.loss_fn(tf, logits, label_shards[i])
            losses.append(loss)
            tower_grads.append(optimizer.compute_gradients(loss))
    with tf.device(_device(cluster, 0)):
        global_step = tf.train.get_or_create_global_step()
        train_op = optimizer.apply_gradients(average_gradients(tower_grads),
                                             global_step=global_step)
        mean_loss = tf.add_n(losses) / float(num_workers)
        with tf.variable_scope("model", reuse=True):
            accuracy = digits_model.evaluation(tf, digits_model.inference(tf, images), labels)
    return images, labels, train_op, mean_loss, accuracy, global_step


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--target", default="ray://auto")
    parser.add_argument("--ps", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--learning-rate", type=float, default=0.1)
    parser.add_argument("--cluster-name", default="train_ps_ray")
    parser.add_argument("--local", action="store_true",
                        help="run the same graph in this process (no Ray), for comparison")
    args = parser.parse_args(argv)

    cluster = tf.train.ClusterSpec({"ps": args.ps, "worker": args.workers})
    x_train, y_train, x_test, y_test = digits_model.load_digits_split()
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(0)
        images, labels, train_op, loss, accuracy, global_step = build(
            None if args.local else cluster, args.workers, args.learning_rate)

    rng = np.random.default_rng(0)
    start = time.time()
    if args.local:
        sess = tf.Session(graph=graph)
    else:
        sess = ray_runtime.session(args.target, cluster=cluster, graph=graph,
                                   cluster_name=args.cluster_name)
    try:
        with graph.as_default():
            sess.run(tf.global_variables_initializer())
        for epoch in range(1, args.epochs + 1):
            losses = []
            for bx, by in digits_model.batches(x_train, y_train, args.batch_size, rng):
                if len(bx) % args.workers:
                    continue  # tf.split needs equal shards
                _, value = sess.run([train_op, loss], feed_dict={images: bx, labels: by})
                losses.append(value)
            if epoch % 5 == 0 or epoch == 1:
                print(f"epoch {epoch:3d}  step {sess.run(global_step):5d}  "
                      f"loss {np.mean(losses):.4f}", flush=True)
        test_acc = sess.run(accuracy, feed_dict={images: x_test, labels: y_test})
    finally:
        sess.close()
        if not args.local:
            ray_runtime.shutdown_cluster(args.cluster_name)
    where = "in-process" if args.local else f"{args.ps} ps + {args.workers} workers on Ray"
    print(f"test accuracy {test_acc:.4f}  ({time.time() - start:.1f}s, {where})")
    return float(test_acc)


if __name__ == "__main__":
    sys.exit(0 if main() >= 0.95 else 1)
