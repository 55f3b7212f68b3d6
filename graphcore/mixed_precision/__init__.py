"""``tf.mixed_precision`` (TF1): loss scaling and the mixed-precision graph rewrite switch,
the same objects as ``tf.train.experimental``'s."""

# ruff: noqa: F401
from graphcore.mixed_precision import experimental
from graphcore.train.loss_scale import DynamicLossScale, FixedLossScale, LossScale
from graphcore.train.loss_scale_optimizer import (
    MixedPrecisionLossScaleOptimizer,
    disable_mixed_precision_graph_rewrite,
    enable_mixed_precision_graph_rewrite,
)
