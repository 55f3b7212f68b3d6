"""Pretrain, save, restore and fine-tune (TF1 transfer-learning posts, 2017-2019):
tf.train.Saver with var_list dicts, restore of a subset, tf.train.init_from_checkpoint
with scope maps, tf.train.list_variables / load_variable / NewCheckpointReader,
freezing layers by var_list."""
import os
import tempfile

import numpy as np
import tensorflow as tf

np.random.seed(4)
tmp = tempfile.mkdtemp()
x_data = np.random.randn(200, 5).astype(np.float32)
y_a = (x_data[:, :1] * 2 - x_data[:, 1:2]).astype(np.float32)
y_b = (x_data[:, 2:3] + 0.5 * x_data[:, :1]).astype(np.float32)


def network(x, trainable_base=True):
    with tf.variable_scope("base"):
        h = tf.layers.dense(x, 16, tf.nn.tanh, name="fc1", trainable=trainable_base)
        h = tf.layers.dense(h, 16, tf.nn.tanh, name="fc2", trainable=trainable_base)
    with tf.variable_scope("head"):
        out = tf.layers.dense(h, 1, name="out")
    return out


# 1. pretrain on task A
with tf.Graph().as_default():
    tf.set_random_seed(1)
    x = tf.placeholder(tf.float32, [None, 5])
    y = tf.placeholder(tf.float32, [None, 1])
    pred = network(x)
    loss = tf.losses.mean_squared_error(y, pred)
    step = tf.train.get_or_create_global_step()
    train = tf.train.MomentumOptimizer(0.05, 0.9).minimize(loss, global_step=step)
    saver = tf.train.Saver(max_to_keep=3)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(150):
            _, loss_val = sess.run([train, loss], {x: x_data, y: y_a})
            if i % 50 == 49:
                path = saver.save(sess, os.path.join(tmp, "pretrain"), global_step=step)
                print("pretrain step %d loss %.5f saved %s" % (i + 1, loss_val, os.path.basename(path)))
        print("kept", [os.path.basename(p) for p in saver.last_checkpoints])

ckpt = tf.train.latest_checkpoint(tmp)
print("latest", os.path.basename(ckpt))
state = tf.train.get_checkpoint_state(tmp)
print("all", [os.path.basename(p) for p in state.all_model_checkpoint_paths])
for name, shape in tf.train.list_variables(ckpt):
    print("  ", name, shape)
print("global_step in ckpt", tf.train.load_variable(ckpt, "global_step"))
reader = tf.train.NewCheckpointReader(ckpt)
print("has momentum slot", reader.has_tensor("base/fc1/kernel/Momentum"),
      sorted(reader.get_variable_to_dtype_map().items())[0][1])

# 2. fine-tune on task B: restore the base only, new head, base frozen
with tf.Graph().as_default():
    tf.set_random_seed(2)
    x = tf.placeholder(tf.float32, [None, 5])
    y = tf.placeholder(tf.float32, [None, 1])
    pred = network(x, trainable_base=False)
    loss = tf.losses.mean_squared_error(y, pred)
    head_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="head")
    base_vars = tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope="base")
    print("trainable", [v.name for v in tf.trainable_variables()])
    print("base", [v.op.name for v in base_vars])
    train = tf.train.AdamOptimizer(0.02).minimize(loss, var_list=head_vars)
    restorer = tf.train.Saver(var_list={v.op.name: v for v in base_vars})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        restorer.restore(sess, ckpt)
        k = sess.run(base_vars[0])
        print("restored kernel matches", np.allclose(k, reader.get_tensor("base/fc1/kernel")))
        for _ in range(100):
            _, loss_val = sess.run([train, loss], {x: x_data, y: y_b})
        print("finetune loss %.5f" % loss_val)
        print("base unchanged", np.allclose(sess.run(base_vars[0]), k))
        uninit = sess.run(tf.report_uninitialized_variables())
        print("uninitialized", list(uninit))

# 3. init_from_checkpoint: map the old base into a renamed scope
with tf.Graph().as_default():
    with tf.variable_scope("student"):
        with tf.variable_scope("encoder"):
            h = tf.layers.dense(tf.zeros([1, 5]), 16, tf.nn.tanh, name="fc1")
        w = tf.get_variable("extra", [3], initializer=tf.ones_initializer())
    tf.train.init_from_checkpoint(ckpt, {"base/fc1/": "student/encoder/fc1/"})
    tf.train.init_from_checkpoint(ckpt, {"base/fc1/bias": "student/encoder/fc1/bias"})
    kernel = [v for v in tf.global_variables() if v.op.name.endswith("fc1/kernel")][0]
    print("init op", kernel.initializer.name, kernel.initial_value.op.type)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        print("init_from_checkpoint", np.allclose(sess.run(kernel),
                                                  reader.get_tensor("base/fc1/kernel")),
              sess.run(w))
    try:
        tf.train.init_from_checkpoint(ckpt, {"base/missing": "student/extra"})
    except ValueError as e:
        # (TF lists the checkpoint's names in its C++ map's order: print the start only)
        print("ValueError", str(e).split(" is not found")[0])
