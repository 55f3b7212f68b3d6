"""Conv-net training steps in the shape of TF's deep MNIST tutorial: graphcore vs TF.

The net (``mnist_deep.py`` of TF 1.x's tutorials, its text): x [N, 784] reshaped to
28x28x1; conv 5x5x32 SAME + bias + relu, max-pool 2x2; conv 5x5x64 SAME + bias + relu,
max-pool 2x2; fc 7*7*64 -> 1024 + relu, dropout (keep_prob 0.5 fed), fc 1024 -> 10;
mean softmax cross-entropy; Adam(1e-4); batch 50.  Random images and labels (the step's
cost does not depend on the values).  Cases:

  deep-mnist   ``sess.run(train_step, feed_dict={x, y_, keep_prob: 0.5})``
  summaries    the same net with ``tf.summary.histogram`` of every weight and every
               gradient and ``tf.summary.scalar`` of the loss, merged; each step runs
               ``[merged, train_op]`` and writes the summary with a ``FileWriter``
               (``add_summary(summary, step)``), as TF's tutorial scripts do

  mobilenet    a small MobileNet-style net on 32x32x3 images, batch 64: conv 3x3x32
               stride 2, then two depthwise-separable blocks (depthwise 3x3, stride 1
               then 2; pointwise 1x1 to 64, then 128), each conv followed by
               ``fused_batch_norm`` (training) and relu; global average pool, fc 10,
               sparse softmax cross-entropy, Adam(1e-3): DepthwiseConv2dNative,
               FusedBatchNormV3, AvgPool and their gradients

(``--quick``: batch 8 and a 64-wide first fc layer, a smoke test.)  Both implementations start from the same initial weights and are checked to agree on
the first batch's loss (keep_prob 1).  Each runs in a process of its own
(:mod:`bench.isolated`).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from typing import Any

import numpy as np

from bench import common, isolated

NAME = "convnet"
NEEDS_RAY = False
FACTORY = "bench.convnet:make_impl"

BATCH, QUICK_BATCH = 50, 8
MOBILENET_BATCH = 64
FC, QUICK_FC = 1024, 64  # the first fully connected layer's width
CASES = {"deep-mnist": False, "summaries": True, "mobilenet": False}
GOALS = {"deep-mnist": "<= 1.0", "summaries": "<= 1.1", "mobilenet": "<= 1.0"}


def make_data(batch: int, n_batches: int = 4, seed: int = 0) -> list[tuple]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_batches):
        x = rng.random((batch, 784), dtype=np.float32)
        y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, batch)]
        out.append((x, y))
    return out


def init_params(fc: int = FC, seed: int = 1) -> dict[str, np.ndarray]:
    """The tutorial's initializers (truncated normal, stddev 0.1; biases 0.1), drawn once
    in numpy so that both implementations start alike."""
    rng = np.random.default_rng(seed)

    def weight(shape: tuple) -> np.ndarray:
        w = rng.standard_normal(shape)
        while (bad := np.abs(w) > 2).any():
            w[bad] = rng.standard_normal(int(bad.sum()))
        return (0.1 * w).astype(np.float32)

    def bias(n: int) -> np.ndarray:
        return np.full(n, 0.1, np.float32)

    return {"W_conv1": weight((5, 5, 1, 32)), "b_conv1": bias(32),
            "W_conv2": weight((5, 5, 32, 64)), "b_conv2": bias(64),
            "W_fc1": weight((7 * 7 * 64, fc)), "b_fc1": bias(fc),
            "W_fc2": weight((fc, 10)), "b_fc2": bias(10)}


class DeepMNIST:
    """The tutorial's graph, built with ``tf`` (graphcore or TF's compat.v1)."""

    def __init__(self, tf: Any, params: dict[str, np.ndarray], summaries: bool):
        self.graph = tf.Graph()
        self.logdir = None
        self.writer = None
        with self.graph.as_default():
            self.x = tf.placeholder(tf.float32, [None, 784])
            self.y_ = tf.placeholder(tf.float32, [None, 10])
            self.keep_prob = tf.placeholder(tf.float32)
            v = {k: tf.Variable(p, name=k) for k, p in params.items()}

            def conv2d(x, w):
                return tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME")

            def max_pool_2x2(x):
                return tf.nn.max_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                                      padding="SAME")

            x_image = tf.reshape(self.x, [-1, 28, 28, 1])
            h_conv1 = tf.nn.relu(conv2d(x_image, v["W_conv1"]) + v["b_conv1"])
            h_pool1 = max_pool_2x2(h_conv1)
            h_conv2 = tf.nn.relu(conv2d(h_pool1, v["W_conv2"]) + v["b_conv2"])
            h_pool2 = max_pool_2x2(h_conv2)
            h_pool2_flat = tf.reshape(h_pool2, [-1, 7 * 7 * 64])
            h_fc1 = tf.nn.relu(tf.matmul(h_pool2_flat, v["W_fc1"]) + v["b_fc1"])
            h_fc1_drop = tf.nn.dropout(h_fc1, self.keep_prob)
            y_conv = tf.matmul(h_fc1_drop, v["W_fc2"]) + v["b_fc2"]
            self.loss = tf.reduce_mean(
                tf.nn.softmax_cross_entropy_with_logits(labels=self.y_, logits=y_conv))
            opt = tf.train.AdamOptimizer(1e-4)
            if summaries:
                grads = opt.compute_gradients(self.loss)
                for g, var in grads:
                    name = var.op.name
                    tf.summary.histogram(name, var)
                    tf.summary.histogram(name + "/gradient", g)
                tf.summary.scalar("cross_entropy", self.loss)
                self.train_op = opt.apply_gradients(grads)
                self.merged = tf.summary.merge_all()
                self.logdir = tempfile.mkdtemp(prefix="gc-bench-convnet-")
                self.writer = tf.summary.FileWriter(self.logdir, self.graph)
            else:
                self.train_op = opt.minimize(self.loss)
            self.sess = tf.Session(graph=self.graph)
            self.sess.run(tf.global_variables_initializer())
        self.steps = 0

    def step(self, x: np.ndarray, y: np.ndarray) -> None:
        feed = {self.x: x, self.y_: y, self.keep_prob: 0.5}
        if self.writer is None:
            self.sess.run(self.train_op, feed_dict=feed)
            return
        summary, _ = self.sess.run([self.merged, self.train_op], feed_dict=feed)
        self.writer.add_summary(summary, self.steps)
        self.steps += 1

    def first_loss(self, x: np.ndarray, y: np.ndarray) -> float:
        return float(self.sess.run(self.loss, feed_dict={self.x: x, self.y_: y,
                                                         self.keep_prob: 1.0}))

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            shutil.rmtree(self.logdir, ignore_errors=True)
        self.sess.close()


def mobilenet_params(seed: int = 1) -> dict[str, np.ndarray]:
    """He-normal conv weights, unit BN scales, zero offsets, drawn once in numpy."""
    rng = np.random.default_rng(seed)

    def weight(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * np.sqrt(2.0 / np.prod(shape[:-1]))
                ).astype(np.float32)

    p = {"conv0": weight(3, 3, 3, 32), "dw1": weight(3, 3, 32, 1), "pw1": weight(1, 1, 32, 64),
         "dw2": weight(3, 3, 64, 1), "pw2": weight(1, 1, 64, 128), "fc": weight(128, 10),
         "fc_b": np.zeros(10, np.float32)}
    for i, c in enumerate((32, 32, 64, 64, 128)):
        p[f"gamma{i}"] = np.ones(c, np.float32)
        p[f"beta{i}"] = np.zeros(c, np.float32)
    return p


class MobileNetBlock:
    """The ``mobilenet`` case's graph, built with ``tf`` (graphcore or TF's compat.v1)."""

    def __init__(self, tf: Any, params: dict[str, np.ndarray]):
        self.graph = tf.Graph()
        with self.graph.as_default():
            self.x = tf.placeholder(tf.float32, [None, 32, 32, 3])
            self.y = tf.placeholder(tf.int64, [None])
            v = {k: tf.Variable(p, name=k) for k, p in params.items()}

            def bn_relu(h, i):
                h, _, _ = tf.nn.fused_batch_norm(h, v[f"gamma{i}"], v[f"beta{i}"],
                                                 is_training=True)
                return tf.nn.relu(h)

            def depthwise(h, w, stride):
                return tf.nn.depthwise_conv2d(h, w, [1, stride, stride, 1], "SAME")

            h = bn_relu(tf.nn.conv2d(self.x, v["conv0"], [1, 2, 2, 1], "SAME"), 0)
            h = bn_relu(depthwise(h, v["dw1"], 1), 1)
            h = bn_relu(tf.nn.conv2d(h, v["pw1"], [1, 1, 1, 1], "SAME"), 2)
            h = bn_relu(depthwise(h, v["dw2"], 2), 3)
            h = bn_relu(tf.nn.conv2d(h, v["pw2"], [1, 1, 1, 1], "SAME"), 4)
            h = tf.nn.avg_pool(h, [1, 8, 8, 1], [1, 8, 8, 1], "VALID")
            logits = tf.matmul(tf.reshape(h, [-1, 128]), v["fc"]) + v["fc_b"]
            self.loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=self.y, logits=logits))
            self.train_op = tf.train.AdamOptimizer(1e-3).minimize(self.loss)
            self.sess = tf.Session(graph=self.graph)
            self.sess.run(tf.global_variables_initializer())

    def step(self, x: np.ndarray, y: np.ndarray) -> None:
        self.sess.run(self.train_op, feed_dict={self.x: x, self.y: y})

    def first_loss(self, x: np.ndarray, y: np.ndarray) -> float:
        return float(self.sess.run(self.loss, feed_dict={self.x: x, self.y: y}))

    def close(self) -> None:
        self.sess.close()


def make_images(batch: int, n_batches: int = 4, seed: int = 0) -> list[tuple]:
    rng = np.random.default_rng(seed)
    return [(rng.random((batch, 32, 32, 3), dtype=np.float32),
             rng.integers(0, 10, batch).astype(np.int64)) for _ in range(n_batches)]


def make_model(impl: str, case: str, quick: bool) -> tuple[Any, list, str]:
    batches = make_data(QUICK_BATCH if quick else BATCH)
    if impl == "graphcore":
        import graphcore as tf
        from graphcore.kernels import blas as gc_blas

        note = gc_blas.info()["float32"].split(" (")[0]
    else:
        tf = common.import_tf()
        if tf is None:
            raise RuntimeError("TensorFlow is not installed")
        note = f"TF_ENABLE_ONEDNN_OPTS={os.environ.get('TF_ENABLE_ONEDNN_OPTS', 'default')}"
    if case == "mobilenet":
        batches = make_images(QUICK_BATCH if quick else MOBILENET_BATCH)
        return MobileNetBlock(tf, mobilenet_params()), batches, note
    return DeepMNIST(tf, init_params(QUICK_FC if quick else FC), CASES[case]), batches, note


def make_impl(impl: str, case: str, quick: bool) -> tuple[Callable[[], None], dict[str, Any]]:
    """One implementation of one case in its benchmark child; its info carries the first
    batch's loss for the parent to cross-check."""
    model, batches, note = make_model(impl, case, quick)
    x0, y0 = batches[0]
    return common.cycling_steps(model, batches), {"loss": model.first_loss(x0, y0), "blas": note}


def run(cfg: common.Config) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    use_tf = cfg.use_tf and common.tf_installed()
    batch = QUICK_BATCH if cfg.quick else BATCH
    for case_name, summaries in CASES.items():
        case = (f"deep MNIST b{batch} Adam" + (f" fc{QUICK_FC}" if cfg.quick else "") +
                (" + histograms, FileWriter" if summaries else ""))
        if case_name == "mobilenet":
            case = (f"MobileNet block dw+BN b{QUICK_BATCH if cfg.quick else MOBILENET_BATCH}"
                    " Adam")
        kwargs = {"case": case_name, "quick": cfg.quick}
        impls = {"graphcore": isolated.Impl(FACTORY, {**kwargs, "impl": "graphcore"})}
        if use_tf:
            impls["tensorflow"] = isolated.Impl(FACTORY, {**kwargs, "impl": "tensorflow"})
        samples, infos = isolated.interleaved(impls, warmup=2 if cfg.quick else 10,
                                              repeats=cfg.reps(7),
                                              target_s=0.05 if cfg.quick else 0.5)
        if use_tf:
            ref, got = infos["tensorflow"]["loss"], infos["graphcore"]["loss"]
            if not np.isclose(got, ref, rtol=1e-3, atol=1e-4):
                raise AssertionError(f"{case}: first-batch loss of graphcore is {got}, "
                                     f"TensorFlow's {ref}")
        rows.extend(common.case_rows(NAME, case, "ms/step", samples, scale=1e3,
                                     goals={"tensorflow": GOALS[case_name]},
                                     notes=isolated.child_notes(infos)))
        if not use_tf:
            rows.append(common.skipped_row(NAME, case, "tensorflow", "not installed"))
    return rows
