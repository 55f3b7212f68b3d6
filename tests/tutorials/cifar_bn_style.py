"""A small CIFAR-style convnet, TF1 style (2017-2018): tf.layers conv/batch_normalization
with the UPDATE_OPS dependency and an is_training placeholder, tf.cond, exponential_decay /
piecewise_constant learning rates, MomentumOptimizer, ExponentialMovingAverage of the
weights restored through variables_to_restore, tf.metrics (local variables), tf.nn.top_k,
in_top_k, tf.map_fn / tf.image augmentation, tf.py_func."""
import tempfile

import numpy as np
import tensorflow as tf

np.random.seed(7)
tf.set_random_seed(7)
N, H, C = 96, 8, 3
images = np.random.rand(N, H, H, C).astype(np.float32)
labels = (images[:, :4, :, 0].mean(axis=(1, 2)) > images[:, 4:, :, 0].mean(axis=(1, 2)))
labels = labels.astype(np.int64) + 2 * (images[..., 1].mean(axis=(1, 2)) > 0.5)

x = tf.placeholder(tf.float32, [None, H, H, C], name="images")
y = tf.placeholder(tf.int64, [None], name="labels")
is_training = tf.placeholder(tf.bool, [], name="is_training")


def augment(batch):
    # (batch-level random ops: inside map_fn's loop TF draws in its executor's order)
    batch = tf.image.random_flip_left_right(batch, seed=3)
    batch = tf.image.random_brightness(batch, 0.1, seed=4)
    return tf.map_fn(tf.image.per_image_standardization, batch)


x_aug = tf.cond(is_training, lambda: augment(x),
                lambda: tf.map_fn(tf.image.per_image_standardization, x))


def conv_bn(inp, filters, name):
    with tf.variable_scope(name):
        h = tf.layers.conv2d(inp, filters, 3, padding="same", use_bias=False,
                             kernel_initializer=tf.variance_scaling_initializer())
        h = tf.layers.batch_normalization(h, training=is_training, momentum=0.9)
        return tf.nn.relu(h)


h = conv_bn(x_aug, 8, "block1")
h = tf.layers.max_pooling2d(h, 2, 2)
h = conv_bn(h, 16, "block2")
h = tf.reduce_mean(h, axis=[1, 2], name="global_pool")
logits = tf.layers.dense(h, 4, name="logits")
xent = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
l2 = 1e-4 * tf.add_n([tf.nn.l2_loss(v) for v in tf.trainable_variables() if "kernel" in v.name])
loss = xent + l2

global_step = tf.train.get_or_create_global_step()
lr = tf.train.exponential_decay(0.1, global_step, 10, 0.9, staircase=True)
lr2 = tf.train.piecewise_constant(global_step, [20, 40], [0.1, 0.05, 0.01])
update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
with tf.control_dependencies(update_ops):
    train_op = tf.train.MomentumOptimizer(lr, 0.9, use_nesterov=True).minimize(
        loss, global_step=global_step)
ema = tf.train.ExponentialMovingAverage(0.9, num_updates=global_step)
with tf.control_dependencies([train_op]):
    train_ema = ema.apply(tf.trainable_variables())

acc, acc_update = tf.metrics.accuracy(y, tf.argmax(logits, 1), name="acc")
mean_loss, mean_update = tf.metrics.mean(xent, name="mean_loss")
top2 = tf.nn.top_k(tf.nn.softmax(logits), k=2)
in_top2 = tf.reduce_mean(tf.cast(tf.nn.in_top_k(logits, tf.cast(y, tf.int32), 2), tf.float32))
hist = tf.py_func(lambda a: np.bincount(a, minlength=4).astype(np.int64), [y], tf.int64)

print("update ops", [op.name for op in update_ops])
print("bn vars", [v.name for v in tf.global_variables() if "batch_normalization" in v.name])
print("local", [v.name for v in tf.local_variables()])
print("ema", ema.average_name(tf.trainable_variables()[0]), train_ema.type)
print("x_aug", x_aug.shape, "logits", logits.shape, "top2", top2.indices.dtype)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    sess.run(tf.local_variables_initializer())
    for step in range(30):
        idx = np.arange(step * 32, step * 32 + 32) % N
        _, loss_val, r, r2 = sess.run([train_ema, loss, lr, lr2],
                               {x: images[idx], y: labels[idx], is_training: True})
        if step % 10 == 9:
            print("step %d loss %.4f lr %.4f lr2 %.3f" % (step + 1, loss_val, r, r2))
    for i in range(0, N, 32):
        sess.run([acc_update, mean_update],
                 {x: images[i:i + 32], y: labels[i:i + 32], is_training: False})
    print("eval acc %.4f mean xent %.4f" % tuple(sess.run([acc, mean_loss])))
    t, k, hcount = sess.run([top2, in_top2, hist], {x: images[:4], y: labels[:4],
                                                    is_training: False})
    print("top2", t.indices.tolist(), "in_top2 %.2f" % k, "hist", hcount.tolist())
    mm = [v for v in tf.global_variables() if "moving_mean" in v.name][0]
    print("moving mean", np.round(sess.run(mm)[:3], 4))
    saver = tf.train.Saver(ema.variables_to_restore())
    print("restore names", sorted(ema.variables_to_restore().keys())[:4])
    path = saver.save(sess, tempfile.mkdtemp() + "/ema")
    saver.restore(sess, path)
    print("step", sess.run(global_step))
