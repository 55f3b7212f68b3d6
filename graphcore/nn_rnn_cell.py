"""tf.nn.rnn_cell: TF1's RNN cells and wrappers."""

# ruff: noqa: F401
from graphcore.ops.rnn_cell_impl import (
    BasicLSTMCell,
    BasicRNNCell,
    DeviceWrapper,
    DropoutWrapper,
    GRUCell,
    LSTMCell,
    LSTMStateTuple,
    MultiRNNCell,
    ResidualWrapper,
    RNNCell,
)

__all__ = ["BasicLSTMCell", "BasicRNNCell", "DeviceWrapper", "DropoutWrapper", "GRUCell",
           "LSTMCell", "LSTMStateTuple", "MultiRNNCell", "ResidualWrapper", "RNNCell"]
