"""A TF1 tutorial-style script (word2vec_basic.py, 2017): a skip-gram model on a small
synthetic corpus -- the tutorial's build_dataset / generate_batch, embedding_lookup,
tf.nn.nce_loss and tf.nn.sampled_softmax_loss (log-uniform candidates drawn from the graph
seed), plain SGD, and the cosine-similarity nearest words of a few validation words."""
import collections
import math
import random

import numpy as np
import tensorflow as tf

random.seed(0)
np.random.seed(0)

# A small synthetic corpus with structure: words co-occur in topical groups.
topics = [["king", "queen", "prince", "princess", "royal", "crown"],
          ["dog", "cat", "puppy", "kitten", "pet", "animal"],
          ["car", "truck", "road", "drive", "wheel", "engine"],
          ["apple", "banana", "fruit", "juice", "orange", "pear"]]
words = []
for _ in range(600):
    t = topics[np.random.randint(len(topics))]
    words.extend(np.random.choice(t, 5).tolist())
    words.append(["the", "a", "of", "and"][np.random.randint(4)])
print("Data size", len(words))

vocabulary_size = 30


def build_dataset(words, n_words):
    count = [["UNK", -1]]
    count.extend(collections.Counter(words).most_common(n_words - 1))
    dictionary = dict()
    for word, _ in count:
        dictionary[word] = len(dictionary)
    data = list()
    unk_count = 0
    for word in words:
        index = dictionary.get(word, 0)
        if index == 0:
            unk_count += 1
        data.append(index)
    count[0][1] = unk_count
    reversed_dictionary = dict(zip(dictionary.values(), dictionary.keys()))
    return data, count, dictionary, reversed_dictionary


data, count, dictionary, reverse_dictionary = build_dataset(words, vocabulary_size)
vocabulary_size = len(dictionary)
print("Most common words (+UNK)", count[:5])
print("Sample data", data[:10], [reverse_dictionary[i] for i in data[:10]])

data_index = 0


def generate_batch(batch_size, num_skips, skip_window):
    global data_index
    assert batch_size % num_skips == 0
    assert num_skips <= 2 * skip_window
    batch = np.ndarray(shape=(batch_size), dtype=np.int32)
    labels = np.ndarray(shape=(batch_size, 1), dtype=np.int32)
    span = 2 * skip_window + 1
    buffer = collections.deque(maxlen=span)
    if data_index + span > len(data):
        data_index = 0
    buffer.extend(data[data_index:data_index + span])
    data_index += span
    for i in range(batch_size // num_skips):
        context_words = [w for w in range(span) if w != skip_window]
        words_to_use = random.sample(context_words, num_skips)
        for j, context_word in enumerate(words_to_use):
            batch[i * num_skips + j] = buffer[skip_window]
            labels[i * num_skips + j, 0] = buffer[context_word]
        if data_index == len(data):
            buffer.extend(data[0:span])
            data_index = span
        else:
            buffer.append(data[data_index])
            data_index += 1
    data_index = (data_index + len(data) - span) % len(data)
    return batch, labels


batch, labels = generate_batch(batch_size=8, num_skips=2, skip_window=1)
for i in range(8):
    print(batch[i], reverse_dictionary[batch[i]], "->", labels[i, 0],
          reverse_dictionary[labels[i, 0]])

batch_size = 64
embedding_size = 16
skip_window = 1
num_skips = 2
num_sampled = 8
valid_examples = np.array([1, 2, 3, 4], dtype=np.int32)

graph = tf.Graph()
with graph.as_default():
    tf.set_random_seed(1234)
    with tf.name_scope("inputs"):
        train_inputs = tf.placeholder(tf.int32, shape=[batch_size])
        train_labels = tf.placeholder(tf.int32, shape=[batch_size, 1])
        valid_dataset = tf.constant(valid_examples, dtype=tf.int32)
    with tf.device("/cpu:0"):
        with tf.name_scope("embeddings"):
            embeddings = tf.Variable(
                tf.random_uniform([vocabulary_size, embedding_size], -1.0, 1.0))
            embed = tf.nn.embedding_lookup(embeddings, train_inputs)
        with tf.name_scope("weights"):
            nce_weights = tf.Variable(
                tf.truncated_normal([vocabulary_size, embedding_size],
                                    stddev=1.0 / math.sqrt(embedding_size)))
        with tf.name_scope("biases"):
            nce_biases = tf.Variable(tf.zeros([vocabulary_size]))
    with tf.name_scope("loss"):
        loss = tf.reduce_mean(
            tf.nn.nce_loss(weights=nce_weights, biases=nce_biases, labels=train_labels,
                           inputs=embed, num_sampled=num_sampled,
                           num_classes=vocabulary_size))
        sm_loss = tf.reduce_mean(
            tf.nn.sampled_softmax_loss(weights=nce_weights, biases=nce_biases,
                                       labels=train_labels, inputs=embed,
                                       num_sampled=num_sampled,
                                       num_classes=vocabulary_size))
    tf.summary.scalar("loss", loss)
    with tf.name_scope("optimizer"):
        optimizer = tf.train.GradientDescentOptimizer(1.0).minimize(loss + sm_loss)
    norm = tf.sqrt(tf.reduce_sum(tf.square(embeddings), 1, keepdims=True))
    normalized_embeddings = embeddings / norm
    valid_embeddings = tf.nn.embedding_lookup(normalized_embeddings, valid_dataset)
    similarity = tf.matmul(valid_embeddings, normalized_embeddings, transpose_b=True)
    merged = tf.summary.merge_all()
    init = tf.global_variables_initializer()
    saver = tf.train.Saver()
    print("loss", loss.name, loss.shape, loss.dtype)
    print("similarity", similarity.name, similarity.shape)
    print("embed", embed.name, embed.shape)
    print("optimizer", optimizer.name, optimizer.type)
    print([v.name for v in tf.trainable_variables()])

num_steps = 401
with tf.Session(graph=graph) as session:
    init.run()
    print("Initialized")
    average_loss = 0
    for step in range(num_steps):
        batch_inputs, batch_labels = generate_batch(batch_size, num_skips, skip_window)
        feed_dict = {train_inputs: batch_inputs, train_labels: batch_labels}
        _, summary, loss_val = session.run([optimizer, merged, loss], feed_dict=feed_dict)
        average_loss += loss_val
        if step % 100 == 0:
            if step > 0:
                average_loss /= 100
            print("Average loss at step ", step, ": ", "%.4f" % average_loss)
            average_loss = 0
    sim = similarity.eval()
    for i in range(len(valid_examples)):
        valid_word = reverse_dictionary[valid_examples[i]]
        nearest = (-sim[i, :]).argsort()[1:4]
        print("Nearest to %s: %s" % (valid_word, sorted(reverse_dictionary[k] for k in nearest)))
    final_embeddings = normalized_embeddings.eval()
    print("final", final_embeddings.shape, final_embeddings.dtype,
          np.allclose(np.linalg.norm(final_embeddings, axis=1), 1.0, atol=1e-5))
