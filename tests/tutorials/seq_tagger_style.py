"""A bidirectional LSTM sequence tagger + a GRU encoder-decoder with dot attention, TF1
style (2017-2018 blog posts): variable-length batches, sequence_length, sequence_mask,
masked losses, clip_by_global_norm, tf.layers.dense."""
import numpy as np
import tensorflow as tf

VOCAB, TAGS, EMB, HID, MAXLEN, BATCH = 20, 4, 8, 12, 7, 16
rng = np.random.RandomState(3)


def make_batch():
    lengths = rng.randint(3, MAXLEN + 1, size=BATCH)
    x = np.zeros((BATCH, MAXLEN), np.int32)
    y = np.zeros((BATCH, MAXLEN), np.int32)
    for i, n in enumerate(lengths):
        x[i, :n] = rng.randint(1, VOCAB, size=n)
        y[i, :n] = x[i, :n] % TAGS
    return x, y, lengths.astype(np.int32)


tf.set_random_seed(7)
words = tf.placeholder(tf.int32, [None, MAXLEN], name="words")
tags = tf.placeholder(tf.int32, [None, MAXLEN], name="tags")
seq_len = tf.placeholder(tf.int32, [None], name="seq_len")
keep_prob = tf.placeholder_with_default(1.0, [], name="keep_prob")
cell_keep_prob = tf.placeholder_with_default(1.0, [], name="cell_keep_prob")

with tf.variable_scope("tagger"):
    embeddings = tf.get_variable("embeddings", [VOCAB, EMB],
                                 initializer=tf.random_uniform_initializer(-0.5, 0.5))
    emb = tf.nn.dropout(tf.nn.embedding_lookup(embeddings, words), keep_prob)
    # (dropout inside the loop draws in TF's scheduling order: keep it at 1 here)
    cell_fw = tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.LSTMCell(HID),
                                            output_keep_prob=cell_keep_prob)
    cell_bw = tf.nn.rnn_cell.LSTMCell(HID)
    (out_fw, out_bw), (st_fw, st_bw) = tf.nn.bidirectional_dynamic_rnn(
        cell_fw, cell_bw, emb, sequence_length=seq_len, dtype=tf.float32)
    outputs = tf.concat([out_fw, out_bw], axis=-1)
    logits = tf.layers.dense(outputs, TAGS, name="proj")
    mask = tf.sequence_mask(seq_len, maxlen=MAXLEN, dtype=tf.float32)
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tags, logits=logits)
    tag_loss = tf.reduce_sum(xent * mask) / tf.reduce_sum(mask)
    preds = tf.argmax(logits, -1, output_type=tf.int32)
    correct = tf.cast(tf.equal(preds, tags), tf.float32) * mask
    tag_acc = tf.reduce_sum(correct) / tf.reduce_sum(mask)

print("emb", emb.shape, "outputs", outputs.shape, "logits", logits.name, logits.shape)
print("state", type(st_fw).__name__, st_fw.c.shape, st_fw.h.name)
print("mask", mask.dtype, mask.shape)

# Encoder-decoder: reverse the input sequence (teacher forcing, dot attention).
with tf.variable_scope("seq2seq"):
    src_emb = tf.get_variable("src_emb", [VOCAB, EMB])
    enc_in = tf.nn.embedding_lookup(src_emb, words)
    enc_cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.GRUCell(HID) for _ in range(2)])
    enc_out, enc_state = tf.nn.dynamic_rnn(enc_cell, enc_in, sequence_length=seq_len,
                                           dtype=tf.float32, scope="encoder")
    target = tf.reverse_sequence(words, seq_len, seq_axis=1, batch_axis=0)
    go = tf.zeros_like(target[:, :1])
    dec_in = tf.nn.embedding_lookup(src_emb, tf.concat([go, target[:, :-1]], axis=1))
    dec_cell = tf.nn.rnn_cell.GRUCell(HID, name="dec_cell")
    dec_out, _ = tf.nn.dynamic_rnn(dec_cell, dec_in, sequence_length=seq_len,
                                   initial_state=enc_state[-1], scope="decoder")
    scores = tf.matmul(dec_out, enc_out, transpose_b=True)  # [B, T, T]
    src_mask = tf.expand_dims(tf.sequence_mask(seq_len, MAXLEN), 1)
    scores = tf.where(tf.tile(src_mask, [1, MAXLEN, 1]), scores,
                      tf.fill(tf.shape(scores), -1e9))
    attn = tf.nn.softmax(scores)
    context = tf.matmul(attn, enc_out)
    combined = tf.layers.dense(tf.concat([dec_out, context], -1), HID, activation=tf.tanh,
                               name="attn_combine")
    out_logits = tf.layers.dense(combined, VOCAB, name="out")
    s2s_loss = tf.losses.sparse_softmax_cross_entropy(
        target, out_logits, weights=tf.sequence_mask(seq_len, MAXLEN, dtype=tf.float32))

print("enc_state", len(enc_state), enc_state[0].shape, "attn", attn.shape)
print("s2s_loss", s2s_loss.name, tf.get_collection(tf.GraphKeys.LOSSES)[0].name)

total = tag_loss + s2s_loss
params = tf.trainable_variables()
for v in params:
    print(v.name, v.shape)
grads = tf.gradients(total, params)
clipped, gnorm = tf.clip_by_global_norm(grads, 5.0)
global_step = tf.train.get_or_create_global_step()
train_op = tf.train.AdamOptimizer(0.01).apply_gradients(zip(clipped, params),
                                                        global_step=global_step)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(1, 31):
        x, y, n = make_batch()
        feed = {words: x, tags: y, seq_len: n, keep_prob: 0.8}
        _, tl, sl, acc, g = sess.run([train_op, tag_loss, s2s_loss, tag_acc, gnorm], feed)
        if step % 10 == 0:
            print("step %d tag_loss %.4f s2s_loss %.4f acc %.3f gnorm %.3f" % (
                step, tl, sl, acc, g))
    x, y, n = make_batch()
    o, fw, a, p = sess.run([outputs, st_fw, attn, preds], {words: x, seq_len: n, tags: y})
    print("padded outputs zero:", bool(np.all(o[0, n[0]:] == 0)))
    print("final fw h == output at last step:", np.allclose(fw.h[0], o[0, n[0] - 1, :HID]))
    print("attn rows sum", np.round(a[0, :2].sum(-1), 4), "pad attn", a[0, 0, n[0]:].max())
    print("preds", p[0, :n[0]], "gold", y[0, :n[0]])
    print("step", sess.run(global_step))
