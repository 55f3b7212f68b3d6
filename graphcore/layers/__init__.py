"""tf.layers (TF1's ``tf.compat.v1.layers``): the Layer base, core, convolution (plain,
transposed, separable), pooling and batch-normalization layers with their functional
forms."""

# ruff: noqa: F401
from graphcore.layers.base import InputSpec, Layer
from graphcore.layers.convolutional import (
    Conv1D,
    Conv2D,
    Conv2DTranspose,
    Conv3D,
    Conv3DTranspose,
    Convolution1D,
    Convolution2D,
    Convolution2DTranspose,
    Convolution3D,
    Convolution3DTranspose,
    SeparableConv1D,
    SeparableConv2D,
    SeparableConvolution1D,
    SeparableConvolution2D,
    conv1d,
    conv2d,
    conv2d_transpose,
    conv3d,
    conv3d_transpose,
    separable_conv1d,
    separable_conv2d,
)
from graphcore.layers.core import Dense, Dropout, Flatten, dense, dropout, flatten
from graphcore.layers.normalization import BatchNormalization, batch_normalization
from graphcore.layers.pooling import (
    AveragePooling1D,
    AveragePooling2D,
    AveragePooling3D,
    AvgPool1D,
    AvgPool2D,
    MaxPool1D,
    MaxPool2D,
    MaxPooling1D,
    MaxPooling2D,
    MaxPooling3D,
    average_pooling1d,
    average_pooling2d,
    average_pooling3d,
    max_pooling1d,
    max_pooling2d,
    max_pooling3d,
)
