"""tf.distributions without TensorFlow: densities, CDFs and moments against scipy.stats,
KL lookup along the class hierarchy, sample shapes, name scopes and reparameterized
gradients."""

import numpy as np
import pytest
from scipy import stats

import graphcore as tf

d = tf.distributions
F = np.float32
X = F([0.2, 0.5, 1.7])

# name -> (graphcore distribution, the scipy.stats one, points)
CASES = {
    "normal": (lambda: d.Normal(F(1.0), F(2.0)), stats.norm(1.0, 2.0), X),
    "laplace": (lambda: d.Laplace(F(0.5), F(1.5)), stats.laplace(0.5, 1.5), X),
    "student_t": (lambda: d.StudentT(F(4.0), F(0.0), F(2.0)), stats.t(4.0, 0.0, 2.0), X),
    "uniform": (lambda: d.Uniform(F(0.0), F(2.0)), stats.uniform(0.0, 2.0), X),
    "gamma": (lambda: d.Gamma(F(2.5), F(2.0)), stats.gamma(2.5, scale=0.5), X),
    "exponential": (lambda: d.Exponential(F(3.0)), stats.expon(scale=1 / 3.0), X),
    "beta": (lambda: d.Beta(F(2.0), F(3.0)), stats.beta(2.0, 3.0), F([0.1, 0.5, 0.9])),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_against_scipy(case):
    build, ref, x = CASES[case]
    with tf.Graph().as_default():
        dist = build()
        fetches = [dist.log_prob(x), dist.cdf(x), dist.survival_function(x), dist.entropy(),
                   dist.mean(), dist.stddev()]
        with tf.Session() as sess:
            log_prob, cdf, sf, entropy, mean, stddev = sess.run(fetches)
    np.testing.assert_allclose(log_prob, ref.logpdf(x), rtol=1e-5)
    np.testing.assert_allclose(cdf, ref.cdf(x), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(sf, ref.sf(x), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(entropy, ref.entropy(), rtol=1e-5)
    np.testing.assert_allclose([mean, stddev], [ref.mean(), ref.std()], rtol=1e-5)


def test_discrete_and_multivariate_against_scipy():
    alpha = F([1.5, 2.0, 3.0])
    with tf.Graph().as_default():
        values = [d.Bernoulli(probs=F(0.3)).log_prob([0, 1]),
                  d.Categorical(probs=F([0.2, 0.5, 0.3])).log_prob([0, 1, 2]),
                  d.Dirichlet(alpha).log_prob(F([0.2, 0.3, 0.5])),
                  d.Multinomial(F(5.0), probs=F([0.2, 0.5, 0.3])).log_prob(F([1, 3, 1])),
                  d.Dirichlet(alpha).entropy()]
        with tf.Session() as sess:
            bern, cat, dirichlet, multinomial, dir_entropy = sess.run(values)
    np.testing.assert_allclose(bern, stats.bernoulli(0.3).logpmf([0, 1]), rtol=1e-5)
    np.testing.assert_allclose(cat, np.log([0.2, 0.5, 0.3]), rtol=1e-5)
    np.testing.assert_allclose(dirichlet, stats.dirichlet(alpha).logpdf([0.2, 0.3, 0.5]),
                               rtol=1e-5)
    np.testing.assert_allclose(multinomial,
                               stats.multinomial(5, [0.2, 0.5, 0.3]).logpmf([1, 3, 1]),
                               rtol=1e-5)
    np.testing.assert_allclose(dir_entropy, stats.dirichlet(alpha).entropy(), rtol=1e-5)


def test_shapes_names_and_kl():
    with tf.Graph().as_default():
        n = d.Normal(loc=F([0.0, 1.0]), scale=F(1.0))
        sample = n.sample([4, 3], seed=1)
        assert sample.shape.as_list() == [4, 3, 2]
        assert sample.name == "Normal/sample/Reshape:0"
        assert n.log_prob(0.0).name.startswith("Normal/log_prob/")
        assert n.batch_shape.as_list() == [2] and n.event_shape.as_list() == []
        assert d.Dirichlet(F([[1.0, 2.0, 3.0]])).event_shape.as_list() == [3]

        class Wide(d.Normal):
            pass

        kl = d.kl_divergence(Wide(F(0.0), F(1.0)), d.Normal(F(1.0), F(2.0)))
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(kl), np.log(2.0) + 2.0 / 8.0 - 0.5,
                                       rtol=1e-6)


def test_reparameterized_samples_carry_gradients():
    with tf.Graph().as_default():
        alpha = tf.constant(F([0.7, 4.0]))
        sample = d.Gamma(alpha, F(1.0)).sample(2000, seed=2)
        # d E[x] / d alpha = 1 for Gamma(alpha, 1): the mean of the pathwise gradients.
        grad = tf.gradients(tf.reduce_mean(sample, axis=0), alpha)[0]
        assert d.Gamma(alpha, F(1.0)).reparameterization_type == d.FULLY_REPARAMETERIZED
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(grad), [1.0, 1.0], atol=0.1)
