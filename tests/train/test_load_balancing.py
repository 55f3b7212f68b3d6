"""GreedyLoadBalancingStrategy and byte_size_load_fn (tf.contrib.training) placing
variables on the least-loaded ps task through replica_device_setter."""

import graphcore as tf


def test_greedy_strategy_places_each_variable_on_the_least_loaded_ps():
    training = tf.contrib.training
    with tf.Graph().as_default():
        strategy = training.GreedyLoadBalancingStrategy(3, training.byte_size_load_fn)
        with tf.device(tf.train.replica_device_setter(ps_tasks=3, ps_strategy=strategy)):
            big = tf.Variable(tf.zeros([1000, 10]), name="big")  # 40000 bytes
            mid = tf.get_variable("mid", [100, 10], dtype=tf.float64)  # 8000
            small = [tf.Variable(tf.zeros([n]), name=f"s{n}") for n in (10, 20, 3000)]
            step = tf.train.get_or_create_global_step()  # int64 scalar: 8
            logits = tf.matmul(tf.ones([1, 1000]), big)
        assert [v.device for v in (big, mid, *small, step)] == [
            "/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:2", "/job:ps/task:2",
            "/job:ps/task:2", "/job:ps/task:1"]
        assert logits.device == "/job:worker"
        assert [training.byte_size_load_fn(v.op) for v in (big, mid, step)] == [40000, 8000, 8]


def test_byte_size_is_zero_for_unknown_shapes_and_ops_without_dtype():
    with tf.Graph().as_default():
        unknown = tf.Variable(tf.placeholder_with_default([1.0], [None]), validate_shape=False)
        assert tf.contrib.training.byte_size_load_fn(unknown.op) == 0
        assert tf.contrib.training.byte_size_load_fn(tf.no_op()) == 0
