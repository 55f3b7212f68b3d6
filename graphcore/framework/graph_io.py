"""``tf.train.write_graph`` / ``tf.io.write_graph``: a GraphDef written to a file, as text
or binary (TF's python/framework/graph_io.py)."""

from __future__ import annotations

import os
from typing import Any

from google.protobuf import text_format

from graphcore.framework import ops as ops_lib
from graphcore.lib.io import file_io

__all__ = ["write_graph"]


def write_graph(graph_or_graph_def: Any, logdir: str, name: str, as_text: bool = True) -> str:
    """Writes the graph (a Graph or GraphDef) to ``logdir/name``, creating ``logdir``;
    returns the path. The file is replaced atomically (written aside, then renamed)."""
    graph_def = graph_or_graph_def.as_graph_def() \
        if isinstance(graph_or_graph_def, ops_lib.Graph) else graph_or_graph_def
    file_io.recursive_create_dir(logdir)
    path = os.path.join(logdir, name)
    contents = text_format.MessageToString(graph_def) if as_text \
        else graph_def.SerializeToString(deterministic=True)
    temp = path + ".tmp" + str(os.getpid())
    file_io.write_string_to_file(temp, contents)
    file_io.rename(temp, path, overwrite=True)
    return path
