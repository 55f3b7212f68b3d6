"""A TF1 tutorial-style script (census income, "wide & deep" with feature columns), written
for graphcore's tests the way the 2018 census tutorials were: a CSV read by tf.data and
tf.decode_csv into a dict of features, feature columns (numeric, bucketized, vocabulary, hashed, crossed, embedding,
indicator), tf.feature_column.input_layer -> dense layers for the deep part,
tf.feature_column.linear_model for the wide part, trained a few hundred steps (FTRL for
the wide part, Adagrad for the deep one)."""

import argparse
import os
import sys
import tempfile

import numpy as np
import tensorflow as tf

_CSV_COLUMNS = ["age", "workclass", "education", "occupation", "relationship",
                "hours_per_week", "capital_gain", "income_bracket"]
_CSV_COLUMN_DEFAULTS = [[0.0], [""], [""], [""], [""], [0.0], [0.0], [""]]
_EDUCATION = ["Bachelors", "HS-grad", "11th", "Masters", "Doctorate", "Some-college"]
_RELATIONSHIP = ["Husband", "Not-in-family", "Wife", "Own-child", "Unmarried"]
_WORKCLASS = ["Private", "Self-emp", "Federal-gov", "Local-gov", "?"]
_OCCUPATIONS = ["Tech-support", "Craft-repair", "Sales", "Exec-managerial",
                "Prof-specialty", "Handlers-cleaners", "Adm-clerical", "Farming-fishing"]

FLAGS = None


def write_census_csv(path, rows, seed):
    """A census-like CSV whose label depends on age, education, hours and occupation."""
    rng = np.random.RandomState(seed)
    with open(path, "w") as f:
        for _ in range(rows):
            age = int(rng.randint(17, 80))
            edu = int(rng.randint(len(_EDUCATION)))
            occ = int(rng.randint(len(_OCCUPATIONS)))
            hours = float(rng.randint(10, 70))
            gain = float(rng.choice([0, 0, 0, 2000, 15000]))
            score = (0.04 * (age - 40) + 0.6 * (edu in (0, 3, 4)) + 0.03 * (hours - 40)
                     + 0.5 * (occ in (3, 4)) + (gain > 10000) + rng.normal(scale=0.5))
            f.write(",".join([str(age), _WORKCLASS[rng.randint(len(_WORKCLASS))],
                              _EDUCATION[edu], _OCCUPATIONS[occ],
                              _RELATIONSHIP[rng.randint(len(_RELATIONSHIP))], str(hours),
                              str(gain), ">50K" if score > 0.5 else "<=50K"]) + "\n")


def build_model_columns():
    age = tf.feature_column.numeric_column("age")
    hours_per_week = tf.feature_column.numeric_column("hours_per_week")
    capital_gain = tf.feature_column.numeric_column(
        "capital_gain", normalizer_fn=lambda x: tf.log1p(x) / 10.0)
    education = tf.feature_column.categorical_column_with_vocabulary_list(
        "education", _EDUCATION)
    relationship = tf.feature_column.categorical_column_with_vocabulary_list(
        "relationship", _RELATIONSHIP)
    workclass = tf.feature_column.categorical_column_with_vocabulary_list(
        "workclass", _WORKCLASS, num_oov_buckets=1)
    occupation = tf.feature_column.categorical_column_with_hash_bucket(
        "occupation", hash_bucket_size=50)
    age_buckets = tf.feature_column.bucketized_column(
        age, boundaries=[18, 25, 30, 35, 40, 45, 50, 55, 60, 65])
    base_columns = [education, relationship, workclass, occupation, age_buckets]
    crossed_columns = [
        tf.feature_column.crossed_column(["education", "occupation"], hash_bucket_size=100),
        tf.feature_column.crossed_column([age_buckets, "education", "occupation"],
                                         hash_bucket_size=100)]
    wide_columns = base_columns + crossed_columns
    deep_columns = [
        tf.feature_column.numeric_column("age", normalizer_fn=lambda x: (x - 45.0) / 15.0),
        tf.feature_column.bucketized_column(hours_per_week, [20, 40, 60]),
        capital_gain,
        tf.feature_column.indicator_column(workclass),
        tf.feature_column.indicator_column(education),
        tf.feature_column.indicator_column(relationship),
        tf.feature_column.embedding_column(occupation, dimension=8),
    ]
    return wide_columns, deep_columns


def input_fn(data_file, batch_size):
    def parse_csv(value):
        columns = tf.decode_csv(value, record_defaults=_CSV_COLUMN_DEFAULTS)
        features = dict(zip(_CSV_COLUMNS, columns))
        labels = features.pop("income_bracket")
        return features, tf.equal(labels, ">50K")

    dataset = tf.data.TextLineDataset(data_file).repeat().batch(batch_size)
    return dataset.map(parse_csv).make_one_shot_iterator().get_next()


def main(_):
    tf.set_random_seed(FLAGS.seed)
    data_file = os.path.join(FLAGS.data_dir or tempfile.mkdtemp(), "adult.data")
    write_census_csv(data_file, 2000, FLAGS.seed)
    wide_columns, deep_columns = build_model_columns()

    features, labels = input_fn(data_file, FLAGS.batch_size)
    with tf.variable_scope("dnn"):
        net = tf.feature_column.input_layer(features, deep_columns)
        for units in [32, 16]:
            net = tf.layers.dense(net, units=units, activation=tf.nn.relu)
        deep_logits = tf.layers.dense(net, units=1)
    wide_logits = tf.feature_column.linear_model(features, wide_columns)
    logits = tf.squeeze(deep_logits + wide_logits, axis=1)
    labels = tf.cast(labels, tf.float32)
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=labels,
                                                                  logits=logits))
    # As the canned wide & deep model: FTRL for the wide part, Adagrad for the deep one.
    global_step = tf.train.get_or_create_global_step()
    linear_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="linear_model")
    dnn_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="dnn")
    train_op = tf.group(
        tf.train.FtrlOptimizer(FLAGS.learning_rate, l1_regularization_strength=0.01,
                               l2_regularization_strength=0.01).minimize(
                                   loss, var_list=linear_vars),
        tf.train.AdagradOptimizer(FLAGS.learning_rate).minimize(
            loss, var_list=dnn_vars, global_step=global_step))
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.cast(logits > 0, tf.float32), labels),
                                      tf.float32))

    for v in tf.trainable_variables():
        print(v.op.name, v.shape.as_list())
    print("parse spec:", sorted(tf.feature_column.make_parse_example_spec(
        wide_columns + deep_columns).items()))
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
        for step in range(1, FLAGS.steps + 1):
            _, loss_value = sess.run([train_op, loss])
            if step % 50 == 0:
                print("step %d: loss %.4f" % (step, loss_value))
        print("accuracy %.4f" % np.mean([sess.run(accuracy) for _ in range(10)]))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", type=str, default="")
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--learning_rate", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=1)
    FLAGS, unparsed = parser.parse_known_args()
    tf.app.run(main=main, argv=[sys.argv[0]] + unparsed)
