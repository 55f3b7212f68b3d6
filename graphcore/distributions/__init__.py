"""``tf.distributions`` (TF1's ``tf.compat.v1.distributions``): the Distribution base
class, its reparameterization markers, the distribution classes and KL divergences."""

# ruff: noqa: F401
from graphcore.distributions.bernoulli import Bernoulli, Categorical
from graphcore.distributions.dirichlet import Dirichlet, DirichletMultinomial, Multinomial
from graphcore.distributions.distribution import (
    FULLY_REPARAMETERIZED,
    NOT_REPARAMETERIZED,
    Distribution,
    ReparameterizationType,
)
from graphcore.distributions.gamma import Beta, Exponential, Gamma
from graphcore.distributions.kullback_leibler import RegisterKL, kl_divergence
from graphcore.distributions.laplace import Laplace, StudentT
from graphcore.distributions.normal import Normal
from graphcore.distributions.uniform import Uniform
