"""``tf.contrib.layers`` summaries (TF 1.15): a scalar summary for a scalar tensor, else a
histogram (tag ``<op name>_summary``), and activation summaries (the fraction of zeros of a
Relu/Relu6/Softplus, of sixes of a Relu6, and the activation histogram)."""

from __future__ import annotations

import functools
import re
from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.ops import math_ops
from graphcore.summary import summary_ops

__all__ = ["summarize_activation", "summarize_activations", "summarize_biases",
           "summarize_collection", "summarize_tensor", "summarize_tensors",
           "summarize_variables", "summarize_weights"]


def _add_scalar_summary(tensor: Any, tag: str | None = None) -> Any:
    tensor.get_shape().assert_has_rank(0)
    return summary_ops.scalar(tag or f"{tensor.op.name}_summary", tensor)


def _add_histogram_summary(tensor: Any, tag: str | None = None) -> Any:
    return summary_ops.histogram(tag or f"{tensor.op.name}_summary", tensor)


def _fraction(compare: Any, inputs: Any, value: float) -> Any:
    return math_ops.reduce_mean(math_ops.to_float(
        compare(inputs, math_ops.cast(value, inputs.dtype))))


def summarize_activation(op: Any) -> Any:
    """Summaries of an activation tensor: ``<op>/zeros`` (Relu, Relu6, Softplus: the fraction
    of negative inputs), ``<op>/sixes`` (Relu6) and the histogram ``<op>/activation``."""
    name = op.op.name
    if op.op.type in ("Relu", "Softplus", "Relu6"):
        _add_scalar_summary(_fraction(math_ops.less, op.op.inputs[0], 0.0), f"{name}/zeros")
    if op.op.type == "Relu6":
        _add_scalar_summary(_fraction(math_ops.greater, op.op.inputs[0], 6.0),
                            f"{name}/sixes")
    return _add_histogram_summary(op, f"{name}/activation")


def summarize_tensor(tensor: Any, tag: str | None = None) -> Any:
    """A scalar summary of a scalar tensor, else a histogram."""
    if tensor.get_shape().ndims == 0:
        return _add_scalar_summary(tensor, tag)
    return _add_histogram_summary(tensor, tag)


def summarize_tensors(tensors: Any, summarizer: Any = summarize_tensor) -> list:
    return [summarizer(tensor) for tensor in tensors]


def summarize_collection(collection: str, name_filter: str | None = None,
                         summarizer: Any = summarize_tensor) -> list:
    """``summarizer`` over the tensors of ``collection`` whose op names match
    ``name_filter`` (a regex, from the start)."""
    tensors = [t for t in ops_lib.get_collection(collection)
               if name_filter is None or re.match(name_filter, t.op.name)]
    return summarize_tensors(tensors, summarizer)


summarize_variables = functools.partial(summarize_collection, ops_lib.GraphKeys.GLOBAL_VARIABLES)
summarize_weights = functools.partial(summarize_collection, ops_lib.GraphKeys.WEIGHTS)
summarize_biases = functools.partial(summarize_collection, ops_lib.GraphKeys.BIASES)


def summarize_activations(name_filter: str | None = None,
                          summarizer: Any = summarize_activation) -> list:
    """``summarize_activation`` over the ACTIVATIONS collection."""
    return summarize_collection(ops_lib.GraphKeys.ACTIVATIONS, name_filter, summarizer)
