"""``tf.contrib.distributions`` (TF 1.15), the part it shared with ``tf.distributions``: the
same Distribution classes, reparameterization markers and KL registry."""

# ruff: noqa: F401
from graphcore.distributions import (
    FULLY_REPARAMETERIZED,
    NOT_REPARAMETERIZED,
    Bernoulli,
    Beta,
    Categorical,
    Dirichlet,
    DirichletMultinomial,
    Distribution,
    Exponential,
    Gamma,
    Laplace,
    Multinomial,
    Normal,
    RegisterKL,
    ReparameterizationType,
    StudentT,
    Uniform,
    kl_divergence,
)
