r"""The ``optimize_for_inference`` command (TF1's
``tensorflow.python.tools.optimize_for_inference``): a frozen binary GraphDef (or, with
``--frozen_graph=False``, a text one) in, ``optimize_for_inference_lib``'s graph out.

    python -m graphcore.tools.optimize_for_inference --input=frozen.pb \
        --output=optimized.pb --input_names=Mul --output_names=softmax
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from google.protobuf import text_format

from graphcore.framework import dtypes, graph_io
from graphcore.lib.io import file_io
from graphcore.platform import app
from graphcore.protobuf import graph_pb2
from graphcore.tools import optimize_for_inference_lib

__all__ = ["main", "parse_args"]

FLAGS: Any = None


def main(unused_args: Any) -> int:
    """Optimizes ``FLAGS.input`` into ``FLAGS.output``; -1 (printed) when the input file
    does not exist."""
    del unused_args
    if not file_io.file_exists(FLAGS.input):
        print("Input graph file '" + FLAGS.input + "' does not exist!")
        return -1
    input_graph_def = graph_pb2.GraphDef()
    data = file_io.read_file_to_string(FLAGS.input, binary_mode=True)
    if FLAGS.frozen_graph:
        input_graph_def.ParseFromString(data)
    else:
        text_format.Merge(data.decode("utf-8"), input_graph_def)
    output_graph_def = optimize_for_inference_lib.optimize_for_inference(
        input_graph_def, FLAGS.input_names.split(","), FLAGS.output_names.split(","),
        _parse_placeholder_types(FLAGS.placeholder_type_enum), FLAGS.toco_compatible,
        FLAGS.placeholder_to_const_names.split(","))
    if FLAGS.frozen_graph:
        with file_io.FileIO(FLAGS.output, "wb") as f:
            f.write(output_graph_def.SerializeToString())
    else:
        graph_io.write_graph(output_graph_def, os.path.dirname(FLAGS.output),
                             os.path.basename(FLAGS.output))
    return 0


def _parse_placeholder_types(values: str) -> Any:
    """One dtype enum, or a list of them, from a comma separated string."""
    types = [int(value) for value in values.split(",")]
    return types if len(types) > 1 else types[0]


def parse_args() -> tuple[argparse.Namespace, list[str]]:
    """(flags, the arguments left) of the command line, with TF's flags and defaults."""
    parser = argparse.ArgumentParser()
    parser.register("type", "bool", lambda v: v.lower() == "true")
    parser.add_argument("--input", type=str, default="",
                        help="TensorFlow 'GraphDef' file to load.")
    parser.add_argument("--output", type=str, default="",
                        help="File to save the output graph to.")
    parser.add_argument("--input_names", type=str, default="",
                        help="Input node names, comma separated.")
    parser.add_argument("--output_names", type=str, default="",
                        help="Output node names, comma separated.")
    parser.add_argument("--frozen_graph", nargs="?", const=True, type="bool", default=True,
                        help="If true, the input graph is a binary frozen GraphDef file; "
                             "if false, it is a text GraphDef proto file.")
    parser.add_argument("--placeholder_type_enum", type=str,
                        default=str(dtypes.float32.as_datatype_enum),
                        help="The AttrValue enum to use for placeholders. Or a comma "
                             "separated list, one value for each placeholder.")
    parser.add_argument("--toco_compatible", type=bool, default=False,
                        help="If true, only use ops compatible with Tensorflow Lite "
                             "Optimizing Converter.")
    parser.add_argument("--placeholder_to_const_names", type=str, default="",
                        help="List of PlaceholderWithDefault or Placeholder node names and "
                             "their new value to be converted to Constant node, comma "
                             "separated. eg: --placeholder_to_const_names=phase_train=False")
    return parser.parse_known_args()


if __name__ == "__main__":
    FLAGS, unparsed = parse_args()
    app.run(main=main, argv=[sys.argv[0]] + unparsed)
