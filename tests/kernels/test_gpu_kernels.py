"""CuPy kernels on a GPU device; skipped where CuPy or a GPU is missing (CI has neither)."""

import numpy as np
import pytest

import graphcore as tf
from graphcore.kernels import gpu_kernels

pytestmark = pytest.mark.skipif(not gpu_kernels.AVAILABLE, reason="needs CuPy and a GPU")


def test_gpu_device_listed_and_add_runs_on_gpu():
    with tf.device("/device:GPU:0"):
        x = tf.placeholder(tf.float32, [3], name="x")
        y = tf.add(x, x, name="y")
    z = tf.add(y, 1.0, name="z")  # unpinned: the placer prefers the GPU
    with tf.Session() as sess:
        assert any(d.device_type == "GPU" for d in sess.list_devices())
        md = tf.RunMetadata()
        out = sess.run(z, {x: [1.0, 2.0, 3.0]},
                       options=tf.RunOptions(output_partition_graphs=True), run_metadata=md)
        assert isinstance(out, np.ndarray)
        np.testing.assert_array_equal(out, [3.0, 5.0, 7.0])
        devices = {n.device for gd in md.partition_graphs for n in gd.node if n.name == "y"}
        assert devices == {"/job:localhost/replica:0/task:0/device:GPU:0"}


def test_cpu_gpu_send_recv():
    with tf.device("/device:CPU:0"):
        a = tf.constant([1.0, 2.0], name="a")
    with tf.device("/device:GPU:0"):
        b = tf.add(a, a, name="b")
    with tf.device("/device:CPU:0"):
        c = tf.add(b, 1.0, name="c")
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(c), [3.0, 5.0])
