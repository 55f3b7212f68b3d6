"""Reference tier: embedding lookups (graphcore/ops/embedding_ops.py) against TensorFlow's
compat.v1 — values, shapes and gradients of embedding_lookup over one table and over
shards (mod and div, max_norm), embedding_lookup_sparse and safe_embedding_lookup_sparse,
the GraphDef of a sharded lookup, and a small embedding model trained 5 steps with Adagrad
then Adam from the same initial values in both (ref and resource variables), whose
variables must agree. Skipped without TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

RNG = np.random.RandomState(0)
TABLE = RNG.randn(10, 3).astype(np.float32)
IDS = np.array([[1, 5], [9, 0], [3, 3]], np.int64)
SHARDS = {"one": [TABLE], "mod3": [TABLE[i::3] for i in range(3)],
          "div3": [TABLE[0:4], TABLE[4:7], TABLE[7:10]]}

# name -> (shards, partition_strategy, max_norm)
LOOKUPS = {
    "single": ("one", "mod", None),
    "single_max_norm": ("one", "mod", 1.5),
    "mod": ("mod3", "mod", None),
    "div": ("div3", "div", None),
    "div_max_norm": ("div3", "div", 1.0),
}


def _variable(lib, value, name, use_resource):
    if lib is tf:
        return tf.Variable(value, name=name, use_resource=use_resource)
    return tf1.Variable(value, name=name, use_resource=use_resource)


def _lookup(lib, case, use_resource):
    shards, strategy, max_norm = LOOKUPS[case]
    with lib.Graph().as_default() as g:
        params = [_variable(lib, p, f"emb_{i}", use_resource)
                  for i, p in enumerate(SHARDS[shards])]
        ids = lib.constant(IDS)
        out = lib.nn.embedding_lookup(params if len(params) > 1 else params[0], ids,
                                      partition_strategy=strategy, max_norm=max_norm)
        grads = lib.gradients(lib.reduce_sum(out * out), params)
        nodes = [(n.name, n.op) for n in g.as_graph_def().node
                 if n.name.startswith("embedding_lookup")]
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            value = sess.run(out)
            dense = sess.run([lib.convert_to_tensor(gr) for gr in grads])
    return value, out.shape.as_list(), out.dtype.name, [type(gr).__name__ for gr in grads], \
        dense, nodes


@pytest.mark.parametrize("use_resource", [False, True], ids=["ref", "resource"])
@pytest.mark.parametrize("case", sorted(LOOKUPS))
def test_embedding_lookup_matches_tf(case, use_resource):
    ours, theirs = _lookup(tf, case, use_resource), _lookup(tf1, case, use_resource)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)
    assert ours[1:4] == theirs[1:4]  # static shape, dtype, IndexedSlices gradients
    for a, b in zip(ours[4], theirs[4]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    if not use_resource:  # TF's sparse_read adds an Identity graphcore's does not
        assert ours[5] == theirs[5]


SP_IDS = ([[0, 0], [0, 1], [2, 0], [3, 1]], [1, 3, 4, 9], [4, 2])
SP_BAD_IDS = ([[0, 0], [0, 1], [2, 0], [3, 0]], [1, -1, 4, 9], [4, 2])
SP_WEIGHTS = [0.5, 2.0, 1.0, 3.0]


def _sparse_lookup(lib, fn, combiner, weighted, shards):
    with lib.Graph().as_default():
        params = [lib.constant(p) for p in SHARDS[shards]]
        source = SP_BAD_IDS if fn == "safe" else SP_IDS
        sp_ids = lib.SparseTensor(source[0], lib.constant(source[1], lib.int64), source[2])
        sp_w = lib.SparseTensor(source[0], SP_WEIGHTS, source[2]) if weighted else None
        if fn == "safe":
            out = lib.nn.safe_embedding_lookup_sparse(params, sp_ids, sp_w, combiner=combiner,
                                                      partition_strategy="mod")
        else:
            out = lib.nn.embedding_lookup_sparse(params, sp_ids, sp_w, combiner=combiner)
        grads = lib.gradients(lib.reduce_sum(out * out), params)
        with lib.Session() as sess:
            return sess.run(out), sess.run([lib.convert_to_tensor(g) for g in grads])


@pytest.mark.parametrize("shards", ["one", "mod3"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
@pytest.mark.parametrize("fn", ["plain", "safe"])
def test_sparse_lookups_match_tf(fn, combiner, weighted, shards):
    ours = _sparse_lookup(tf, fn, combiner, weighted, shards)
    theirs = _sparse_lookup(tf1, fn, combiner, weighted, shards)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5, atol=1e-6)
    for a, b in zip(ours[1], theirs[1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


# -- training: the same model in both, from the same initial values --------------------------

VOCAB, DIM, BATCH = 1000, 16, 8
INIT = np.random.RandomState(1).uniform(-0.1, 0.1, (VOCAB, DIM)).astype(np.float32)
HEAD = np.random.RandomState(2).uniform(-0.1, 0.1, (DIM, 1)).astype(np.float32)
BATCHES = [(np.random.RandomState(10 + s).randint(0, VOCAB, (BATCH, 3)),
            np.random.RandomState(20 + s).randn(BATCH, 1).astype(np.float32))
           for s in range(5)]


def _shard_values(strategy):
    if strategy == "mod":
        return [INIT[i::3] for i in range(3)]
    sizes = [334, 333, 333]  # TF's div: the first VOCAB % 3 shards one row larger
    bounds = np.cumsum([0] + sizes)
    return [INIT[bounds[i]:bounds[i + 1]] for i in range(3)]


def _train(lib, strategy, optimizer, use_resource):
    with lib.Graph().as_default():
        shards = [_variable(lib, v, f"emb/part_{i}", use_resource)
                  for i, v in enumerate(_shard_values(strategy))]
        w = _variable(lib, HEAD, "head", use_resource)
        ids = lib.placeholder(lib.int64, [BATCH, 3])
        y = lib.placeholder(lib.float32, [BATCH, 1])
        emb = lib.reduce_mean(lib.nn.embedding_lookup(shards, ids,
                                                      partition_strategy=strategy), 1)
        loss = lib.reduce_mean(lib.square(lib.matmul(emb, w) - y))
        opt = lib.train.AdagradOptimizer(0.5) if optimizer == "adagrad" else \
            lib.train.AdamOptimizer(0.05)
        train = opt.minimize(loss)
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            for batch_ids, batch_y in BATCHES:
                sess.run(train, {ids: batch_ids, y: batch_y})
            return sess.run(shards + [w])


@pytest.mark.parametrize("use_resource", [False, True], ids=["ref", "resource"])
@pytest.mark.parametrize("optimizer", ["adagrad", "adam"])
@pytest.mark.parametrize("strategy", ["mod", "div"])
def test_sharded_embedding_model_trains_as_tf(strategy, optimizer, use_resource):
    ours = _train(tf, strategy, optimizer, use_resource)
    theirs = _train(tf1, strategy, optimizer, use_resource)
    initial = _shard_values(strategy) + [HEAD]
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    changed = sum(int((~np.isclose(a, i)).any(axis=-1).sum()) for a, i in zip(ours[:3],
                                                                                initial))
    if optimizer == "adagrad":  # only the looked-up rows move
        looked_up = len({int(i) for b, _ in BATCHES for i in b.reshape(-1)})
        assert changed == looked_up
    else:
        assert changed > 0


def _clipped_step(lib):
    with lib.Graph().as_default():
        v = _variable(lib, TABLE, "emb", False)
        w = _variable(lib, HEAD[:3, :1], "w", False)
        loss = lib.reduce_sum(lib.matmul(lib.gather(v, [1, 3, 1]), w) ** 2)
        opt = lib.train.GradientDescentOptimizer(0.1)
        grads_and_vars = opt.compute_gradients(loss)
        grads, norm = lib.clip_by_global_norm([g for g, _ in grads_and_vars], 0.5)
        clipped = lib.clip_by_norm(grads_and_vars[0][0], 0.1)
        train = opt.apply_gradients(zip(grads, [var for _, var in grads_and_vars]))
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            values = sess.run([norm, lib.convert_to_tensor(clipped)])
            sess.run(train)
            return [type(grads[0]).__name__, type(clipped).__name__], \
                values + sess.run([v, w])


def test_clipped_sparse_gradients_match_tf():
    ours, theirs = _clipped_step(tf), _clipped_step(tf1)
    assert ours[0] == theirs[0] == ["IndexedSlices", "IndexedSlices"]
    for a, b in zip(ours[1], theirs[1]):
        np.testing.assert_allclose(a, b, rtol=1e-5)
