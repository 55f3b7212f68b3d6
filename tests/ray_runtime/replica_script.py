"""A between-graph training script in the style of TensorFlow's mnist_replica.py, written
for the tests: run unmodified by processes started by hand (with RAY_ADDRESS) and by
``python -m ray_runtime.launch``.

    python replica_script.py --job_name=ps --task_index=0 \
        --ps_hosts=localhost:2222 --worker_hosts=localhost:2223,localhost:2224
"""

import argparse
import tempfile
import time

import numpy as np
from digits_mlp_script import inference, load_digits

import graphcore as tf


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--job_name", required=True, choices=["ps", "worker"])
    parser.add_argument("--task_index", type=int, required=True)
    parser.add_argument("--ps_hosts", required=True)
    parser.add_argument("--worker_hosts", required=True)
    parser.add_argument("--train_steps", type=int, default=200)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--learning_rate", type=float, default=0.2)
    parser.add_argument("--monitored", action="store_true",
                        help="train in a MonitoredTrainingSession (else a tf.Session)")
    parser.add_argument("--supervisor", action="store_true",
                        help="train in a tf.train.Supervisor's session, as mnist_replica.py")
    parser.add_argument("--checkpoint_dir", default=None)
    parser.add_argument("--sync_replicas", action="store_true",
                        help="aggregate every worker's gradients (SyncReplicasOptimizer; "
                             "needs --monitored)")
    flags = parser.parse_args()

    cluster = tf.train.ClusterSpec({"ps": flags.ps_hosts.split(","),
                                    "worker": flags.worker_hosts.split(",")})
    server = tf.train.Server(cluster, job_name=flags.job_name, task_index=flags.task_index)
    if flags.job_name == "ps":
        server.join()
        print("ps: job over")
        return

    is_chief = flags.task_index == 0
    with tf.device(tf.train.replica_device_setter(
            worker_device=f"/job:worker/task:{flags.task_index}", cluster=cluster)):
        global_step = tf.train.get_or_create_global_step()
        images = tf.placeholder(tf.float32, [None, 64], name="images")
        labels = tf.placeholder(tf.int64, [None], name="labels")
        logits = inference(tf, images)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=logits), name="xentropy_mean")
        opt = tf.train.GradientDescentOptimizer(flags.learning_rate)
        n_workers = len(flags.worker_hosts.split(","))
        if flags.sync_replicas:
            opt = tf.train.SyncReplicasOptimizer(opt, replicas_to_aggregate=n_workers,
                                                 total_num_replicas=n_workers)
        train_op = opt.minimize(loss, global_step=global_step)
        init_op = tf.global_variables_initializer()
        uninitialized = tf.report_uninitialized_variables()

    x, y = load_digits()
    rng = np.random.RandomState(flags.task_index)
    losses = []

    def train_step(sess):
        idx = rng.randint(0, len(x), flags.batch_size)
        _, value, step = sess.run([train_op, loss, global_step],
                                  {images: x[idx], labels: y[idx]})
        losses.append(float(value))
        if len(losses) % 25 == 0:
            print(f"worker {flags.task_index}: step {step} loss {value:.4f}")
        return step

    if flags.supervisor:  # mnist_replica.py's way: the Supervisor inits or waits
        sv = tf.train.Supervisor(is_chief=is_chief, logdir=tempfile.mkdtemp(),
                                 init_op=init_op, recovery_wait_secs=1,
                                 global_step=global_step)
        sess = sv.prepare_or_wait_for_session(server.target)
        step = 0
        while step < flags.train_steps:
            step = train_step(sess)
    elif flags.monitored:
        hooks = [tf.train.StopAtStepHook(last_step=flags.train_steps)]
        if flags.sync_replicas:
            hooks.append(opt.make_session_run_hook(is_chief))
        with tf.train.MonitoredTrainingSession(master=server.target, is_chief=is_chief,
                                               checkpoint_dir=flags.checkpoint_dir,
                                               hooks=hooks) as sess:
            while not sess.should_stop():
                train_step(sess)
    else:
        with tf.Session(server.target) as sess:
            if is_chief:
                sess.run(init_op)
            else:  # as tf.train.Supervisor: wait for the chief
                while len(sess.run(uninitialized)):
                    time.sleep(0.1)
            step = 0
            while step < flags.train_steps:
                step = train_step(sess)
    head, tail = np.mean(losses[:10]), np.mean(losses[-10:])
    print(f"worker {flags.task_index}: {len(losses)} steps, loss {head:.4f} -> {tail:.4f}")
    print(f"RESULT loss_decreased={tail < head}")

if __name__ == "__main__":
    main()
