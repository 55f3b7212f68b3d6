"""``strip_unused_lib`` (TF1's ``tensorflow.python.tools.strip_unused_lib``): a GraphDef
cut down to what its outputs need, its input nodes turned into Placeholders so that
whatever fed them goes too.

    strip_unused_lib.strip_unused(graph_def, ["input"], ["softmax"],
                                  tf.float32.as_datatype_enum)
"""

from __future__ import annotations

import copy
from typing import Any

from google.protobuf import text_format

from graphcore.framework import graph_util_impl
from graphcore.lib.io import file_io
from graphcore.protobuf import attr_value_pb2, graph_pb2, node_def_pb2

__all__ = ["strip_unused", "strip_unused_from_files"]


def _placeholder_for(node: node_def_pb2.NodeDef, dtype_enum: int) -> node_def_pb2.NodeDef:
    """A Placeholder named as ``node``, of ``dtype_enum``, keeping its recorded shapes."""
    placeholder = node_def_pb2.NodeDef(op="Placeholder", name=node.name)
    placeholder.attr["dtype"].CopyFrom(attr_value_pb2.AttrValue(type=dtype_enum))
    for key in ("_output_shapes", "shape"):
        if key in node.attr:
            placeholder.attr[key].CopyFrom(node.attr[key])
    return placeholder


def strip_unused(input_graph_def: graph_pb2.GraphDef, input_node_names: list[str],
                 output_node_names: list[str], placeholder_type_enum: Any) -> graph_pb2.GraphDef:
    """The nodes of ``input_graph_def`` that ``output_node_names`` need, each node of
    ``input_node_names`` replaced by a Placeholder of ``placeholder_type_enum`` (one enum,
    or a list with one per input name). As TF's, the result carries neither the library
    nor the versions of the input.

    Raises ValueError for an input name of a tensor ("x:0"), KeyError for input names
    not in the graph."""
    for name in input_node_names:
        if ":" in name:
            raise ValueError(f"Name '{name}' appears to refer to a Tensor, not an "
                             "Operation.")
    inputs = set(input_node_names)
    not_found = set(input_node_names)
    replaced = graph_pb2.GraphDef()
    for node in input_graph_def.node:
        if node.name in inputs:
            not_found.discard(node.name)
            dtype_enum = placeholder_type_enum
            if isinstance(placeholder_type_enum, list):
                dtype_enum = placeholder_type_enum[input_node_names.index(node.name)]
            replaced.node.append(_placeholder_for(node, dtype_enum))
        else:
            replaced.node.append(copy.deepcopy(node))
    if not_found:
        raise KeyError(f"The following input nodes were not found: {not_found}.")
    return graph_util_impl.extract_sub_graph(replaced, output_node_names)


def strip_unused_from_files(input_graph: str, input_binary: bool, output_graph: str,
                            output_binary: bool, input_node_names: str,
                            output_node_names: str, placeholder_type_enum: Any) -> Any:
    """``strip_unused`` from the GraphDef file ``input_graph`` (binary or text) to
    ``output_graph``; node names comma separated. Prints and returns -1, as TF's, when the
    input file is missing or no output name is given."""
    if not file_io.file_exists(input_graph):
        print("Input graph file '" + input_graph + "' does not exist!")
        return -1
    if not output_node_names:
        print("You need to supply the name of a node to --output_node_names.")
        return -1
    input_graph_def = graph_pb2.GraphDef()
    data = file_io.read_file_to_string(input_graph, binary_mode=input_binary)
    if input_binary:
        input_graph_def.ParseFromString(data)
    else:
        text_format.Merge(data, input_graph_def)
    output_graph_def = strip_unused(input_graph_def, input_node_names.split(","),
                                    output_node_names.split(","), placeholder_type_enum)
    if output_binary:
        with file_io.FileIO(output_graph, "wb") as f:
            f.write(output_graph_def.SerializeToString())
    else:
        with file_io.FileIO(output_graph, "w") as f:
            f.write(text_format.MessageToString(output_graph_def))
    print("%d ops in the final graph." % len(output_graph_def.node))
    return None
