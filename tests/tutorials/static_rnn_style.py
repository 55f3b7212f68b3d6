"""A character model with tf.nn.static_rnn (2016-2017 tutorials): tf.unstack inputs,
BasicLSTMCell in a MultiRNNCell, the final state fed back as LSTMStateTuple placeholders
through feed_dict, truncated BPTT over a stream, sampling one character at a time with
the state carried in numpy, tf.train.RMSPropOptimizer, tf.nn.seq2seq-free softmax loss."""
import numpy as np
import tensorflow as tf

np.random.seed(8)
text = "hello world, hello graph, hello session. " * 30
chars = sorted(set(text))
vocab = len(chars)
char_to_ix = {c: i for i, c in enumerate(chars)}
data = np.array([char_to_ix[c] for c in text], np.int32)
print("data has %d characters, %d unique." % (len(data), vocab))

SEQ, BATCH, HIDDEN, LAYERS = 10, 4, 24, 2
tf.set_random_seed(8)
inputs = tf.placeholder(tf.int32, [None, SEQ], name="inputs")
targets = tf.placeholder(tf.int32, [None, SEQ], name="targets")
cells = [tf.nn.rnn_cell.BasicLSTMCell(HIDDEN) for _ in range(LAYERS)]
cell = tf.nn.rnn_cell.MultiRNNCell(cells, state_is_tuple=True)
batch_size = tf.shape(inputs)[0]
initial_state = cell.zero_state(batch_size, tf.float32)
print("state", [(type(s).__name__, s.c.shape, s.h.name) for s in initial_state])
embedding = tf.get_variable("embedding", [vocab, HIDDEN])
emb = tf.nn.embedding_lookup(embedding, inputs)
rnn_inputs = tf.unstack(emb, axis=1)
outputs, final_state = tf.nn.static_rnn(cell, rnn_inputs, initial_state=initial_state)
print("outputs", len(outputs), outputs[0].name, outputs[-1].name)
output = tf.reshape(tf.concat(outputs, 1), [-1, HIDDEN])
softmax_w = tf.get_variable("softmax_w", [HIDDEN, vocab])
softmax_b = tf.get_variable("softmax_b", [vocab], initializer=tf.zeros_initializer())
logits = tf.matmul(output, softmax_w) + softmax_b
probs = tf.nn.softmax(logits)
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
    labels=tf.reshape(targets, [-1]), logits=logits))
tvars = tf.trainable_variables()
grads, _ = tf.clip_by_global_norm(tf.gradients(loss, tvars), 5.0)
train_op = tf.train.RMSPropOptimizer(0.01).apply_gradients(zip(grads, tvars))
for v in tvars:
    print(v.name, v.shape)

# sampling graph: one step, batch 1, reusing the weights
with tf.variable_scope(tf.get_variable_scope(), reuse=True):
    sample_in = tf.placeholder(tf.int32, [1, 1])
    sample_state = cell.zero_state(1, tf.float32)
    s_out, s_state = tf.nn.static_rnn(
        cell, [tf.nn.embedding_lookup(embedding, sample_in[:, 0])],
        initial_state=sample_state)
    sample_probs = tf.nn.softmax(tf.matmul(s_out[0], softmax_w) + softmax_b)

stream = data[:len(data) // BATCH * BATCH].reshape(BATCH, -1)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    state = sess.run(initial_state, {inputs: np.zeros((BATCH, SEQ), np.int32)})
    for step in range(60):
        pos = (step * SEQ) % (stream.shape[1] - SEQ - 1)
        if pos == 0:
            state = sess.run(initial_state, {inputs: np.zeros((BATCH, SEQ), np.int32)})
        feed = {inputs: stream[:, pos:pos + SEQ], targets: stream[:, pos + 1:pos + SEQ + 1]}
        for i, (c, h) in enumerate(initial_state):
            feed[c] = state[i].c
            feed[h] = state[i].h
        loss_val, state, _ = sess.run([loss, final_state, train_op], feed)
        if step % 20 == 19:
            print("step %d loss %.4f" % (step + 1, loss_val))
    print("state type", type(state).__name__, type(state[0]).__name__, state[0].c.shape)
    st = sess.run(sample_state)
    ix = char_to_ix["h"]
    out = "h"
    for _ in range(30):
        p, st = sess.run([sample_probs, s_state], {sample_in: [[ix]], sample_state: st})
        ix = int(np.argmax(p))
        out += chars[ix]
    print("greedy sample:", repr(out))
