"""tf.graph_util: GraphDef surgery for deployment (freezing variables into constants)."""

# ruff: noqa: F401
from graphcore.framework.graph_util_impl import (
    convert_variables_to_constants,
    extract_sub_graph,
    must_run_on_cpu,
    remove_training_nodes,
    tensor_shape_from_node_def_name,
)
from graphcore.framework.importer import import_graph_def
