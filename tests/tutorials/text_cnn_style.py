"""A TF1 tutorial-style script (Denny Britz's 2015-2017 "CNN for text classification"
code, Kim 2014): an embedding, conv2d + max_pool over words for three filter sizes, concat,
dropout, xw_plus_b with l2 loss, Adam through compute_gradients/apply_gradients, gradient
histogram and sparsity summaries, a FileWriter, a Saver with max_to_keep, batch_iter over
synthetic sentences whose class words decide the label."""
import os
import tempfile

import numpy as np
import tensorflow as tf


class TextCNN:
    def __init__(self, sequence_length, num_classes, vocab_size, embedding_size,
                 filter_sizes, num_filters, l2_reg_lambda=0.0):
        self.input_x = tf.placeholder(tf.int32, [None, sequence_length], name="input_x")
        self.input_y = tf.placeholder(tf.float32, [None, num_classes], name="input_y")
        self.dropout_keep_prob = tf.placeholder(tf.float32, name="dropout_keep_prob")
        l2_loss = tf.constant(0.0)
        with tf.device("/cpu:0"), tf.name_scope("embedding"):
            self.W = tf.Variable(tf.random_uniform([vocab_size, embedding_size], -1.0, 1.0),
                                 name="W")
            self.embedded_chars = tf.nn.embedding_lookup(self.W, self.input_x)
            self.embedded_chars_expanded = tf.expand_dims(self.embedded_chars, -1)
        pooled_outputs = []
        for filter_size in filter_sizes:
            with tf.name_scope("conv-maxpool-%s" % filter_size):
                filter_shape = [filter_size, embedding_size, 1, num_filters]
                W = tf.Variable(tf.truncated_normal(filter_shape, stddev=0.1), name="W")
                b = tf.Variable(tf.constant(0.1, shape=[num_filters]), name="b")
                conv = tf.nn.conv2d(self.embedded_chars_expanded, W, strides=[1, 1, 1, 1],
                                    padding="VALID", name="conv")
                h = tf.nn.relu(tf.nn.bias_add(conv, b), name="relu")
                pooled = tf.nn.max_pool(h, ksize=[1, sequence_length - filter_size + 1, 1, 1],
                                        strides=[1, 1, 1, 1], padding="VALID", name="pool")
                pooled_outputs.append(pooled)
        num_filters_total = num_filters * len(filter_sizes)
        self.h_pool = tf.concat(pooled_outputs, 3)
        self.h_pool_flat = tf.reshape(self.h_pool, [-1, num_filters_total])
        with tf.name_scope("dropout"):
            self.h_drop = tf.nn.dropout(self.h_pool_flat, self.dropout_keep_prob)
        with tf.name_scope("output"):
            W = tf.get_variable("W", shape=[num_filters_total, num_classes],
                                initializer=tf.glorot_uniform_initializer())
            b = tf.Variable(tf.constant(0.1, shape=[num_classes]), name="b")
            l2_loss += tf.nn.l2_loss(W)
            l2_loss += tf.nn.l2_loss(b)
            self.scores = tf.nn.xw_plus_b(self.h_drop, W, b, name="scores")
            self.predictions = tf.argmax(self.scores, 1, name="predictions")
        with tf.name_scope("loss"):
            losses = tf.nn.softmax_cross_entropy_with_logits_v2(logits=self.scores,
                                                                labels=self.input_y)
            self.loss = tf.reduce_mean(losses) + l2_reg_lambda * l2_loss
        with tf.name_scope("accuracy"):
            correct_predictions = tf.equal(self.predictions, tf.argmax(self.input_y, 1))
            self.accuracy = tf.reduce_mean(tf.cast(correct_predictions, "float"),
                                           name="accuracy")


def make_data(n, seq_len, vocab, rng):
    """Class 1 sentences contain 'good' words (ids 2-5), class 0 'bad' words (6-9)."""
    x = rng.randint(10, vocab, size=(n, seq_len))
    y = rng.randint(2, size=n)
    for i in range(n):
        pos = rng.choice(seq_len, 2, replace=False)
        x[i, pos] = rng.randint(2, 6, size=2) if y[i] else rng.randint(6, 10, size=2)
        x[i, rng.randint(seq_len // 2, seq_len):] = 0  # padding
    return x.astype(np.int32), np.eye(2, dtype=np.float32)[y]


def batch_iter(data, batch_size, num_epochs, rng):
    data = np.array(data, dtype=object)
    size = len(data)
    per_epoch = int((size - 1) / batch_size) + 1
    for _ in range(num_epochs):
        shuffled = data[rng.permutation(np.arange(size))]
        for b in range(per_epoch):
            yield shuffled[b * batch_size:min((b + 1) * batch_size, size)]


rng = np.random.RandomState(10)
x_train, y_train = make_data(400, 20, 60, rng)
x_dev, y_dev = make_data(100, 20, 60, rng)
print(f"Vocabulary Size: {60:d}")
print(f"Train/Dev split: {len(y_train):d}/{len(y_dev):d}")

with tf.Graph().as_default():
    tf.set_random_seed(10)
    session_conf = tf.ConfigProto(allow_soft_placement=True, log_device_placement=False)
    sess = tf.Session(config=session_conf)
    with sess.as_default():
        cnn = TextCNN(sequence_length=x_train.shape[1], num_classes=y_train.shape[1],
                      vocab_size=60, embedding_size=16, filter_sizes=[3, 4, 5],
                      num_filters=8, l2_reg_lambda=0.1)
        global_step = tf.Variable(0, name="global_step", trainable=False)
        optimizer = tf.train.AdamOptimizer(1e-3)
        grads_and_vars = optimizer.compute_gradients(cnn.loss)
        train_op = optimizer.apply_gradients(grads_and_vars, global_step=global_step)
        grad_summaries = []
        for g, v in grads_and_vars:
            if g is not None:
                grad_hist_summary = tf.summary.histogram(f"{v.name}/grad/hist", g)
                sparsity_summary = tf.summary.scalar(f"{v.name}/grad/sparsity",
                                                     tf.nn.zero_fraction(g))
                grad_summaries.append(grad_hist_summary)
                grad_summaries.append(sparsity_summary)
        grad_summaries_merged = tf.summary.merge(grad_summaries)
        out_dir = tempfile.mkdtemp()
        loss_summary = tf.summary.scalar("loss", cnn.loss)
        acc_summary = tf.summary.scalar("accuracy", cnn.accuracy)
        train_summary_op = tf.summary.merge([loss_summary, acc_summary, grad_summaries_merged])
        train_summary_writer = tf.summary.FileWriter(os.path.join(out_dir, "summaries", "train"),
                                                     sess.graph)
        dev_summary_op = tf.summary.merge([loss_summary, acc_summary])
        checkpoint_dir = os.path.abspath(os.path.join(out_dir, "checkpoints"))
        checkpoint_prefix = os.path.join(checkpoint_dir, "model")
        os.makedirs(checkpoint_dir)
        saver = tf.train.Saver(tf.global_variables(), max_to_keep=2)
        sess.run(tf.global_variables_initializer())
        for g, v in grads_and_vars:
            print(v.name, v.shape, isinstance(g, tf.IndexedSlices))
        print(cnn.h_pool.name, cnn.h_pool.shape, cnn.h_pool_flat.shape)
        print(cnn.scores.name, cnn.predictions.name, cnn.predictions.dtype)
        print(grad_summaries_merged.name, train_summary_op.name)

        def train_step(x_batch, y_batch):
            feed_dict = {cnn.input_x: x_batch, cnn.input_y: y_batch,
                         cnn.dropout_keep_prob: 0.5}
            _, step, summaries, loss, accuracy = sess.run(
                [train_op, global_step, train_summary_op, cnn.loss, cnn.accuracy], feed_dict)
            if step % 10 == 0:
                print(f"step {step}, loss {loss:.5g}, acc {accuracy:g}")
            train_summary_writer.add_summary(summaries, step)

        def dev_step(x_batch, y_batch):
            feed_dict = {cnn.input_x: x_batch, cnn.input_y: y_batch,
                         cnn.dropout_keep_prob: 1.0}
            step, summaries, loss, accuracy = sess.run(
                [global_step, dev_summary_op, cnn.loss, cnn.accuracy], feed_dict)
            print(f"dev step {step}, loss {loss:.5g}, acc {accuracy:g}")

        batches = batch_iter(list(zip(x_train, y_train)), 50, 5, rng)
        for batch in batches:
            x_batch, y_batch = zip(*batch)
            train_step(np.stack(x_batch), np.stack(y_batch))
            current_step = tf.train.global_step(sess, global_step)
            if current_step % 20 == 0:
                print("\nEvaluation:")
                dev_step(x_dev, y_dev)
                print("")
                path = saver.save(sess, checkpoint_prefix, global_step=current_step)
                print(f"Saved model checkpoint to {os.path.relpath(path, out_dir)}")
        print(sorted(os.path.basename(p) for p in saver.last_checkpoints))
        print(os.path.basename(tf.train.latest_checkpoint(checkpoint_dir)))
