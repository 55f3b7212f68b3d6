"""``tf.train.experimental``: TF1's loss scaling for mixed-precision training
(LossScale, FixedLossScale, DynamicLossScale, MixedPrecisionLossScaleOptimizer,
enable/disable_mixed_precision_graph_rewrite)."""

# ruff: noqa: F401
from graphcore.train.loss_scale import DynamicLossScale, FixedLossScale, LossScale
from graphcore.train.loss_scale_optimizer import (
    MixedPrecisionLossScaleOptimizer,
    disable_mixed_precision_graph_rewrite,
    enable_mixed_precision_graph_rewrite,
)
