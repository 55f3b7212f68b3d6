"""Reference tier: tf.distributions (graphcore/distributions/) against TensorFlow's
compat.v1.distributions — every method's values over a table of distributions, KL
divergences, param_shapes, node names, sample shapes and moments, and gradients of
log_prob and of reparameterized samples. Skipped without TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

F = np.float32
# name -> (constructor over a library's distributions namespace, points to evaluate at)
DISTRIBUTIONS = {
    "normal": (lambda d: d.Normal(loc=F([0.0, 1.0, -2.0]), scale=F([1.0, 0.5, 3.0])),
               F([[0.3, -12.0, 7.0], [0.0, 1.0, -2.0]])),
    "laplace": (lambda d: d.Laplace(loc=F([0.0, 1.0]), scale=F([2.0, 0.5])),
                F([[-1.0, 3.0], [0.5, 1.0]])),
    "student_t": (lambda d: d.StudentT(df=F([0.8, 1.5, 5.0]), loc=F([0.0, 1.0, -1.0]),
                                       scale=F([1.0, 2.0, 0.5])),
                  F([[0.3, -2.0, 0.0], [4.0, 1.0, -3.0]])),
    "uniform": (lambda d: d.Uniform(low=F([0.0, -1.0]), high=F([1.0, 3.0])),
                F([[0.5, -2.0], [1.0, 2.5]])),
    "exponential": (lambda d: d.Exponential(rate=F([0.5, 2.0])), F([[0.1, 3.0], [2.0, 0.7]])),
    "gamma": (lambda d: d.Gamma(concentration=F([0.7, 3.0]), rate=F([2.0, 0.5])),
              F([[0.1, 3.0], [2.0, 7.0]])),
    "beta": (lambda d: d.Beta(concentration1=F([0.8, 2.0, 5.0]),
                              concentration0=F([3.0, 2.0, 1.5])),
             F([[0.1, 0.5, 0.9], [0.3, 0.2, 0.6]])),
    "bernoulli_logits": (lambda d: d.Bernoulli(logits=F([-1.0, 0.0, 2.5])),
                         np.array([[0, 1, 1], [1, 0, 0]], np.int32)),
    "bernoulli_probs": (lambda d: d.Bernoulli(probs=F([0.2, 0.7])),
                        np.array([1, 0], np.int32)),
    "categorical": (lambda d: d.Categorical(logits=F([[0.0, 1.0, -1.0], [2.0, 0.5, 0.1]])),
                    np.array([[2, 0], [1, 1]], np.int32)),
    "categorical_probs": (lambda d: d.Categorical(probs=F([0.1, 0.6, 0.3])),
                          np.array([0, 2, 1], np.int32)),
    "dirichlet": (lambda d: d.Dirichlet(concentration=F([[1.5, 2.0, 3.0], [0.5, 4.0, 1.0]])),
                  F([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])),
    "multinomial": (lambda d: d.Multinomial(total_count=F([5.0, 3.0]),
                                            logits=F([[0.0, 1.0, -1.0], [0.2, 0.3, 0.1]])),
                    F([[2.0, 3.0, 0.0], [1.0, 1.0, 1.0]])),
    "dirichlet_multinomial": (
        lambda d: d.DirichletMultinomial(total_count=F(6.0),
                                         concentration=F([[1.0, 2.0, 0.5], [3.0, 1.0, 2.0]])),
        F([[1.0, 4.0, 1.0], [0.0, 5.0, 1.0]])),
}
VALUE_METHODS = ("log_prob", "prob", "cdf", "log_cdf", "survival_function",
                 "log_survival_function")
STAT_METHODS = ("entropy", "mean", "stddev", "variance", "mode", "covariance")
KL_PAIRS = {
    "normal": lambda d: (d.Normal(F([0.0, 1.0]), F([1.0, 2.0])), d.Normal(F(0.5), F(1.5))),
    "bernoulli": lambda d: (d.Bernoulli(logits=F([0.3, -2.0])), d.Bernoulli(probs=F(0.4))),
    "categorical": lambda d: (d.Categorical(logits=F([[0.0, 1.0, 2.0]])),
                              d.Categorical(probs=F([0.2, 0.2, 0.6]))),
    "beta": lambda d: (d.Beta(F([1.0, 2.0]), F([3.0, 0.5])), d.Beta(F(2.0), F(2.0))),
    "gamma": lambda d: (d.Gamma(F([1.0, 2.0]), F([3.0, 0.5])), d.Gamma(F(2.0), F(1.0))),
    "exponential_gamma": lambda d: (d.Exponential(F([1.0, 2.0])), d.Gamma(F(2.0), F(1.0))),
    "dirichlet": lambda d: (d.Dirichlet(F([[1.0, 2.0, 3.0]])), d.Dirichlet(F([2.0, 2.0, 1.0]))),
}


def _evaluate(lib, build):
    """{key: value or the exception class} of the tensors ``build(lib)`` returns."""
    with lib.Graph().as_default():
        tensors, results = {}, {}
        for key, fn in build(lib).items():
            try:
                tensors[key] = fn()
            except (NotImplementedError, TypeError, ValueError) as e:
                results[key] = type(e)
        with lib.Session() as sess:
            results.update(sess.run(tensors))
    return results


def _method_table(case):
    ctor, points = DISTRIBUTIONS[case]

    def build(lib):
        dist = ctor(lib.distributions)
        calls = {m: (lambda m=m: getattr(dist, m)(points)) for m in VALUE_METHODS}
        calls.update({m: (lambda m=m: getattr(dist, m)()) for m in STAT_METHODS})
        calls["batch_shape_tensor"] = dist.batch_shape_tensor
        calls["event_shape_tensor"] = dist.event_shape_tensor
        return calls

    return build


def _assert_same(ours, theirs, rtol=2e-5, atol=1e-6):
    assert sorted(ours) == sorted(theirs)
    for key in theirs:
        if isinstance(theirs[key], type):
            assert ours[key] is theirs[key], key
        else:
            assert np.asarray(ours[key]).dtype == np.asarray(theirs[key]).dtype, key
            np.testing.assert_allclose(ours[key], theirs[key], rtol=rtol, atol=atol,
                                       err_msg=key)


@pytest.mark.parametrize("case", sorted(DISTRIBUTIONS))
def test_methods_match_tf(case):
    _assert_same(_evaluate(tf, _method_table(case)), _evaluate(tf1, _method_table(case)))


@pytest.mark.parametrize("case", sorted(DISTRIBUTIONS))
def test_static_properties_match_tf(case):
    ctor = DISTRIBUTIONS[case][0]
    with tf.Graph().as_default():
        ours = ctor(tf.distributions)
        our_sample = ours.sample([4, 2], seed=1)
    with tf1.Graph().as_default():
        theirs = ctor(tf1.distributions)
        their_sample = theirs.sample([4, 2], seed=1)
    assert ours.batch_shape.as_list() == theirs.batch_shape.as_list()
    assert ours.event_shape.as_list() == theirs.event_shape.as_list()
    assert ours.dtype.name == theirs.dtype.name
    assert ours.name == theirs.name
    assert sorted(ours.parameters) == sorted(theirs.parameters)
    assert str(ours.reparameterization_type) == str(theirs.reparameterization_type)
    assert our_sample.shape.as_list() == their_sample.shape.as_list()
    assert our_sample.dtype.name == their_sample.dtype.name
    assert our_sample.name == their_sample.name


@pytest.mark.parametrize("pair", sorted(KL_PAIRS))
def test_kl_divergence_matches_tf(pair):
    def build(lib):
        a, b = KL_PAIRS[pair](lib.distributions)
        return {"kl": lambda: lib.distributions.kl_divergence(a, b),
                "method": lambda: a.kl_divergence(b),
                "cross_entropy": lambda: a.cross_entropy(b)}

    _assert_same(_evaluate(tf, build), _evaluate(tf1, build))


def test_kl_without_registration_and_register_kl():
    d = tf.distributions
    with tf.Graph().as_default():
        with pytest.raises(NotImplementedError, match="No KL"):
            d.kl_divergence(d.Normal(0.0, 1.0), d.Laplace(0.0, 1.0))

        class MyNormal(d.Normal):
            pass

        @d.RegisterKL(MyNormal, d.Laplace)
        def _kl(a, b, name=None):
            return tf.constant(7.0, name="seven")

        with pytest.raises(ValueError, match="already been registered"):
            d.RegisterKL(MyNormal, d.Laplace)(_kl)
        # The Normal-Normal KL applies to the subclass through its MRO.
        kl = d.kl_divergence(MyNormal(0.0, 1.0), d.Normal(1.0, 1.0))
        with tf.Session() as sess:
            assert sess.run(kl) == pytest.approx(0.5)
            assert sess.run(d.kl_divergence(MyNormal(0.0, 1.0), d.Laplace(0.0, 1.0))) == 7.0


def test_param_shapes_and_node_names_match_tf():
    def build(lib):
        d = lib.distributions
        n = d.Normal(F([0.0, 1.0]), F(1.0))
        kl = d.kl_divergence(n, d.Normal(F(0.0), F(2.0)))
        return [n.log_prob(F(0.5)).name, n.sample(3, seed=1).name, n.mean().name,
                n.entropy().name, kl.name, n.loc.name, n.scale.name,
                d.Gamma(F(1.0), F(2.0)).mode().name,
                d.Bernoulli(probs=F(0.5)).logits.name,
                sorted((k, v.as_list()) for k, v in d.Normal.param_static_shapes(
                    [3, 2]).items()),
                sorted((k, v.as_list()) for k, v in d.Gamma.param_static_shapes(
                    [4]).items())]

    with tf.Graph().as_default():
        ours = build(tf)
    with tf1.Graph().as_default():
        theirs = build(tf1)
    assert [str(x) for x in ours] == [str(x) for x in theirs]


def test_reparameterization_types():
    d = tf.distributions
    assert d.Normal(0.0, 1.0).reparameterization_type == d.FULLY_REPARAMETERIZED
    assert d.Bernoulli(probs=0.5).reparameterization_type == d.NOT_REPARAMETERIZED
    assert repr(d.FULLY_REPARAMETERIZED) == "<Reparameterization Type: FULLY_REPARAMETERIZED>"
    assert d.FULLY_REPARAMETERIZED != d.ReparameterizationType("FULLY_REPARAMETERIZED")
    assert issubclass(d.Exponential, d.Gamma) and issubclass(d.Normal, d.Distribution)


MOMENT_CASES = ("normal", "laplace", "uniform", "exponential", "gamma", "beta",
                "bernoulli_logits", "categorical_probs", "dirichlet", "multinomial",
                "dirichlet_multinomial")


@pytest.mark.parametrize("case", MOMENT_CASES)
def test_sample_moments(case):
    n = 20000
    with tf.Graph().as_default():
        dist = DISTRIBUTIONS[case][0](tf.distributions)
        sample = dist.sample(n, seed=3)
        with tf.Session() as sess:
            x, mean, var = sess.run([sample, dist.mean() if case != "categorical_probs"
                                     else tf.constant(0.0), dist.variance()
                                     if case != "categorical_probs" else tf.constant(0.0)])
    assert x.shape[0] == n
    if case == "categorical_probs":
        np.testing.assert_allclose(np.bincount(x, minlength=3) / n, [0.1, 0.6, 0.3],
                                   atol=0.02)
        return
    stderr = np.sqrt(var / n)
    assert np.all(np.abs(x.mean(axis=0) - mean) < 6 * stderr + 1e-6)
    np.testing.assert_allclose(x.var(axis=0), var, rtol=0.1, atol=1e-3)


def test_log_prob_gradients_match_tf():
    def build(lib):
        d = lib.distributions
        loc, scale = lib.constant(F([0.0, 1.0])), lib.constant(F([1.0, 2.0]))
        conc, rate = lib.constant(F([0.7, 3.0])), lib.constant(F([2.0, 0.5]))
        a, b = lib.constant(F([0.8, 2.0])), lib.constant(F([3.0, 2.0]))
        df = lib.constant(F([1.5, 5.0]))
        logits = lib.constant(F([[0.0, 1.0, -1.0], [2.0, 0.5, 0.1]]))
        terms = [d.Normal(loc, scale).log_prob(F([0.3, -1.0])),
                 d.Gamma(conc, rate).log_prob(F([0.1, 3.0])),
                 d.Beta(a, b).log_prob(F([0.2, 0.7])),
                 d.StudentT(df, loc, scale).log_prob(F([0.3, -1.0])),
                 d.Laplace(loc, scale).log_prob(F([0.3, -1.0])),
                 d.Categorical(logits=logits).log_prob([2, 0]),
                 d.Dirichlet(conc + a).log_prob(F([0.4, 0.6])),
                 d.Normal(loc, scale).entropy(),
                 d.kl_divergence(d.Gamma(conc, rate), d.Gamma(a, b)),
                 # Igamma's and Betainc's gradients
                 d.Gamma(conc, rate).cdf(F([0.1, 3.0])),
                 d.StudentT(df, loc, scale).cdf(F([0.3, -1.0])),
                 d.Beta(a, b).cdf(F([0.2, 0.7]))]
        total = lib.add_n([lib.reduce_sum(t) for t in terms])
        grads = lib.gradients(total, [loc, scale, conc, rate, a, b, df, logits])
        return {str(i): (lambda g=g: g) for i, g in enumerate(grads)}

    _assert_same(_evaluate(tf, build), _evaluate(tf1, build), rtol=1e-4)


def test_reparameterized_sample_gradients():
    with tf.Graph().as_default():
        d = tf.distributions
        loc, scale = tf.constant(F([0.0, 1.0])), tf.constant(F([1.0, 2.0]))
        x = d.Normal(loc, scale).sample(50, seed=4)
        g_loc, g_scale = tf.gradients(tf.reduce_sum(x), [loc, scale])
        alpha, beta = tf.constant(F([0.5, 3.0])), tf.constant(F([2.0, 1.0]))
        y = d.Gamma(alpha, beta).sample(50, seed=5)
        g_alpha, g_beta = tf.gradients(tf.reduce_sum(y), [alpha, beta])
        u = d.Uniform(loc, loc + scale).sample(10, seed=6)
        g_low = tf.gradients(tf.reduce_sum(u), loc)[0]
        with tf.Session() as sess:
            xv, gl, gs, yv, ga, gb, glow = sess.run([x, g_loc, g_scale, y, g_alpha, g_beta,
                                                     g_low])
    np.testing.assert_allclose(gl, [50.0, 50.0])
    np.testing.assert_allclose(gs, ((xv - [0.0, 1.0]) / [1.0, 2.0]).sum(0), rtol=1e-5)
    np.testing.assert_allclose(glow, [10.0, 10.0])
    # y = standard_gamma(alpha) / beta: dy/dbeta = -y / beta, dy/dalpha by TF's
    # RandomGammaGrad at the same standard samples.
    np.testing.assert_allclose(gb, (-yv / [2.0, 1.0]).sum(0), rtol=1e-5)
    standard = (yv * [2.0, 1.0]).astype(F)
    # In a TF graph of its own: other tests may have switched TF's eager mode off.
    with tf_ref.compat.v1.Graph().as_default(), tf_ref.compat.v1.Session() as tf_sess:
        partial = tf_sess.run(tf_ref.raw_ops.RandomGammaGrad(
            alpha=np.broadcast_to(F([0.5, 3.0]), yv.shape), sample=standard))
    np.testing.assert_allclose(ga, (partial / [2.0, 1.0]).sum(0), rtol=1e-4)


def test_validate_args_and_allow_nan_stats():
    d = tf.distributions
    with tf.Graph().as_default():
        # A statically known bad parameter fails at construction, as TF's check_ops do.
        with pytest.raises(tf.errors.InvalidArgumentError, match="x > 0"):
            d.Normal(0.0, -1.0, validate_args=True)
        scale = tf.placeholder(tf.float32)
        bad = d.Normal(0.0, scale, validate_args=True).mean()
        conc = tf.placeholder(tf.float32, [2])
        mode = d.Gamma(conc, F(1.0), allow_nan_stats=False).mode()
        nan_mode = d.Gamma(F([0.5, 2.0]), F(1.0)).mode()
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(bad, {scale: -1.0})
            assert sess.run(bad, {scale: 1.0}) == 0.0
            with pytest.raises(tf.errors.InvalidArgumentError, match="mode not defined"):
                sess.run(mode, {conc: [0.5, 2.0]})
            out = sess.run(nan_mode)
    assert np.isnan(out[0]) and out[1] == 1.0
    with pytest.raises(ValueError, match="Must pass probs or logits"):
        d.Bernoulli(logits=0.0, probs=0.5)


@pytest.mark.parametrize("case", sorted(DISTRIBUTIONS))
def test_graph_defs_match_tf(case, tf_control_flow_v1):
    """The same nodes (names and op types) as TF for the distribution, its methods and a
    sample (TF building TF1 control flow, for Multinomial's map_fn)."""
    def nodes(lib):
        with lib.Graph().as_default() as g:
            calls = _method_table(case)(lib)
            calls["sample"] = lambda: DISTRIBUTIONS[case][0](lib.distributions).sample(
                [2, 3], seed=1)
            for fn in calls.values():
                try:
                    fn()
                except (NotImplementedError, TypeError, ValueError):
                    pass
            return {(n.name, n.op) for n in g.as_graph_def().node}

    ours, theirs = nodes(tf), nodes(tf1)
    assert sorted(ours - theirs) == sorted(theirs - ours) == []


# name -> (build(lib, placeholder) -> tensor, good feed, bad feed): validate_args checks
# that only fail at run time (the parameter fed through a placeholder).
VALIDATION = {
    "normal_scale": (lambda lib, p: lib.distributions.Normal(F(0.0), p, validate_args=True)
                     .log_prob(F(0.5)), F(2.0), F(-1.0)),
    "gamma_sample": (lambda lib, p: lib.distributions.Gamma(F(2.0), F(1.0), validate_args=True)
                     .log_prob(p), F(1.5), F(-0.5)),
    "beta_sample": (lambda lib, p: lib.distributions.Beta(F(2.0), F(3.0), validate_args=True)
                    .log_prob(p), F(0.5), F(1.5)),
    "bernoulli_probs": (lambda lib, p: lib.distributions.Bernoulli(probs=p, validate_args=True)
                        .entropy(), F(0.3), F(1.3)),
    "bernoulli_event": (lambda lib, p: lib.distributions.Bernoulli(probs=F(0.3),
                                                                   validate_args=True)
                        .log_prob(p), F(1.0), F(0.5)),
    "categorical_event": (lambda lib, p: lib.distributions.Categorical(
        probs=F([0.2, 0.8]), validate_args=True).log_prob(p), F(1.0), F(-1.0)),
    "categorical_probs": (lambda lib, p: lib.distributions.Categorical(
        probs=p, validate_args=True).entropy(), F([0.2, 0.8]), F([0.2, 0.2])),
    "dirichlet_sample": (lambda lib, p: lib.distributions.Dirichlet(
        F([1.0, 2.0]), validate_args=True).log_prob(p), F([0.3, 0.7]), F([0.3, 0.3])),
    "multinomial_counts": (lambda lib, p: lib.distributions.Multinomial(
        F(3.0), probs=F([0.5, 0.5]), validate_args=True).log_prob(p), F([1.0, 2.0]),
        F([1.0, 1.0])),
    "uniform_range": (lambda lib, p: lib.distributions.Uniform(F(0.0), p, validate_args=True)
                      .mean(), F(2.0), F(-1.0)),
}


@pytest.mark.parametrize("case", sorted(VALIDATION))
def test_validate_args_match_tf(case):
    build, good, bad = VALIDATION[case]
    results = []
    for lib in (tf, tf1):
        with lib.Graph().as_default():
            p = lib.placeholder(lib.as_dtype(good.dtype), good.shape)
            out = build(lib, p)
            with lib.Session() as sess:
                value = sess.run(out, {p: good})
                with pytest.raises(lib.errors.InvalidArgumentError):
                    sess.run(out, {p: bad})
        results.append(value)
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6)
