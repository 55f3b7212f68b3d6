"""An NMT-style tf.data text pipeline (tensorflow/nmt iterator_utils.py, 2017-2018):
TextLineDataset zip, string_split / tf.string_split, vocabulary lookup tables
(StaticHashTable over TextFileInitializer, both directions), filter, map with
num_parallel_calls, padded_batch, bucketing by length with group_by_window, an
initializable iterator with tables_initializer, Dataset.from_generator, shard/skip/take."""
import os
import tempfile

import numpy as np
import tensorflow as tf

tmp = tempfile.mkdtemp()
src_lines = ["a b c", "b c", "c a b d", "d", "a a a b b", "b d a", "c", "d c b a e"]
tgt_lines = ["x y", "y", "y x z", "z z", "x", "y z x w", "w", "x y z w v"]
for name, lines in (("train.src", src_lines), ("train.tgt", tgt_lines)):
    with open(os.path.join(tmp, name), "w") as f:
        f.write("\n".join(lines) + "\n")
with open(os.path.join(tmp, "vocab.src"), "w") as f:
    f.write("<unk>\n<s>\n</s>\na\nb\nc\nd\n")
with open(os.path.join(tmp, "vocab.tgt"), "w") as f:
    f.write("<unk>\n<s>\n</s>\nx\ny\nz\nw\n")

UNK_ID = 0

src_vocab_table = tf.lookup.StaticHashTable(
    tf.lookup.TextFileInitializer(os.path.join(tmp, "vocab.src"), tf.string,
                                  tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64,
                                  tf.lookup.TextFileIndex.LINE_NUMBER), UNK_ID)
tgt_vocab_table = tf.lookup.StaticHashTable(
    tf.lookup.TextFileInitializer(os.path.join(tmp, "vocab.tgt"), tf.string,
                                  tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64,
                                  tf.lookup.TextFileIndex.LINE_NUMBER), UNK_ID)
reverse_tgt_table = tf.lookup.StaticHashTable(
    tf.lookup.TextFileInitializer(os.path.join(tmp, "vocab.tgt"), tf.int64,
                                  tf.lookup.TextFileIndex.LINE_NUMBER, tf.string,
                                  tf.lookup.TextFileIndex.WHOLE_LINE), "<unk>")
tgt_sos_id = tf.cast(tgt_vocab_table.lookup(tf.constant("<s>")), tf.int32)
tgt_eos_id = tf.cast(tgt_vocab_table.lookup(tf.constant("</s>")), tf.int32)
src_eos_id = tf.cast(src_vocab_table.lookup(tf.constant("</s>")), tf.int32)

src_dataset = tf.data.TextLineDataset(os.path.join(tmp, "train.src"))
tgt_dataset = tf.data.TextLineDataset(os.path.join(tmp, "train.tgt"))
dataset = tf.data.Dataset.zip((src_dataset, tgt_dataset))
dataset = dataset.shard(1, 0).shuffle(8, seed=3, reshuffle_each_iteration=False)
dataset = dataset.map(lambda src, tgt: (tf.string_split([src]).values,
                                        tf.string_split([tgt]).values),
                      num_parallel_calls=2).prefetch(4)
dataset = dataset.filter(lambda src, tgt: tf.logical_and(tf.size(src) > 0, tf.size(tgt) > 0))
dataset = dataset.map(lambda src, tgt: (src[:4], tgt[:4]))
dataset = dataset.map(lambda src, tgt: (tf.cast(src_vocab_table.lookup(src), tf.int32),
                                        tf.cast(tgt_vocab_table.lookup(tgt), tf.int32)))
dataset = dataset.map(lambda src, tgt: (src, tf.concat(([tgt_sos_id], tgt), 0),
                                        tf.concat((tgt, [tgt_eos_id]), 0)))
dataset = dataset.map(lambda src, tgt_in, tgt_out: (src, tgt_in, tgt_out, tf.size(src),
                                                    tf.size(tgt_in)))
print("element", dataset.output_types, dataset.output_shapes)


def batching_func(x):
    return x.padded_batch(3, padded_shapes=(tf.TensorShape([None]), tf.TensorShape([None]),
                                            tf.TensorShape([None]), tf.TensorShape([]),
                                            tf.TensorShape([])),
                          padding_values=(src_eos_id, tgt_eos_id, tgt_eos_id, 0, 0))


def key_func(unused_1, unused_2, unused_3, src_len, tgt_len):
    bucket_width = 2
    bucket_id = tf.maximum(src_len // bucket_width, tgt_len // bucket_width)
    return tf.to_int64(tf.minimum(3, bucket_id))


def reduce_func(unused_key, windowed_data):
    return batching_func(windowed_data)


batched = dataset.apply(tf.data.experimental.group_by_window(
    key_func=key_func, reduce_func=reduce_func, window_size=3))
iterator = batched.make_initializable_iterator()
src_ids, tgt_input, tgt_output, src_len, tgt_len = iterator.get_next()
print("batch", src_ids.shape, src_len.shape, src_ids.dtype)
words = reverse_tgt_table.lookup(tf.cast(tgt_output, tf.int64))

gen_ds = tf.data.Dataset.from_generator(
    lambda: ((np.arange(i), i) for i in range(1, 6)), (tf.int32, tf.int32),
    (tf.TensorShape([None]), tf.TensorShape([])))
gen_ds = gen_ds.skip(1).take(3).padded_batch(2, ([None], [])).repeat(2)
gen_next = gen_ds.make_one_shot_iterator().get_next()

with tf.Session() as sess:
    sess.run(tf.tables_initializer())
    print("sos/eos", sess.run([tgt_sos_id, tgt_eos_id, src_eos_id]))
    for epoch in range(2):
        sess.run(iterator.initializer)
        while True:
            try:
                s, ti, to, sl, tl, w = sess.run([src_ids, tgt_input, tgt_output, src_len,
                                                 tgt_len, words])
            except tf.errors.OutOfRangeError:
                print("end of epoch", epoch)
                break
            print("src", s.tolist(), "len", sl.tolist())
            print("  tgt_in", ti.tolist(), "tgt_out words", [b" ".join(r).decode() for r in w])
    while True:
        try:
            print("gen", [a.tolist() for a in sess.run(gen_next)])
        except tf.errors.OutOfRangeError:
            break
