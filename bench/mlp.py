"""MLP training steps: graphcore vs TensorFlow compat.v1 vs a hand-written numpy floor.

Cases (the issue's two models):
  digits  64-256-256-10, batch 256, GradientDescent(0.1), scikit-learn's digits
  synth   784-1024-1024-10, batch 512, Adam(1e-3), random data

One step = ``sess.run(train_op, feed_dict={x: batch, y: labels})`` (graphcore and TF
built from the same script text), or for numpy: forward, softmax cross-entropy,
backward and the update, written by hand with the same math (TF's Adam formula),
in-place where numpy allows.  All three start from the same initial weights and are
checked to agree on the first step's loss.  Batches cycle over a few pre-made ones.
Each implementation runs in a process of its own (:mod:`bench.isolated`); numpy runs the
fastest kernel its OpenBLAS detects (and, where the machine forces one, as forced too).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

from bench import common, isolated

NAME = "mlp"
NEEDS_RAY = False
FACTORY = "bench.mlp:make_impl"

CASES = {
    # name: (layer sizes, batch, optimizer, learning rate, data)
    "digits": ((64, 256, 256, 10), 256, "gd", 0.1, "digits"),
    "synth": ((784, 1024, 1024, 10), 512, "adam", 1e-3, "random"),
}
QUICK_CASES = {
    "digits": ((64, 256, 256, 10), 256, "gd", 0.1, "digits"),
    "synth": ((784, 128, 128, 10), 64, "adam", 1e-3, "random"),
}


def make_data(sizes: tuple, batch: int, data: str, n_batches: int = 4,
              seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    if data == "digits":
        try:
            from sklearn.datasets import load_digits

            d = load_digits()
            x = (d.data / 16.0).astype(np.float32)
            y = d.target.astype(np.int64)
        except ImportError:  # same shapes without scikit-learn
            x = rng.random((1797, 64), dtype=np.float32)
            y = rng.integers(0, 10, 1797).astype(np.int64)
        order = rng.permutation(len(x))
        n_batches = len(x) // batch
        return [(x[order[i * batch:(i + 1) * batch]], y[order[i * batch:(i + 1) * batch]])
                for i in range(n_batches)]
    return [(rng.standard_normal((batch, sizes[0]), dtype=np.float32),
             rng.integers(0, sizes[-1], batch).astype(np.int64)) for _ in range(n_batches)]


def init_params(sizes: tuple, seed: int = 1) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    params = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        params.append((rng.standard_normal((n_in, n_out)) / np.sqrt(n_in)).astype(np.float32))
        params.append(np.zeros(n_out, np.float32))
    return params


# -- graphcore / TensorFlow (the same text) -----------------------------------------------


def build_mlp(tf: Any, sizes: tuple, params: list[np.ndarray]) -> tuple[Any, Any, Any]:
    """The MLP in the current graph (and device scope): placeholders x, y and the mean
    softmax cross-entropy loss, with weights ``w{i}``/``b{i}`` from ``params``."""
    x = tf.placeholder(tf.float32, [None, sizes[0]], name="x")
    y = tf.placeholder(tf.int64, [None], name="y")
    h = x
    n_layers = len(sizes) - 1
    for i in range(n_layers):
        w = tf.Variable(params[2 * i], name=f"w{i}")
        b = tf.Variable(params[2 * i + 1], name=f"b{i}")
        h = tf.matmul(h, w) + b
        if i < n_layers - 1:
            h = tf.nn.relu(h)
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h)
    return x, y, tf.reduce_mean(xent)


class GraphMLP:
    def __init__(self, tf: Any, sizes: tuple, batch: int, opt: str, lr: float,
                 params: list[np.ndarray]):
        self.graph = tf.Graph()
        with self.graph.as_default():
            self.x, self.y, self.loss = build_mlp(tf, sizes, params)
            optimizer = (tf.train.GradientDescentOptimizer(lr) if opt == "gd"
                         else tf.train.AdamOptimizer(lr))
            self.train_op = optimizer.minimize(self.loss)
            self.sess = tf.Session(graph=self.graph)
            self.sess.run(tf.global_variables_initializer())

    def step(self, x: np.ndarray, y: np.ndarray) -> None:
        self.sess.run(self.train_op, feed_dict={self.x: x, self.y: y})

    def step_loss(self, x: np.ndarray, y: np.ndarray) -> float:
        return float(self.sess.run([self.train_op, self.loss],
                                   feed_dict={self.x: x, self.y: y})[1])

    def close(self) -> None:
        self.sess.close()


# -- numpy floor --------------------------------------------------------------------------


class NumpyMLP:
    """Forward + backward + update by hand (float32 throughout)."""

    def __init__(self, sizes: tuple, batch: int, opt: str, lr: float,
                 params: list[np.ndarray]):
        self.params = [p.copy() for p in params]
        self.opt = opt
        self.lr = np.float32(lr)
        self.n_layers = len(sizes) - 1
        if opt == "adam":
            self.m = [np.zeros_like(p) for p in self.params]
            self.v = [np.zeros_like(p) for p in self.params]
            self.t = 0
            self.b1, self.b2, self.eps = 0.9, 0.999, 1e-8

    def step_loss(self, x: np.ndarray, y: np.ndarray) -> float:
        p = self.params
        acts = [x]
        h = x
        for i in range(self.n_layers):
            h = h @ p[2 * i]
            h += p[2 * i + 1]
            if i < self.n_layers - 1:
                np.maximum(h, 0, out=h)
            acts.append(h)
        logits = acts[-1]
        n = logits.shape[0]
        # softmax cross-entropy, mean over the batch; d = (softmax - onehot) / n
        z = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(z)
        s = e.sum(axis=1, keepdims=True)
        rows = np.arange(n)
        loss = float(np.mean(np.log(s[:, 0]) - z[rows, y]))
        d = e
        d /= s
        d[rows, y] -= 1.0
        d *= np.float32(1.0 / n)
        grads: list[np.ndarray] = [None] * len(p)  # type: ignore[list-item]
        for i in reversed(range(self.n_layers)):
            grads[2 * i] = acts[i].T @ d
            grads[2 * i + 1] = d.sum(axis=0)
            if i > 0:
                d = d @ p[2 * i].T
                d *= acts[i] > 0
        if self.opt == "gd":
            for w, g in zip(p, grads):
                g *= self.lr
                w -= g
        else:
            self.t += 1
            b1, b2 = self.b1, self.b2
            lr_t = np.float32(self.lr * np.sqrt(1 - b2 ** self.t) / (1 - b1 ** self.t))
            for w, g, m, v in zip(p, grads, self.m, self.v):
                m *= b1
                m += (1 - b1) * g
                v *= b2
                g *= g
                g *= 1 - b2
                v += g
                upd = np.sqrt(v)
                upd += self.eps
                np.divide(m, upd, out=upd)
                upd *= lr_t
                w -= upd
        return loss

    def step(self, x: np.ndarray, y: np.ndarray) -> None:
        self.step_loss(x, y)

    def close(self) -> None:
        pass


# -- the workload -------------------------------------------------------------------------


def make_impl(impl: str, case: str, quick: bool) -> tuple[Callable[[], None], dict[str, Any]]:
    """One implementation of one case, built in its benchmark child; its info carries the
    first step's loss (before the update) for the parent to cross-check."""
    sizes, batch, opt, lr, data = (QUICK_CASES if quick else CASES)[case]
    batches = make_data(sizes, batch, data)
    params = init_params(sizes)
    if impl == "numpy":
        model: Any = NumpyMLP(sizes, batch, opt, lr, params)
        blas = isolated.blas_kernel()
    elif impl == "graphcore":
        import graphcore
        from graphcore.kernels import blas as gc_blas

        model = GraphMLP(graphcore, sizes, batch, opt, lr, params)
        blas = gc_blas.info()["float32"].split(" (")[0]
    else:
        tf1 = common.import_tf()
        if tf1 is None:
            raise RuntimeError("TensorFlow is not installed")
        model = GraphMLP(tf1, sizes, batch, opt, lr, params)
        blas = f"TF_ENABLE_ONEDNN_OPTS={os.environ.get('TF_ENABLE_ONEDNN_OPTS', 'default')}"
    x0, y0 = batches[0]
    return common.cycling_steps(model, batches), {"loss": model.step_loss(x0, y0), "blas": blas}


def run(cfg: common.Config) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    cases = QUICK_CASES if cfg.quick else CASES
    use_tf = cfg.use_tf and common.tf_installed()
    for case_name, (sizes, batch, opt, _, _) in cases.items():
        case = (f"{case_name} {'-'.join(map(str, sizes))} b{batch} "
                f"{'GD' if opt == 'gd' else 'Adam'}")
        kwargs = {"case": case_name, "quick": cfg.quick}
        impls = {"graphcore": isolated.Impl(FACTORY, {**kwargs, "impl": "graphcore"})}
        if use_tf:
            impls["tensorflow"] = isolated.Impl(FACTORY, {**kwargs, "impl": "tensorflow"})
        impls.update(isolated.numpy_anchors(FACTORY, kwargs))
        samples, infos = isolated.interleaved(impls, warmup=2 if cfg.quick else 10,
                                              repeats=cfg.reps(7),
                                              target_s=0.05 if cfg.quick else 0.5)
        # Same math: the first step's loss (before the update) agrees.
        ref = infos["numpy"]["loss"]
        for k, info in infos.items():
            if not np.isclose(info["loss"], ref, rtol=1e-3, atol=1e-4):
                raise AssertionError(f"{case}: first-step loss of {k} is {info['loss']}, "
                                     f"numpy {ref}")
        rows.extend(common.case_rows(NAME, case, "ms/step", samples, scale=1e3,
                                     goals={"tensorflow": "<= 1.0", "numpy": "<= 1.3"},
                                     notes=isolated.child_notes(infos)))
        if not use_tf:
            rows.append(common.skipped_row(NAME, case, "tensorflow", "not installed"))
    return rows
