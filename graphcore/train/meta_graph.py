"""MetaGraphDefs (``.meta`` files): a graph with its SaverDef and collections.

``export_meta_graph`` writes what TF writes for the collections TF1 training scripts
use: variable collections as ``bytes_list`` of serialized VariableDefs, collections of
ops and tensors as ``node_list`` of names, numbers and strings as their lists, packed
protos (``Any``, as SavedModel assets) as ``any_list``.
``import_meta_graph`` imports the graph, rebuilds those collections (Variables from
their VariableDefs) and returns a Saver built from the SaverDef, so TF1's
"restore from .meta + checkpoint" works on graphcore, and TF reads our ``.meta``
files and we read its.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from google.protobuf import any_pb2, text_format

from graphcore.framework import importer
from graphcore.framework import ops as ops_lib
from graphcore.ops import control_flow_context_def
from graphcore.protobuf import meta_graph_pb2, variable_pb2
from graphcore.protobuf.op_def_pb2 import OpList

__all__ = ["export_meta_graph", "read_meta_graph_file"]

_log = logging.getLogger("tensorflow")  # tf.logging's logger, as TF logs

META_GRAPH_VERSION = "v1.0"  # what meta_info_def.meta_graph_version says

# collection key -> from_proto(serialized proto, import_scope) for collections of objects
# that export themselves with ``to_proto`` (TF's register_proto_function): the Savers.
_FROM_PROTO: dict[str, Any] = {}


def register_proto_function(key: str, from_proto: Any) -> None:
    """Imports the ``bytes_list`` collection ``key`` as ``from_proto(bytes, scope)``."""
    _FROM_PROTO[key] = from_proto


register_proto_function("while_context", control_flow_context_def.while_context_from_proto)
register_proto_function("cond_context", control_flow_context_def.cond_context_from_proto)


def prefixed_name(name: str, scope: str | None) -> str:
    """``name`` inside ``scope`` (``scope/name``; unchanged without a scope)."""
    return f"{scope}/{name}" if scope else name


def _unprefixed(name: str, scope: str | None) -> str:
    if scope and name.startswith(scope + "/"):
        return name[len(scope) + 1:]
    return name


def _add_collection(meta: meta_graph_pb2.MetaGraphDef, key: str, items: list,
                    export_scope: str | None) -> None:
    from graphcore.ops import variables

    if not items:
        return
    col = meta.collection_def[key]
    if all(isinstance(v, variables.Variable) for v in items):
        col.bytes_list.value.extend(v.to_proto(export_scope).SerializeToString()
                                    for v in items)
    elif all(callable(getattr(v, "to_proto", None)) for v in items):
        protos = [v.to_proto(export_scope) for v in items]
        col.bytes_list.value.extend(p.SerializeToString() for p in protos if p is not None)
    elif all(isinstance(v, (ops_lib.Operation, ops_lib.Tensor)) for v in items):
        col.node_list.value.extend(_unprefixed(v.name, export_scope) for v in items)
    elif all(isinstance(v, bool) for v in items) or \
            all(isinstance(v, int) and not isinstance(v, bool) for v in items):
        col.int64_list.value.extend(int(v) for v in items)
    elif all(isinstance(v, float) for v in items):
        col.float_list.value.extend(items)
    elif all(isinstance(v, (bytes, str)) for v in items):
        col.bytes_list.value.extend(v.encode() if isinstance(v, str) else v for v in items)
    elif all(isinstance(v, any_pb2.Any) for v in items):
        col.any_list.value.extend(items)
    else:
        del meta.collection_def[key]
        _log.warning("Collection %r is not exported: its items are not variables, ops, "
                     "tensors, numbers or strings", key)


def export_meta_graph(filename: str | None = None, meta_info_def: Any = None,
                      graph_def: Any = None, saver_def: Any = None,
                      collection_list: list | None = None, as_text: bool = False,
                      graph: ops_lib.Graph | None = None, export_scope: str | None = None,
                      clear_devices: bool = False, clear_extraneous_savers: bool = False,
                      strip_default_attrs: bool = False, save_debug_info: bool = False,
                      **kwargs: Any) -> meta_graph_pb2.MetaGraphDef:
    """The MetaGraphDef of ``graph`` (default: the default graph), written to
    ``filename`` (binary, or text with ``as_text``) when given."""
    del clear_extraneous_savers, strip_default_attrs, save_debug_info, kwargs
    graph = graph or ops_lib.get_default_graph()
    meta = meta_graph_pb2.MetaGraphDef()
    if meta_info_def is not None:
        meta.meta_info_def.CopyFrom(meta_info_def)
    meta.meta_info_def.meta_graph_version = META_GRAPH_VERSION
    gd = graph_def if graph_def is not None else graph.as_graph_def(add_shapes=True)
    meta.graph_def.ParseFromString(gd.SerializeToString())
    if clear_devices:
        for nd in meta.graph_def.node:
            nd.device = ""
    # The ops the graph uses, as TF lists them (stripped_op_list).
    from graphcore.framework import op_registry

    ops = OpList()
    for op_type in sorted({nd.op for nd in meta.graph_def.node}):
        reg = op_registry.lookup(op_type)
        if reg is not None:
            ops.op.add().CopyFrom(reg.op_def)
    meta.meta_info_def.stripped_op_list.ParseFromString(ops.SerializeToString())
    if saver_def is not None:
        meta.saver_def.ParseFromString(saver_def.SerializeToString())
    keys = collection_list if collection_list is not None else graph.get_all_collection_keys()
    for key in keys:
        _add_collection(meta, key, graph.get_collection(key), export_scope)
    if filename:
        from graphcore.lib.io import checkpoint_format

        data = (text_format.MessageToString(meta).encode() if as_text
                else meta.SerializeToString())
        parent = os.path.dirname(filename)
        if parent:
            os.makedirs(parent, exist_ok=True)
        checkpoint_format.atomic_write_bytes(filename, data)
    return meta


def read_meta_graph_file(filename: str) -> meta_graph_pb2.MetaGraphDef:
    """A MetaGraphDef from a ``.meta`` file (binary, or text as a fallback)."""
    if not os.path.exists(filename):
        raise OSError(f"File {filename} does not exist.")
    with open(filename, "rb") as f:
        data = f.read()
    meta = meta_graph_pb2.MetaGraphDef()
    try:
        meta.ParseFromString(data)
    except Exception:
        try:
            text_format.Merge(data.decode(), meta)
        except Exception as e:
            raise OSError(f"Cannot parse file {filename}: {e}") from None
    return meta


def _restore_collections(graph: ops_lib.Graph, meta: meta_graph_pb2.MetaGraphDef,
                         import_scope: str | None) -> None:
    for key in sorted(meta.collection_def):
        col = meta.collection_def[key]
        kind = col.WhichOneof("kind")
        if kind == "node_list":
            for name in col.node_list.value:
                graph.add_to_collection(
                    key, graph.as_graph_element(prefixed_name(name, import_scope)))
        elif kind == "bytes_list" and key in _FROM_PROTO:
            for raw in col.bytes_list.value:
                graph.add_to_collection(key, _FROM_PROTO[key](raw, import_scope))
        elif kind == "bytes_list":
            for raw in col.bytes_list.value:
                vdef = _as_variable_def(graph, raw, import_scope)
                graph.add_to_collection(
                    key, raw if vdef is None else _variable(graph, vdef, import_scope))
        elif kind == "int64_list":
            for v in col.int64_list.value:
                graph.add_to_collection(key, int(v))
        elif kind == "float_list":
            for v in col.float_list.value:
                graph.add_to_collection(key, float(v))
        elif kind == "any_list":
            for v in col.any_list.value:
                graph.add_to_collection(key, v)


def _as_variable_def(graph: ops_lib.Graph, raw: bytes, import_scope: str | None) -> Any:
    """``raw`` as a VariableDef naming a variable op of the graph, else None (any
    collection may hold variables: "variables", "global_step", a user's own)."""
    vdef = variable_pb2.VariableDef()
    try:
        vdef.ParseFromString(raw)
    except Exception:
        return None
    if not vdef.variable_name or not vdef.initializer_name or not vdef.snapshot_name:
        return None
    try:
        tensor = graph.as_graph_element(prefixed_name(vdef.variable_name, import_scope))
    except (KeyError, ValueError, TypeError):
        return None
    return vdef if getattr(tensor, "op", None) is not None and \
        tensor.op.type in ("VariableV2", "Variable", "VarHandleOp") else None


def _variable(graph: ops_lib.Graph, vdef: Any, import_scope: str | None) -> Any:
    """One Variable per imported variable op, shared by every collection naming it."""
    from graphcore.ops import variables

    cache = graph.__dict__.setdefault("_imported_variables", {})
    name = prefixed_name(vdef.variable_name, import_scope)
    var = cache.get(name)
    if var is None:
        var = cache[name] = variables.Variable(variable_def=vdef, import_scope=import_scope)
    return var


def import_scoped_meta_graph(meta_graph_or_file: Any, clear_devices: bool = False,
                             import_scope: str | None = None) -> meta_graph_pb2.MetaGraphDef:
    """Imports a MetaGraphDef (or ``.meta`` file) into the default graph, graph and
    collections, and returns it (TF's meta_graph.import_scoped_meta_graph; the Saver of
    ``tf.train.import_meta_graph`` is built by :mod:`graphcore.train.saver`)."""
    if isinstance(meta_graph_or_file, meta_graph_pb2.MetaGraphDef):
        meta = meta_graph_or_file
    elif isinstance(meta_graph_or_file, (bytes, bytearray)):
        meta = meta_graph_pb2.MetaGraphDef.FromString(bytes(meta_graph_or_file))
    else:
        meta = read_meta_graph_file(os.fspath(meta_graph_or_file))
    gd = meta.graph_def
    if clear_devices:
        gd = type(gd).FromString(gd.SerializeToString())
        for nd in gd.node:
            nd.device = ""
    graph = ops_lib.get_default_graph()
    importer.import_graph_def(gd, name=import_scope or "")
    _restore_collections(graph, meta, import_scope)
    return meta

