"""tf.train.Checkpoint and CheckpointManager on a Ray cluster: variables on two ps tasks
and an optimizer's slots saved by the object-based SaveV2, reset, and restored
(graphcore/train/checkpoint.py)."""

import numpy as np

import graphcore as tf
import ray_runtime

CLUSTER = {"ps": 2}  # no worker: ps/0 runs the unpinned ops


def test_checkpoint_manager_on_ps_tasks(ray_cluster, cluster_name, tmp_path):
    directory = str(tmp_path)
    with tf.device("/job:ps/task:0"):
        w = tf.Variable([[1.0, 2.0]], name="w")
    with tf.device("/job:ps/task:1"):
        b = tf.Variable([0.5], name="b")
        step = tf.train.get_or_create_global_step()
    opt = tf.train.MomentumOptimizer(0.1, 0.9)
    train = opt.minimize(tf.reduce_sum(tf.square(tf.matmul(w, [[1.0], [1.0]]) + b)),
                         global_step=step)
    model = tf.Module()
    model.w, model.b = w, b
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt, step=step)
    variables = [w, b, step, opt.get_slot(w, "momentum")]
    sess = ray_runtime.session("ray://auto", cluster=CLUSTER, cluster_name=cluster_name)
    try:
        with sess.as_default():
            sess.run(tf.global_variables_initializer())
            manager = tf.train.CheckpointManager(ckpt, directory, max_to_keep=2)
            for _ in range(3):
                sess.run(train)
                manager.save()
            want = sess.run(variables)
            assert [p.rsplit("/", 1)[1] for p in manager.checkpoints] == ["ckpt-2", "ckpt-3"]
            sess.run(tf.global_variables_initializer())
            status = ckpt.restore(tf.train.latest_checkpoint(directory))
            status.assert_consumed().run_restore_ops(sess)
            got = sess.run(variables + [ckpt.save_counter])
    finally:
        sess.close()
    for g, v in zip(got, want + [3]):
        np.testing.assert_allclose(g, v)
