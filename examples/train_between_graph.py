"""Between-graph replication of the digits MLP on Ray: every worker task runs the same
``main(task_index)`` (the TF1 distributed-training pattern), builds its own copy of the
graph under ``replica_device_setter``, and trains asynchronously on its shard of the
data; the variables live on the shared ps actors, placed round-robin.  The chief
(task 0) initializes them, the other workers wait until it has.

    python examples/train_between_graph.py                 # launches 2 ps + 2 workers
    python -m ray_runtime.launch examples/train_between_graph.py --ps 2 --workers 2

Prints each worker's progress and the final test accuracy of the shared model.
"""

import argparse
import sys
import time

import digits_model
import numpy as np
from ray import cloudpickle

import graphcore as tf
import ray_runtime

# The worker processes cannot import this directory's modules: ship them by value
# (this one too when it is imported rather than run; __main__ goes by value anyway).
cloudpickle.register_pickle_by_value(digits_model)
if __name__ != "__main__":
    cloudpickle.register_pickle_by_value(sys.modules[__name__])


def build(cluster, task_index, learning_rate):
    with tf.device(tf.train.replica_device_setter(
            cluster=cluster, worker_device=f"/job:worker/task:{task_index}")):
        images = tf.placeholder(tf.float32, [None, 64], name="images")
        labels = tf.placeholder(tf.int64, [None], name="labels")
        with tf.variable_scope("model"):
            logits = digits_model.inference(tf, images)
        loss = digits_model.loss_fn(tf, logits, labels)
        global_step = tf.train.get_or_create_global_step()
        train_op = tf.train.GradientDescentOptimizer(learning_rate).minimize(
            loss, global_step=global_step)
        accuracy = digits_model.evaluation(tf, logits, labels)
    return images, labels, train_op, loss, accuracy, global_step


def main(task_index, epochs=20, batch_size=32, learning_rate=0.1):
    """One worker's training loop (runs in the worker task ``task_index``)."""
    cluster, cluster_name = ray_runtime.launched_cluster()
    num_workers = cluster.num_tasks("worker")
    epochs, batch_size = int(epochs), int(batch_size)
    x_train, y_train, _, _ = digits_model.load_digits_split()
    x_shard, y_shard = x_train[task_index::num_workers], y_train[task_index::num_workers]
    tf.set_random_seed(0)
    images, labels, train_op, loss, _, global_step = build(cluster, task_index,
                                                           float(learning_rate))
    sess = ray_runtime.worker_session(cluster, task_index, cluster_name)
    if task_index == 0:
        sess.run(tf.global_variables_initializer())
    else:
        ray_runtime.wait_for_variables(sess)
    rng = np.random.default_rng(task_index)
    for epoch in range(1, epochs + 1):
        losses = [sess.run([train_op, loss], feed_dict={images: bx, labels: by})[1]
                  for bx, by in digits_model.batches(x_shard, y_shard, batch_size, rng)]
        if epoch % 5 == 0 or epoch == 1:
            print(f"worker {task_index}  epoch {epoch:3d}  global step "
                  f"{sess.run(global_step):5d}  loss {np.mean(losses):.4f}", flush=True)
    steps = int(sess.run(global_step))
    sess.close()
    return steps


def evaluate(cluster, cluster_name):
    """Test accuracy of the shared variables, read from the ps actors."""
    _, _, x_test, y_test = digits_model.load_digits_split()
    with tf.Graph().as_default():
        images, labels, _, _, accuracy, _ = build(cluster, 0, 0.1)
        sess = ray_runtime.worker_session(cluster, 0, cluster_name)
        try:
            return float(sess.run(accuracy, feed_dict={images: x_test, labels: y_test}))
        finally:
            sess.close()


def run(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--target", default="ray://auto")
    parser.add_argument("--ps", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--cluster-name", default="train_between_graph")
    args = parser.parse_args(argv)
    cluster = tf.train.ClusterSpec({"ps": args.ps, "worker": args.workers})
    start = time.time()
    try:
        steps = ray_runtime.launch(main, cluster, args=(args.epochs,), target=args.target,
                                   cluster_name=args.cluster_name)
        accuracy = evaluate(cluster, args.cluster_name)
    finally:
        ray_runtime.shutdown_cluster(args.cluster_name,
                                     jobs={"ps": args.ps, "worker": args.workers})
    print(f"test accuracy {accuracy:.4f}  ({time.time() - start:.1f}s, {max(steps)} steps, "
          f"{args.ps} ps + {args.workers} worker clients on Ray)")
    return accuracy


if __name__ == "__main__":
    sys.exit(0 if run() >= 0.95 else 1)
