"""``tf.contrib.layers`` (TF 1.15): layer functions on the core tf.layers, initializers,
regularizers, batch/layer normalization, ``optimize_loss`` and summaries helpers."""

# ruff: noqa: F401
from graphcore.contrib.layers.initializers import (
    variance_scaling_initializer,
    xavier_initializer,
    xavier_initializer_conv2d,
)
from graphcore.contrib.layers.layers import (
    avg_pool2d,
    conv1d,
    conv2d,
    conv2d_transpose,
    conv3d,
    convolution,
    convolution1d,
    convolution2d,
    convolution2d_transpose,
    convolution3d,
    dropout,
    embed_sequence,
    flatten,
    fully_connected,
    linear,
    max_pool2d,
    one_hot_encoding,
    relu,
    relu6,
    repeat,
    stack,
)
from graphcore.contrib.layers.layers_extra import (
    bias_add,
    instance_norm,
    separable_conv2d,
    separable_convolution2d,
    softmax,
    unit_norm,
)
from graphcore.contrib.layers.normalization import batch_norm, group_norm, layer_norm
from graphcore.contrib.layers.optimizers import (
    OPTIMIZER_CLS_NAMES,
    OPTIMIZER_SUMMARIES,
    optimize_loss,
)
from graphcore.contrib.layers.regularizers import (
    apply_regularization,
    l1_l2_regularizer,
    l1_regularizer,
    l2_regularizer,
    sum_regularizer,
)
from graphcore.contrib.layers.summaries import (
    summarize_activation,
    summarize_activations,
    summarize_collection,
    summarize_tensor,
    summarize_tensors,
)
