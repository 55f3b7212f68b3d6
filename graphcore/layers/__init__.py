"""tf.layers (TF1's ``tf.compat.v1.layers``): the Layer base, core, convolution, pooling
and batch-normalization layers with their functional forms."""

# ruff: noqa: F401
from graphcore.layers.base import InputSpec, Layer
from graphcore.layers.convolutional import Conv2D, Convolution2D, conv2d
from graphcore.layers.core import Dense, Dropout, Flatten, dense, dropout, flatten
from graphcore.layers.normalization import BatchNormalization, batch_normalization
from graphcore.layers.pooling import (
    AveragePooling1D,
    AveragePooling2D,
    AvgPool1D,
    AvgPool2D,
    MaxPool1D,
    MaxPool2D,
    MaxPooling1D,
    MaxPooling2D,
    average_pooling1d,
    average_pooling2d,
    max_pooling1d,
    max_pooling2d,
)
