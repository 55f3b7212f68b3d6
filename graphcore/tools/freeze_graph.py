"""``freeze_graph`` (TF1's ``tensorflow.python.tools.freeze_graph``): a graph (GraphDef,
MetaGraphDef or SavedModel) and a checkpoint in, one GraphDef out in which the variables
the outputs need are constants holding the checkpoint's values.

    freeze_graph.freeze_graph("model.pbtxt", "", False, "model.ckpt-100", "softmax",
                              None, None, "frozen.pb", True, "")
"""

from __future__ import annotations

import re
from typing import Any

from google.protobuf import text_format

from graphcore.client.session import Session
from graphcore.framework import graph_util_impl, importer
from graphcore.framework import ops as ops_lib
from graphcore.lib.io import file_io
from graphcore.protobuf import graph_pb2, meta_graph_pb2, saver_pb2
from graphcore.saved_model import loader, tag_constants
from graphcore.train import saver as saver_lib

__all__ = ["freeze_graph", "freeze_graph_with_def_protos"]


def _names(text: str) -> list[str] | None:
    """A comma separated flag value as a list (None when empty)."""
    return text.replace(" ", "").split(",") if text else None


def freeze_graph_with_def_protos(
        input_graph_def: graph_pb2.GraphDef | None, input_saver_def: Any,
        input_checkpoint: str | None, output_node_names: str, restore_op_name: Any,
        filename_tensor_name: Any, output_graph: str, clear_devices: bool,
        initializer_nodes: str, variable_names_whitelist: str = "",
        variable_names_denylist: str = "",
        input_meta_graph_def: meta_graph_pb2.MetaGraphDef | None = None,
        input_saved_model_dir: str | None = None, saved_model_tags: Any = None,
        checkpoint_version: int = saver_pb2.SaverDef.V2,
        variable_names_blacklist: str = "") -> graph_pb2.GraphDef:
    """The frozen GraphDef of ``output_node_names`` (comma separated), its variables
    restored from ``input_checkpoint`` (through ``input_saver_def``, the meta graph's
    saver, the SavedModel, or a Saver over the checkpoint's names found in the graph),
    written to ``output_graph`` when given."""
    del restore_op_name, filename_tensor_name  # unused, as in TF
    denylist = variable_names_denylist or variable_names_blacklist
    if not input_saved_model_dir and not saver_lib.checkpoint_exists(input_checkpoint):
        raise ValueError("Input checkpoint '" + str(input_checkpoint) + "' doesn't exist!")
    if not output_node_names:
        raise ValueError("You need to supply the name of a node to --output_node_names.")
    if clear_devices:
        graph_def = input_meta_graph_def.graph_def if input_meta_graph_def else \
            input_graph_def
        for node in graph_def.node if graph_def is not None else ():
            node.device = ""
    with ops_lib.Graph().as_default():
        if input_graph_def:
            importer.import_graph_def(input_graph_def, name="")
        with Session() as sess:
            if input_saver_def:
                saver_lib.Saver(saver_def=input_saver_def,
                                write_version=checkpoint_version).restore(sess,
                                                                          input_checkpoint)
            elif input_meta_graph_def:
                saver_lib.import_meta_graph(input_meta_graph_def, clear_devices=True) \
                    .restore(sess, input_checkpoint)
                if initializer_nodes:
                    sess.run(_names(initializer_nodes))
            elif input_saved_model_dir:
                loader.load(sess, list(saved_model_tags or []), input_saved_model_dir)
            else:
                _restore_by_names(sess, input_checkpoint, checkpoint_version)
                if initializer_nodes:
                    sess.run(_names(initializer_nodes))
            source = input_meta_graph_def.graph_def if input_meta_graph_def else (
                sess.graph.as_graph_def() if input_saved_model_dir else input_graph_def)
            output_graph_def = graph_util_impl.convert_variables_to_constants(
                sess, source, _names(output_node_names),
                variable_names_whitelist=_names(variable_names_whitelist),
                variable_names_blacklist=_names(denylist))
    if output_graph:
        with file_io.FileIO(output_graph, "wb") as f:
            f.write(output_graph_def.SerializeToString(deterministic=True))
    return output_graph_def


def _restore_by_names(sess: Session, checkpoint: str, version: int) -> None:
    """Restores every tensor of the graph named as a checkpoint key (TF's fallback when
    there is neither a saver nor a meta graph)."""
    reader = saver_lib.NewCheckpointReader(checkpoint)
    partitioned = [t.name.split(":")[0] for op in sess.graph.get_operations()
                   for t in op.outputs if re.search(r"/part_\d+/", t.name)]
    var_list, has_partitioned = {}, False
    for key in reader.get_variable_to_shape_map():
        try:
            tensor = sess.graph.get_tensor_by_name(key + ":0")
        except KeyError:
            continue
        has_partitioned = has_partitioned or any(key in name for name in partitioned)
        var_list[key] = tensor
    try:
        saver = saver_lib.Saver(var_list=var_list, write_version=version)
    except (TypeError, ValueError):
        if has_partitioned:
            raise ValueError("Models containing partition variables cannot be converted "
                             "from checkpoint files. Please pass in a SavedModel using "
                             "the flag --input_saved_model_dir.") from None
        if not any(op.type in ("VariableV2", "VarHandleOp")
                   for op in sess.graph.get_operations()):
            raise ValueError("No variables were found in this model. It is likely the "
                             "model was frozen previously. You cannot freeze a graph "
                             "twice.") from None
        raise
    saver.restore(sess, checkpoint)


def _parse(path: str, binary: bool, message: Any, what: str) -> Any:
    if not file_io.file_exists(path):
        raise OSError(f"Input {what} file '{path}' does not exist!")
    data = file_io.read_file_to_string(path, binary_mode=binary)
    if binary:
        message.ParseFromString(data)
    else:
        text_format.Merge(data, message)
    return message


def freeze_graph(input_graph: str | None, input_saver: str, input_binary: bool,
                 input_checkpoint: str | None, output_node_names: str,
                 restore_op_name: Any, filename_tensor_name: Any, output_graph: str,
                 clear_devices: bool, initializer_nodes: str,
                 variable_names_whitelist: str = "", variable_names_denylist: str = "",
                 input_meta_graph: Any = None, input_saved_model_dir: str | None = None,
                 saved_model_tags: str = tag_constants.SERVING,
                 checkpoint_version: int = saver_pb2.SaverDef.V2,
                 variable_names_blacklist: str = "") -> graph_pb2.GraphDef:
    """Freezes the graph in file ``input_graph`` (binary with ``input_binary``, else
    text), or the meta graph in ``input_meta_graph``, or the SavedModel's, with the
    variables of ``input_checkpoint``; writes the GraphDef to ``output_graph``."""
    input_graph_def = None
    if input_saved_model_dir:
        tags = [t for t in saved_model_tags.replace(" ", "").split(",") if t]
        input_graph_def = loader._meta_graph_for(
            loader.parse_saved_model(input_saved_model_dir), tags).graph_def
    elif input_graph:
        input_graph_def = _parse(input_graph, input_binary, graph_pb2.GraphDef(), "graph")
    input_meta_graph_def = None
    if input_meta_graph:
        input_meta_graph_def = _parse(input_meta_graph, input_binary,
                                      meta_graph_pb2.MetaGraphDef(), "meta graph")
        print("Loaded meta graph file '" + input_meta_graph)
    input_saver_def = None
    if input_saver:
        input_saver_def = _parse(input_saver, input_binary, saver_pb2.SaverDef(), "saver")
    return freeze_graph_with_def_protos(
        input_graph_def, input_saver_def, input_checkpoint, output_node_names,
        restore_op_name, filename_tensor_name, output_graph, clear_devices,
        initializer_nodes, variable_names_whitelist, variable_names_denylist,
        input_meta_graph_def, input_saved_model_dir,
        [t for t in saved_model_tags.replace(" ", "").split(",") if t],
        checkpoint_version=checkpoint_version,
        variable_names_blacklist=variable_names_blacklist)
