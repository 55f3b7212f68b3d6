"""``tf.contrib`` (TF 1.15): only the parts graphcore has, each where TF 1.15 had it —
crf, data, distributions (the core ones), framework (arg_scope, model variables), layers,
legacy_seq2seq, losses, metrics, rnn, seq2seq (sequence_loss), slim and training."""

# ruff: noqa: F401
from graphcore.contrib import (
    crf,
    data,
    distributions,
    framework,
    layers,
    legacy_seq2seq,
    losses,
    metrics,
    rnn,
    seq2seq,
    slim,
    training,
)
