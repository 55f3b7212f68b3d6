"""``tf.train.experimental``: TF1's loss scaling for mixed-precision training
(LossScale, FixedLossScale, DynamicLossScale, MixedPrecisionLossScaleOptimizer)."""

# ruff: noqa: F401
from graphcore.train.loss_scale import DynamicLossScale, FixedLossScale, LossScale
from graphcore.train.loss_scale_optimizer import MixedPrecisionLossScaleOptimizer
