"""``tf.mixed_precision.experimental``: the loss scales."""

# ruff: noqa: F401
from graphcore.train.loss_scale import DynamicLossScale, FixedLossScale, LossScale
