"""Reference tier: the candidate samplers (tf.nn / tf.random), compute_accidental_hits,
nce_loss and sampled_softmax_loss against TensorFlow's compat.v1 graph mode: GraphDef nodes
and seed attrs, static shapes, the candidates and expected counts the same seeds draw (TF's
Philox through SimplePhilox), sample frequencies against each distribution; the losses
exactly, values and gradients, with the same sampled candidates fed."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

TRUE = np.array([[0, 3], [5, 1], [2, 2]], np.int64)


def _graph(lib):
    return tf.Graph() if lib is tf else tf_ref.Graph()


def _session(lib):
    return tf.Session() if lib is tf else tf1.Session()


def _nodes(graph):
    out = []
    for n in graph.as_graph_def().node:
        attrs = {k: v.i for k, v in n.attr.items() if k in ("seed", "seed2")}
        out.append((n.name, n.op, sorted(attrs.items())))
    return sorted(out)


def _samplers(lib, true, num_sampled, unique, range_max, seed=None):
    return {
        "uniform": lib.nn.uniform_candidate_sampler(true, 2, num_sampled, unique, range_max,
                                                    seed=seed),
        "log_uniform": lib.random.log_uniform_candidate_sampler(
            true, 2, num_sampled, unique, range_max, seed=seed, name="lu"),
        "learned": lib.nn.learned_unigram_candidate_sampler(true, 2, num_sampled, unique,
                                                            range_max, seed=seed),
        "fixed": lib.random.fixed_unigram_candidate_sampler(
            true, 2, num_sampled, unique, range_max, unigrams=list(range(1, range_max + 1)),
            distortion=0.5, seed=seed),
    }


def _probabilities(range_max):
    k = np.arange(range_max, dtype=np.float64)
    fixed = np.sqrt(k + 1)
    return {
        "uniform": np.full(range_max, 1.0 / range_max),
        "log_uniform": np.log((k + 2) / (k + 1)) / np.log(range_max + 1),
        "learned": np.full(range_max, 1.0 / range_max),
        "fixed": fixed / fixed.sum(),
    }


@pytest.mark.parametrize("graph_seed", [None, 7])
def test_sampler_graphs_and_shapes_match_tf(graph_seed):
    results = {}
    for lib in (tf, tf1):
        with _graph(lib).as_default() as g:
            if graph_seed is not None:
                lib.set_random_seed(graph_seed)
            samplers = _samplers(lib, TRUE, 4, True, 10, seed=3)
            samplers["all"] = lib.random.all_candidate_sampler(TRUE, 2, 5, True)
            hits = lib.nn.compute_accidental_hits(TRUE, samplers["all"][0], 2)
            shapes = {k: [(t.shape.as_list(), t.dtype.name) for t in v]
                      for k, v in list(samplers.items()) + [("hits", hits)]}
            names = {k: type(v).__name__ for k, v in samplers.items()}
            results[lib] = (_nodes(g), shapes, names)
    assert results[tf] == results[tf1]


def test_all_candidate_sampler_and_accidental_hits_match_tf():
    values = {}
    for lib in (tf, tf1):
        with _graph(lib).as_default():
            sampled = lib.nn.all_candidate_sampler(TRUE, 2, 6, True)
            hits = lib.nn.compute_accidental_hits(TRUE, np.array([2, 9, 5, 2, 0], np.int64),
                                                  2)
            with _session(lib) as sess:
                values[lib] = sess.run([list(sampled), list(hits)])
    for got, want in zip(values[tf][0] + values[tf][1], values[tf1][0] + values[tf1][1]):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("unique", [False, True])
def test_seeded_samplers_draw_tensorflows_candidates(unique):
    """The same graph seed and op seeds: TF's candidates and expected counts, run after run
    (the learned sampler's weights growing by the true classes in between)."""
    true = np.array([[0, 3], [5, 1], [2, 2], [7, 9]], np.int64)
    values = {}
    for lib in (tf, tf1):
        with _graph(lib).as_default():
            lib.set_random_seed(42)
            samplers = _samplers(lib, true, 7, unique, 10)
            samplers["op_seed"] = lib.nn.log_uniform_candidate_sampler(true, 2, 5, unique, 40,
                                                                       seed=9)
            with _session(lib) as sess:
                values[lib] = [sess.run({k: list(v) for k, v in samplers.items()})
                               for _ in range(3)]
    for ours, theirs in zip(values[tf], values[tf1]):
        for name in theirs:
            for got, want in zip(ours[name], theirs[name]):
                assert got.dtype == want.dtype, name
                np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=name)


def test_expected_counts_with_replacement_match_tf():
    """Without ``unique`` the expected counts are p * num_sampled, fixed by the inputs; the
    learned sampler's p changes after each step by the true classes it saw."""
    values = {}
    for lib in (tf, tf1):
        with _graph(lib).as_default():
            samplers = _samplers(lib, TRUE, 5, False, 8, seed=1)
            fetch = {k: (v.true_expected_count, v.sampled_candidates,
                         v.sampled_expected_count) for k, v in samplers.items()}
            with _session(lib) as sess:
                values[lib] = [sess.run(fetch) for _ in range(3)]
    probabilities = _probabilities(8)
    for step in range(3):
        for name in probabilities:
            got_true, got_sampled, got_count = values[tf][step][name]
            np.testing.assert_allclose(got_true, values[tf1][step][name][0], rtol=1e-6)
            if name != "learned":
                np.testing.assert_allclose(got_count, probabilities[name][got_sampled] * 5,
                                           rtol=1e-6)


@pytest.mark.parametrize("name", ["uniform", "log_uniform", "learned", "fixed"])
def test_sampler_frequencies_follow_the_distribution(name):
    range_max, n = 6, 30000
    true = np.zeros((1, 2), np.int64)
    with tf.Graph().as_default():
        tf.set_random_seed(5)
        sampler = _samplers(tf, true, n, False, range_max)[name]
        with tf.Session() as sess:
            sampled = sess.run(sampler.sampled_candidates)
    assert sampled.dtype == np.int64 and sampled.shape == (n,)
    assert sampled.min() >= 0 and sampled.max() < range_max
    freq = np.bincount(sampled, minlength=range_max) / n
    np.testing.assert_allclose(freq, _probabilities(range_max)[name], atol=0.015)


@pytest.mark.parametrize("name", ["uniform", "log_uniform", "fixed"])
def test_unique_samples_and_their_expected_counts(name):
    range_max, num_sampled = 10, 6
    with tf.Graph().as_default():
        sampler = _samplers(tf, TRUE, num_sampled, True, range_max, seed=11)[name]
        with tf.Session() as sess:
            runs = [sess.run(list(sampler)) for _ in range(5)]
    p = _probabilities(range_max)[name]
    for sampled, true_count, sampled_count in runs:
        assert len(set(sampled.tolist())) == num_sampled
        if np.allclose(sampled_count, p[sampled] * num_sampled):
            # No value was drawn twice: TF's shortcut, p * num_sampled.
            np.testing.assert_allclose(true_count, p[TRUE] * num_sampled, rtol=1e-5)
            continue
        # One number of tries explains every count: 1 - (1 - p) ** tries.
        tries = np.log1p(-sampled_count.astype(np.float64)) / np.log1p(-p[sampled])
        assert abs(tries - tries.round()).max() < 1e-2 and tries.min() > num_sampled
        np.testing.assert_allclose(true_count, -np.expm1(tries[0] * np.log1p(-p[TRUE])),
                                   rtol=1e-4)


def test_sampler_errors_match_tf():
    for lib in (tf, tf1):
        with _graph(lib).as_default():
            with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
                lib.nn.uniform_candidate_sampler(TRUE[0], 2, 2, True, 5)
            too_small = lib.nn.uniform_candidate_sampler(TRUE, 2, 6, True, 5)
            columns = lib.nn.uniform_candidate_sampler(TRUE, 3, 2, True, 5)
            assert columns.true_expected_count.shape.as_list() == [3, 3]
            err = tf.errors.InvalidArgumentError if lib is tf \
                else tf_ref.errors.InvalidArgumentError
            with _session(lib) as sess:
                with pytest.raises(err, match="range is too small"):
                    sess.run(too_small)
                with pytest.raises(err, match="num_true columns, expected: 2 was: 3"):
                    sess.run(columns)
                with pytest.raises(err, match=r"`true_candidate` out of range \[0, 3\), "
                                              "received 3"):
                    sess.run(lib.nn.uniform_candidate_sampler(TRUE, 2, 2, False, 3))
                with pytest.raises(err, match="true_candidates must be a batch_size \\* "
                                              "num_true matrix"):
                    sess.run(lib.nn.compute_accidental_hits(
                        lib.placeholder_with_default(TRUE, [None, None]), [1, 2], 3))


RNG = np.random.default_rng(3)
W = RNG.normal(size=(12, 4)).astype(np.float32)
B = RNG.normal(size=12).astype(np.float32)
INPUTS = RNG.normal(size=(3, 4)).astype(np.float32)
SAMPLED = (np.array([5, 0, 9, 3], np.int64), (RNG.uniform(size=(3, 2)) * 0.5 + 0.1)
           .astype(np.float32), (RNG.uniform(size=4) * 0.5 + 0.1).astype(np.float32))
LOSS_CASES = {
    "nce": dict(fn="nce_loss"),
    "nce_hits": dict(fn="nce_loss", remove_accidental_hits=True),
    "nce_div_shards": dict(fn="nce_loss", shards=3, partition_strategy="div"),
    "nce_mod_shards": dict(fn="nce_loss", shards=2, remove_accidental_hits=True),
    "softmax": dict(fn="sampled_softmax_loss"),
    "softmax_no_hits": dict(fn="sampled_softmax_loss", remove_accidental_hits=False),
    "softmax_div_shards": dict(fn="sampled_softmax_loss", shards=3,
                               partition_strategy="div", name="ssl"),
}


@pytest.mark.parametrize("case", sorted(LOSS_CASES))
def test_sampled_losses_match_tf(case):
    kwargs = dict(LOSS_CASES[case])
    fn, shards = kwargs.pop("fn"), kwargs.pop("shards", 1)
    results = {}
    for lib in (tf, tf1):
        with _graph(lib).as_default() as g:
            inputs, biases = lib.constant(INPUTS), lib.constant(B)
            if shards == 1:
                weights = [lib.constant(W)]
            elif kwargs.get("partition_strategy") == "div":
                weights = [lib.constant(w) for w in np.array_split(W, shards)]
            else:
                weights = [lib.constant(W[i::shards]) for i in range(shards)]
            loss = getattr(lib.nn, fn)(
                weights if shards > 1 else weights[0], biases, TRUE, inputs, num_sampled=4,
                num_classes=12, num_true=2, sampled_values=SAMPLED, **kwargs)
            nodes = sorted((n.name, n.op) for n in g.as_graph_def().node)
            grads = lib.gradients(loss, [inputs, biases] + weights)
            grads = [lib.convert_to_tensor(gr) for gr in grads]
            with _session(lib) as sess:
                results[lib] = (nodes, loss.shape.as_list(), sess.run([loss] + grads))
    assert results[tf][0] == results[tf1][0]
    assert results[tf][1] == results[tf1][1]
    for got, want in zip(results[tf][2], results[tf1][2]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_sampled_softmax_loss_samples_itself():
    with tf.Graph().as_default():
        loss = tf.nn.sampled_softmax_loss(W, B, TRUE[:, :1], INPUTS, num_sampled=5,
                                          num_classes=12, seed=2)
        ops = {op.type for op in tf.get_default_graph().get_operations()}
        with tf.Session() as sess:
            value = sess.run(loss)
    assert "LogUniformCandidateSampler" in ops and "ComputeAccidentalHits" in ops
    assert value.shape == (3,) and np.isfinite(value).all() and (value > 0).all()
