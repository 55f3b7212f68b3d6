"""TFRecords + queue-runner input pipeline (2016-2017 tutorials): tf.python_io writer,
tf.train.string_input_producer, TFRecordReader, parse_single_example, tf.train.batch /
shuffle_batch, Coordinator + start_queue_runners, a linear model trained on the batches,
then the same files through tf.data for evaluation."""
import os
import tempfile

import numpy as np
import tensorflow as tf

np.random.seed(5)
tmp = tempfile.mkdtemp()
W_TRUE = np.array([1.5, -2.0, 0.5], np.float32)


def _float_feature(v):
    return tf.train.Feature(float_list=tf.train.FloatList(value=v))


def _int64_feature(v):
    return tf.train.Feature(int64_list=tf.train.Int64List(value=[v]))


def _bytes_feature(v):
    return tf.train.Feature(bytes_list=tf.train.BytesList(value=[v]))


filenames = []
for shard in range(2):
    name = os.path.join(tmp, "data-%05d-of-00002.tfrecords" % shard)
    filenames.append(name)
    with tf.python_io.TFRecordWriter(name) as writer:
        for i in range(64):
            x = np.random.randn(3).astype(np.float32)
            y = float(x @ W_TRUE + 0.3)
            example = tf.train.Example(features=tf.train.Features(feature={
                "x": _float_feature(x), "y": _float_feature([y]),
                "id": _int64_feature(shard * 64 + i),
                "tag": _bytes_feature(b"even" if i % 2 == 0 else b"odd")}))
            writer.write(example.SerializeToString())
print("records", sum(1 for f in filenames for _ in tf.python_io.tf_record_iterator(f)))
first = tf.train.Example.FromString(next(tf.python_io.tf_record_iterator(filenames[0])))
print("first id", first.features.feature["id"].int64_list.value[0],
      sorted(first.features.feature.keys()))

FEATURES = {"x": tf.FixedLenFeature([3], tf.float32), "y": tf.FixedLenFeature([1], tf.float32),
            "id": tf.FixedLenFeature([], tf.int64), "tag": tf.FixedLenFeature([], tf.string)}


def read_and_decode(filename_queue):
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    features = tf.parse_single_example(serialized, features=FEATURES)
    return features["x"], features["y"], features["id"], features["tag"]


with tf.Graph().as_default():
    tf.set_random_seed(3)
    filename_queue = tf.train.string_input_producer(filenames, num_epochs=None, shuffle=False)
    x, y, ids, tag = read_and_decode(filename_queue)
    print("decoded", x.shape, y.shape, ids.dtype, tag.dtype)
    xb, yb, idb = tf.train.batch([x, y, ids], batch_size=16, num_threads=1, capacity=64)
    print("batch", xb.shape, yb.shape, idb.shape, xb.name)
    w = tf.Variable(tf.zeros([3, 1]), name="w")
    b = tf.Variable(0.0, name="b")
    pred = tf.matmul(xb, w) + b
    loss = tf.reduce_mean(tf.square(pred - yb))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    print([qr.name for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)])
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        seen = []
        try:
            for step in range(40):
                _, loss_val, i = sess.run([train, loss, idb])
                seen.extend(i.tolist())
                if step % 10 == 9:
                    print("step %d loss %.5f" % (step + 1, loss_val))
        finally:
            coord.request_stop()
            coord.join(threads)
        print("first ids", seen[:20])
        print("w", np.round(sess.run(w).ravel(), 2), "b", np.round(sess.run(b), 2))
        w_val, b_val = sess.run([w, b])

# one epoch, shuffle_batch with num_epochs -> OutOfRangeError at the end
with tf.Graph().as_default():
    q = tf.train.string_input_producer(filenames, num_epochs=1, shuffle=False)
    x, y, ids, tag = read_and_decode(q)
    batch = tf.train.shuffle_batch([ids, tag], batch_size=20, capacity=100,
                                   min_after_dequeue=10, seed=7, allow_smaller_final_batch=True)
    print("shuffle_batch", batch[0].shape, batch[1].dtype)
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        count, sizes, tags = 0, [], set()
        try:
            while not coord.should_stop():
                i, t = sess.run(batch)
                count += len(i)
                sizes.append(len(i))
                tags.update(t.tolist())
        except tf.errors.OutOfRangeError:
            print("Done training -- epoch limit reached")
        finally:
            coord.request_stop()
        coord.join(threads)
        print("examples", count, "batches", len(sizes), "last", sizes[-1], sorted(tags))

# evaluation through tf.data
with tf.Graph().as_default():
    ds = tf.data.TFRecordDataset(filenames).map(
        lambda s: tf.parse_single_example(s, FEATURES)).batch(32)
    it = ds.make_one_shot_iterator()
    nxt = it.get_next()
    print("dataset", sorted(nxt.keys()), nxt["x"].shape)
    total, n = 0.0, 0
    with tf.Session() as sess:
        while True:
            try:
                f = sess.run(nxt)
            except tf.errors.OutOfRangeError:
                break
            err = f["x"] @ w_val + b_val - f["y"]
            total += float((err ** 2).sum())
            n += len(err)
    print("eval examples", n, "mse %.4f" % (total / n))
