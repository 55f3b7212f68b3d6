"""Printing from the graph (TF's logging_ops): ``tf.Print`` (the Print op, passing its
input through) and ``tf.print`` (StringFormat + PrintV2)."""

from __future__ import annotations

import sys
from typing import Any

from graphcore.framework import common_shapes, op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor

__all__ = ["Print", "print", "timestamp"]

op_registry.register_op("Print").input("input: T").input("data: U").output("output: T") \
    .attr("T: type").attr("U: list(type) >= 0").attr("message: string = ''") \
    .attr("first_n: int = -1").attr("summarize: int = 3").stateful() \
    .shape_fn(common_shapes.unchanged_shape)

op_registry.register_op("StringFormat").input("inputs: T").output("output: string") \
    .attr("T: list(type) >= 0").attr("template: string = '%s'") \
    .attr("placeholder: string = '%s'").attr("summarize: int = 3") \
    .shape_fn(common_shapes.scalar_shape)

op_registry.register_op("Timestamp").output("ts: double").stateful() \
    .shape_fn(common_shapes.scalar_shape)

op_registry.register_op("PrintV2").input("input: string") \
    .attr("output_stream: string = 'stderr'").attr("end: string", default="\n").stateful() \
    .shape_fn(common_shapes.no_outputs)


def Print(input_: Any, data: list, message: str | None = None,  # noqa: N802
          first_n: int | None = None, summarize: int | None = None,
          name: str | None = None) -> ops_lib.Tensor:
    """``input_``, printing ``message`` and ``data`` to stderr when it is computed."""
    return apply_op("Print", name=name, input=input_, data=list(data), message=message or "",
                    first_n=-1 if first_n is None else first_n,
                    summarize=3 if summarize is None else summarize).outputs[0]


_STREAMS = {sys.stderr: "stderr", sys.stdout: "stdout"}


def _stream_name(output_stream: Any) -> str:
    if isinstance(output_stream, str):
        if output_stream in ("stderr", "stdout", "log(info)", "log(warning)", "log(error)") \
                or output_stream.startswith("file://"):
            return output_stream
    for stream, name in _STREAMS.items():
        if output_stream is stream:
            return name
    raise ValueError(f"Unsupported output stream, logging level, or file.{output_stream}. "
                     "Supported streams are sys.stdout, sys.stderr, tf.logging.info, "
                     "tf.logging.warning, tf.logging.error. File needs to be in the form "
                     "of file://<filepath>.")


def print(*inputs: Any, **kwargs: Any) -> ops_lib.Operation:  # noqa: A001
    """TF's ``tf.print``: formats ``inputs`` (tensors as numpy prints them, ``summarize``
    elements per end of each dimension) and writes them to ``output_stream``; returns the
    PrintV2 op."""
    output_stream = _stream_name(kwargs.pop("output_stream", sys.stderr))
    summarize = kwargs.pop("summarize", 3)
    sep = kwargs.pop("sep", " ")
    end = kwargs.pop("end", "\n")
    name = kwargs.pop("name", None)
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments for tf.print: {sorted(kwargs)}")
    placeholder = "{}"
    pieces, tensors = [], []
    for x in inputs:
        if isinstance(x, ops_lib.Tensor) or hasattr(x, "_as_graph_element"):
            pieces.append(placeholder)
            tensors.append(convert_to_tensor(x))
        else:
            pieces.append(str(x))
    with ops_lib.name_scope(name):
        formatted = apply_op("StringFormat", inputs=tensors, template=sep.join(pieces),
                             placeholder=placeholder, summarize=summarize).outputs[0]
        return apply_op("PrintV2", input=formatted, output_stream=output_stream, end=end)


def string_format(template: str, inputs: Any, placeholder: str = "{}", summarize: int = 3,
                   name: str | None = None) -> ops_lib.Tensor:
    """``tf.strings.format``: ``template`` with each ``placeholder`` replaced by the next
    tensor of ``inputs``, formatted as ``tf.print`` shows it."""
    inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    if template.count(placeholder) != len(inputs):
        raise ValueError(f"num placeholders in template and num inputs must match: "
                         f"{template.count(placeholder)} vs. {len(inputs)}")
    return apply_op("StringFormat", name=name, inputs=[convert_to_tensor(x) for x in inputs],
                    template=template, placeholder=placeholder,
                    summarize=summarize).outputs[0]


def timestamp(name: str | None = None) -> ops_lib.Tensor:
    """Seconds since the epoch when the op runs (a float64 scalar)."""
    return apply_op("Timestamp", name=name).outputs[0]
