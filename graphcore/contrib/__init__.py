"""``tf.contrib`` (TF 1.15): only the parts graphcore has, each where TF 1.15 had it —
crf, data, distributions (the core ones), feature_column (sequence inputs), framework
(arg_scope, model variables), layers, legacy_seq2seq, lookup (the tables, vocabulary index
tables), losses, metrics, opt, rnn, seq2seq, slim and training."""

# ruff: noqa: F401
from graphcore.contrib import (
    crf,
    data,
    distributions,
    feature_column,
    framework,
    layers,
    legacy_seq2seq,
    lookup,
    losses,
    metrics,
    opt,
    rnn,
    seq2seq,
    slim,
    training,
)
