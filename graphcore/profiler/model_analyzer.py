"""``tf.profiler.profile`` over a graph, as TF's tfprof: statistics per node (parameters
from a node's ``shape`` attr, float ops from :mod:`graphcore.profiler.flops`, types from
the op log), organized by name scope (``cmd='scope'``) or op type (``cmd='op'``),
accounted and shown by the options of :class:`ProfileOptionBuilder`, printed as tfprof's
report and returned as a GraphNodeProto / MultiGraphNodeProto.  A traced run's
RunMetadata completes unknown shapes; its time and memory statistics are not collected
(they stay 0)."""

from __future__ import annotations

import re
import sys
from typing import Any

from graphcore.errors import InvalidArgumentError, UnimplementedError
from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_shape import TensorShape
from graphcore.gfile import GFile
from graphcore.profiler import flops
from graphcore.profiler.option_builder import TRAINABLE_VARIABLES, ProfileOptionBuilder
from graphcore.protobuf import tfprof_log_pb2, tfprof_output_pb2

ROOT = "_TFProfRoot"
_SCOPE_PARENT = "_kTFScopeParent"
_DOCS = {
    "scope": "scope: The nodes in the model graph are organized by their names, which is "
             "hierarchical like filesystem.",
    "op": "op: The nodes are operation kernel type, such as MatMul, Conv2D. Graph nodes "
          "belonging to the same type are aggregated together.",
}
_CPU_TIME_DOC = ("cpu execution time: The time from the start to the end of the operation. "
                 "It's the sum of actual cpu run time plus the time that it spends waiting if "
                 "part of computation is launched asynchronously.")
_ACCELERATOR_TIME_DOC = ("accelerator execution time: Time spent executing on the "
                         "accelerator. This is normally measured by the actual hardware "
                         "library.")
_SELECT_DOCS = {
    "bytes": "requested bytes: The memory requested by the operation, accumulatively.",
    "peak_bytes": "peak bytes: The peak amount of memory that the operation is holding at "
                  "some point.",
    "residual_bytes": "residual bytes: The memory not de-allocated after the operation "
                      "finishes.",
    "output_bytes": "output bytes: The memory that is output from the operation (not "
                    "necessarily allocated by the operation)",
    "params": "param: Number of parameters (in the Variable).",
    "micros": "total execution time: Sum of accelerator execution time and cpu execution "
              "time.\n" + _CPU_TIME_DOC + "\n" + _ACCELERATOR_TIME_DOC,
    "accelerator_micros": _ACCELERATOR_TIME_DOC,
    "cpu_micros": _CPU_TIME_DOC,
    "float_ops": "flops: Number of float operations. Note: Please read the implementation "
                 "for the math behind it.",
    "device": "device: which device is placed on.",
    "op_types": "op_types: The attributes of the operation, includes the Kernel name device "
                "placed on and user-defined strings.",
    "occurrence": "occurrence: The number of times it occurs",
    "input_shapes": "input shape: The shape of input tensors",
}
_SELECTS = ("bytes", "micros", "params", "float_ops", "tensor_value", "device", "op_types",
            "occurrence", "input_shapes", "accelerator_micros", "cpu_micros", "peak_bytes",
            "residual_bytes", "output_bytes")
_ORDER_BY = {"name": None, "bytes": "total_requested_bytes", "peak_bytes": "total_peak_bytes",
             "residual_bytes": "total_residual_bytes", "output_bytes": "total_output_bytes",
             "micros": "total_exec_micros", "accelerator_micros": "total_accelerator_exec_micros",
             "cpu_micros": "total_cpu_exec_micros", "params": "total_parameters",
             "float_ops": "total_float_ops", "occurrence": "total_run_count"}
_TOTALS = ("run_count", "exec_micros", "accelerator_exec_micros", "cpu_exec_micros",
           "requested_bytes", "peak_bytes", "residual_bytes", "output_bytes", "parameters",
           "float_ops")
_MULTI_TOTALS = _TOTALS[1:]


# -- options ------------------------------------------------------------------------------

class _Options:
    def __init__(self, options: dict):
        get = options.get
        self.max_depth = get("max_depth", 10)
        self.mins = {k: get(k, 0) for k in (
            "min_bytes", "min_peak_bytes", "min_residual_bytes", "min_output_bytes",
            "min_micros", "min_accelerator_micros", "min_cpu_micros", "min_params",
            "min_float_ops", "min_occurrence")}
        self.step = get("step", -1)
        self.order_by = get("order_by", "name")
        if self.order_by not in _ORDER_BY:
            raise InvalidArgumentError(None, None, f"Invalid order_by: {self.order_by}")
        self.account_type_regexes = list(get("account_type_regexes", []))
        self.start_name_regexes = list(get("start_name_regexes", []))
        self.trim_name_regexes = list(get("trim_name_regexes", []))
        self.show_name_regexes = list(get("show_name_regexes", []))
        self.hide_name_regexes = list(get("hide_name_regexes", []))
        self.account_displayed_op_only = bool(get("account_displayed_op_only", False))
        self.select = sorted(set(get("select", [])))
        for s in self.select:
            if s not in _SELECTS:
                raise InvalidArgumentError(None, None, f"Invalid select option: {s}")
        self.output = get("output", "stdout")
        self.output_type, _, rest = self.output.partition(":")
        self.output_options = dict(kv.split("=", 1) for kv in rest.split(",") if "=" in kv)

    def to_string(self) -> str:
        rows = [("max_depth", self.max_depth)]
        rows += [(k, v) for k, v in self.mins.items()]
        rows += [("step", self.step), ("order_by", self.order_by),
                 ("account_type_regexes", ",".join(self.account_type_regexes)),
                 ("start_name_regexes", ",".join(self.start_name_regexes)),
                 ("trim_name_regexes", ",".join(self.trim_name_regexes)),
                 ("show_name_regexes", ",".join(self.show_name_regexes)),
                 ("hide_name_regexes", ",".join(self.hide_name_regexes)),
                 ("account_displayed_op_only",
                  "true" if self.account_displayed_op_only else "false"),
                 ("select", ",".join(self.select)),
                 ("output", self.output_type + ":" + ",".join(
                     f"{k}={v}" for k, v in sorted(self.output_options.items())))]
        return "".join("-%-27s%s\n" % (k, v) for k, v in rows)


def _full_match(regex: str, name: str) -> bool:
    return re.fullmatch(regex, name) is not None


# -- graph nodes ----------------------------------------------------------------------------

class _GraphNode:
    """TF's TFGraphNode: one op's static statistics."""

    def __init__(self, name: str, op: str, shape: list[int] | None = None,
                 input_shapes: dict[int, list[int]] | None = None):
        self.name, self.op = name, op
        self.shape = shape or []
        self.input_shapes = input_shapes or {}
        self.float_ops = 0
        self.op_types = {op}

    @property
    def parameters(self) -> int:
        if not self.shape:
            return 0
        params = 1
        for d in self.shape:
            if d < 0:
                sys.stderr.write("Incomplete shape.\n")
                return 0
            params *= d
        return params


def _shape_vec(shape: Any) -> list[int]:
    """TF's ShapeProtoToVec: unknown rank [], a scalar [1], unknown dims -1."""
    if shape.ndims is None:
        return []
    return [-1 if d is None else d for d in shape.as_list()] or [1]


def _graph_nodes(graph: Any) -> dict[str, _GraphNode]:
    nodes = {}
    for op in graph.get_operations():
        shape = None
        if "shape" in op.node_def.attr and op.node_def.attr["shape"].HasField("shape"):
            proto = op.node_def.attr["shape"].shape
            shape = [] if proto.unknown_rank else [d.size for d in proto.dim] or [1]
        inputs = list(op.inputs) + [c.outputs[0] if c.outputs else None
                                    for c in op.control_inputs]
        input_shapes = {i: (_shape_vec(t.shape) if t is not None else [])
                        for i, t in enumerate(inputs)}
        nodes[op.name] = _GraphNode(op.name, op.type, shape, input_shapes)
    return nodes


def _fill_missing_graph_shape(graph: Any, run_meta: Any) -> None:
    """Completes the graph's tensor shapes from a traced run's step stats (in place, as
    TF's tfprof_logger does)."""
    for dev_stats in run_meta.step_stats.dev_stats:
        for node_stats in dev_stats.node_stats:
            if not node_stats.output:
                continue
            try:
                op = graph.get_operation_by_name(node_stats.node_name)
            except KeyError:
                continue  # a node of the runtime's (_retval, Recv) not in the graph
            if len(node_stats.output) != len(op.outputs):
                continue
            for i, out in enumerate(node_stats.output):
                tensor = op.outputs[i]
                if tensor.shape.is_fully_defined():
                    continue
                run_shape = TensorShape([d.size for d in out.tensor_description.shape.dim])
                try:
                    tensor.set_shape(tensor.shape.merge_with(run_shape))
                except ValueError as e:
                    sys.stderr.write("Node %s incompatible shapes: %s.\n"
                                     % (node_stats.node_name, e))


def _logged_ops(graph: Any, run_meta: Any = None) -> dict[str, tfprof_log_pb2.OpLogEntry]:
    """TF's tfprof_logger._get_logged_ops (no code traces): float ops and the
    _trainable_variables type."""
    if run_meta is not None:
        _fill_missing_graph_shape(graph, run_meta)
    logged, missing = {}, 0
    for op in graph.get_operations():
        rule = flops.FLOPS.get(op.type)
        value = 0
        if rule is not None:
            try:
                value = int(rule(op))
            except ValueError:
                missing += 1
        if value:
            logged[op.name] = tfprof_log_pb2.OpLogEntry(name=op.name, float_ops=value)
    for v in graph.get_collection(ops_lib.GraphKeys.TRAINABLE_VARIABLES):
        entry = logged.setdefault(v.op.name, tfprof_log_pb2.OpLogEntry(name=v.op.name))
        entry.types.append(TRAINABLE_VARIABLES)
    if missing and run_meta is None:
        sys.stderr.write("%d ops no flops stats due to incomplete shapes.\n" % missing)
    return logged


def merge_default_with_oplog(graph: Any, op_log: Any = None,
                             run_meta: Any = None) -> tfprof_log_pb2.OpLogProto:
    """The graph's own op log (float ops, trainable variables) merged into ``op_log``;
    ``run_meta`` (a traced run's) completes the shapes the float-op rules need."""
    merged = tfprof_log_pb2.OpLogProto()
    logged = _logged_ops(graph, run_meta)
    if not op_log:
        merged.log_entries.extend(logged.values())
        return merged
    entries = {e.name: e for e in op_log.log_entries}
    for name, entry in logged.items():
        if name in entries:
            entries[name].types.extend(entry.types)
            if entry.float_ops > 0 and entries[name].float_ops == 0:
                entries[name].float_ops = entry.float_ops
        else:
            entries[name] = entry
    merged.log_entries.extend(entries.values())
    return merged


# -- formatting (tfprof_utils) ----------------------------------------------------------------

def _number(n: int) -> str:
    for limit, div, unit in ((1e9, 1e9, "b"), (1e6, 1e6, "m"), (1e3, 1e3, "k")):
        if n >= limit:
            return "%.2f%s" % (n / div, unit)
    return "%d" % n


def _memory(b: int) -> str:
    for limit, div, unit in ((1e9, 1e9, "GB"), (1e6, 1e6, "MB"), (1e3, 1e3, "KB")):
        if b >= limit:
            return "%.2f%s" % (b / div, unit)
    return "%dB" % b


def _time(us: int) -> str:
    if us >= 1e6:
        return "%.2fsec" % (us / 1e6)
    if us >= 1e3:
        return "%.2fms" % (us / 1e3)
    return "%dus" % us


def _legend(opts: _Options, multi: bool) -> str:
    sel = set(opts.select)
    head = [] if multi else [("params", "# parameters"), ("float_ops", "# float_ops")]
    pairs = head + [("bytes", "requested bytes"), ("peak_bytes", "peak bytes"),
                    ("residual_bytes", "residual bytes"), ("output_bytes", "output bytes")]
    legends = [text for key, text in pairs if key in sel]
    if "micros" in sel:
        legends += ["total execution time", "accelerator execution time",
                    "cpu execution time"]
    else:
        legends += [text for key, text in (("accelerator_micros", "accelerator execution time"),
                                           ("cpu_micros", "cpu execution time")) if key in sel]
    tail = [("params", "# parameters"), ("float_ops", "# float_ops")] if multi else []
    tail += [("device", "assigned devices"), ("op_types", "op types"),
             ("occurrence", "op occurrence (run|defined)" if multi else "op count (run|defined)"),
             ("input_shapes", "input shapes")]
    legends += [text for key, text in tail if key in sel]
    return "node name | %s\n" % " | ".join(legends)


def _should_show(proto: Any, opts: _Options, depth: int, multi: bool) -> bool:
    if proto.name == ROOT:
        return True
    m = opts.mins
    params = proto.total_parameters if multi else proto.parameters
    fops = proto.total_float_ops if multi else proto.float_ops
    if (proto.total_requested_bytes < m["min_bytes"]
            or proto.total_peak_bytes < m["min_peak_bytes"]
            or proto.total_residual_bytes < m["min_residual_bytes"]
            or proto.total_output_bytes < m["min_output_bytes"]
            or proto.total_exec_micros < m["min_micros"]
            or proto.total_accelerator_exec_micros < m["min_accelerator_micros"]
            or proto.total_cpu_exec_micros < m["min_cpu_micros"]
            or params < m["min_params"] or fops < m["min_float_ops"]
            or (not multi and proto.run_count < m["min_occurrence"])
            or depth > opts.max_depth):
        return False
    if opts.show_name_regexes != [".*"] and not any(
            _full_match(r, proto.name) for r in opts.show_name_regexes):
        return False
    return not any(_full_match(r, proto.name) for r in opts.hide_name_regexes)


def _trimmed(name: str, opts: _Options) -> bool:
    return any(_full_match(r, name) for r in opts.trim_name_regexes)


def _sorted(nodes: list, opts: _Options) -> list:
    if not opts.order_by or not nodes:
        return nodes
    field = _ORDER_BY[opts.order_by]
    if field is None:
        return sorted(nodes, key=lambda n: (n.proto.name != ROOT, n.proto.name))
    if opts.order_by == "occurrence" and isinstance(nodes[0], _OpNode):
        return sorted(nodes, key=lambda n: n.proto.name != ROOT)
    return sorted(nodes, key=lambda n: (n.proto.name != ROOT, -getattr(n.proto, field)))


# -- scope view (tfprof_scope) ----------------------------------------------------------------

class _ScopeNode:
    def __init__(self, node: _GraphNode):
        self.node = node
        self.proto = tfprof_output_pb2.GraphNodeProto(name=node.name)
        self.account = False
        self.children: list[_ScopeNode] = []
        self.show_children: list[_ScopeNode] = []
        self.formatted = ""

    def reinit(self) -> None:
        p, n = self.proto, self.node
        p.name = n.name
        for f in _TOTALS[:-2]:
            setattr(p, f, 0)
        p.float_ops = n.float_ops
        p.input_shapes.clear()
        for i, shape in n.input_shapes.items():
            p.input_shapes[i].SetInParent()  # scalars and unknown shapes: an empty entry
            for d in shape:
                p.input_shapes[i].dim.add(size=d)
        p.parameters = n.parameters

    def reset_totals(self) -> None:
        self.formatted = ""
        p = self.proto
        p.total_definition_count = 0
        for f in _TOTALS:
            setattr(p, "total_" + f, 0)
        del p.children[:]

    def add_self(self) -> None:
        p = self.proto
        p.total_definition_count += 1
        for f in _TOTALS:
            setattr(p, "total_" + f, getattr(p, "total_" + f) + getattr(p, f))

    def aggregate(self, other: _ScopeNode) -> None:
        p, o = self.proto, other.proto
        p.total_definition_count += o.total_definition_count
        for f in _TOTALS:
            setattr(p, "total_" + f, getattr(p, "total_" + f) + getattr(o, "total_" + f))


def _re_account(node: _ScopeNode, opts: _Options) -> bool:
    node.reinit()
    if opts.account_type_regexes == [".*"]:
        return True
    return any(_full_match(r, t) for r in opts.account_type_regexes
               for t in node.node.op_types)


def _format_scope_node(node: _ScopeNode, opts: _Options) -> str:
    sel, p = set(opts.select), node.proto

    def pair(own: str, total: str) -> str:
        return (own if node.account else "--") + "/" + total

    info = []
    if "params" in sel:
        if node.node.shape:
            info.append("x".join(str(d) for d in node.node.shape))
        info.append(pair(_number(p.parameters), _number(p.total_parameters)) + " params")
    if "float_ops" in sel:
        info.append(pair(_number(p.float_ops), _number(p.total_float_ops)) + " flops")
    for key, own, total in (("bytes", "requested_bytes", "total_requested_bytes"),
                            ("peak_bytes", "peak_bytes", "total_peak_bytes"),
                            ("residual_bytes", "residual_bytes", "total_residual_bytes"),
                            ("output_bytes", "output_bytes", "total_output_bytes")):
        if key in sel:
            info.append(pair(_memory(getattr(p, own)), _memory(getattr(p, total))))
    times = (("exec_micros", "micros"), ("accelerator_exec_micros", "accelerator_micros"),
             ("cpu_exec_micros", "cpu_micros"))
    for field, key in times:
        if "micros" in sel or key in sel:
            info.append(pair(_time(getattr(p, field)), _time(getattr(p, "total_" + field))))
    if "device" in sel and p.devices:
        info.append("|".join(p.devices))
    if "op_types" in sel:
        info.append("|".join(sorted(node.node.op_types)))
    if "occurrence" in sel:
        info.append(pair(_number(p.run_count), _number(p.total_run_count)) + "|"
                    + ("1" if node.account else "--") + "/"
                    + _number(p.total_definition_count))
    if "input_shapes" in sel:
        info.append("|".join("%d:%s" % (i, "x".join(str(d) for d in s) if s else "unknown")
                             for i, s in sorted(node.node.input_shapes.items())))
    return "%s (%s)" % (p.name, ", ".join(info))


def _scope_view(nodes: dict[str, _GraphNode], opts: _Options) -> tuple[Any, str]:
    scope: dict[str, _ScopeNode] = {}

    def parent(name: str) -> _ScopeNode:
        if name not in scope:
            scope[name] = _ScopeNode(_GraphNode(name, _SCOPE_PARENT))
        return scope[name]

    for name, node in sorted(nodes.items()):  # TF's node map is ordered by name
        scope.setdefault(name, _ScopeNode(node))
        prefix = name
        while "/" in prefix:
            prefix = prefix.rpartition("/")[0]
            parent(prefix)
    roots = []
    for name in sorted(scope):
        if "/" in name:
            scope[name.rpartition("/")[0]].children.append(scope[name])
        else:
            roots.append(scope[name])
    root = _ScopeNode(_GraphNode(ROOT, _SCOPE_PARENT))
    root.children = roots

    def account(level: list[_ScopeNode]) -> list[_ScopeNode]:
        kept = []
        for node in level:
            node.reset_totals()
            children = account(node.children)
            node.account = _re_account(node, opts)
            if node.account or children:
                node.show_children = children
                node.reset_totals()
                node.add_self()
                for c in children:
                    node.aggregate(c)
                kept.append(node)
        return kept

    def search(level: list[_ScopeNode]) -> list[_ScopeNode]:
        found = []
        for node in level:
            if any(_full_match(r, node.proto.name) for r in opts.start_name_regexes):
                found.append(node)
            else:
                found += search(node.show_children)
        return found

    def show(level: list[_ScopeNode], depth: int, last_ident: int) -> list[_ScopeNode]:
        shown = []
        for node in level:
            visible = _should_show(node.proto, opts, depth, multi=False)
            ident = last_ident + 2 if visible else last_ident
            cnodes = []
            if not _trimmed(node.proto.name, opts) and depth <= opts.max_depth:
                cnodes = show(node.show_children, depth + 1, ident)
            if visible:
                node.show_children = []
                if opts.account_displayed_op_only:
                    node.reset_totals()
                    node.add_self()
                for c in _sorted(cnodes, opts):
                    node.show_children.append(c)
                    if opts.account_displayed_op_only:
                        node.aggregate(c)
                node.formatted = " " * last_ident + _format_scope_node(node, opts) + "\n"
                shown.append(node)
            else:
                shown += cnodes
        return shown

    root.reset_totals()
    roots = account(root.children)
    for n in roots:
        root.aggregate(n)
    if opts.start_name_regexes != [".*"]:
        roots = search(roots)
    root.show_children = roots
    root = show([root], 1, 0)[0]
    text = [_legend(opts, multi=False), root.formatted]
    result = tfprof_output_pb2.GraphNodeProto()
    result.CopyFrom(root.proto)

    def emit(level: list[_ScopeNode], proto: Any) -> None:
        for node in level:
            text.append(node.formatted)
            child = proto.children.add()
            child.MergeFrom(node.proto)
            emit(node.show_children, child)

    emit(root.show_children, result)
    return result, "".join(text)


# -- op view (tfprof_op) ------------------------------------------------------------------------

class _OpNode:
    def __init__(self, name: str, graph_nodes: list[_GraphNode]):
        self.nodes = sorted(graph_nodes, key=lambda n: n.name)
        self.proto = tfprof_output_pb2.MultiGraphNodeProto(name=name)
        self.account = False

    def reinit(self, type_regexes: list[str]) -> bool:
        if not type_regexes:
            picked = []
        elif type_regexes == [".*"]:
            picked = list(self.nodes)
        else:
            picked = [n for r in type_regexes for n in self.nodes
                      if any(_full_match(r, t) for t in n.op_types)]
        p = self.proto
        del p.graph_nodes[:]
        for node in sorted({n.name: n for n in picked}.values(), key=lambda n: n.name):
            snode = _ScopeNode(node)
            snode.reinit()
            snode.add_self()
            p.graph_nodes.add().MergeFrom(snode.proto)
        for f in _MULTI_TOTALS:
            setattr(p, f, 0)
        p.float_ops = sum(n.float_ops for n in picked)
        p.parameters = sum(n.parameters for n in picked)
        return bool(picked) or type_regexes == [".*"]

    def reset_totals(self) -> None:
        for f in _MULTI_TOTALS:
            setattr(self.proto, "total_" + f, 0)
        del self.proto.children[:]

    def add_self(self) -> None:
        p = self.proto
        for f in _MULTI_TOTALS:
            setattr(p, "total_" + f, getattr(p, "total_" + f) + getattr(p, f))

    def aggregate(self, other: _OpNode) -> None:
        p, o = self.proto, other.proto
        for f in _MULTI_TOTALS:
            setattr(p, "total_" + f, getattr(p, "total_" + f) + getattr(o, "total_" + f))


def _format_op_node(node: _OpNode, root: _OpNode, opts: _Options) -> str:
    sel, p, r = set(opts.select), node.proto, root.proto
    attrs = []

    def pct(total: int, own: int, root_total: int, text: str) -> str:
        accu = 100.0 * total / root_total if total > 0 else 0.0
        share = 100.0 * own / root_total if total > 0 else 0.0
        return "%30s" % ("%s (%.2f%%, %.2f%%)" % (text, accu, share))

    for key, field in (("bytes", "requested_bytes"), ("peak_bytes", "peak_bytes"),
                       ("residual_bytes", "residual_bytes"), ("output_bytes", "output_bytes")):
        if key in sel:
            own = getattr(p, field)
            accu = 100.0 * getattr(p, "total_" + field) / getattr(r, "total_" + field) \
                if own > 0 else 0.0
            share = 100.0 * own / getattr(r, "total_" + field) if own > 0 else 0.0
            attrs.append("%30s" % ("%s (%.2f%%, %.2f%%)" % (_memory(own), accu, share)))
    for field, key in (("exec_micros", "micros"), ("accelerator_exec_micros",
                                                   "accelerator_micros"),
                       ("cpu_exec_micros", "cpu_micros")):
        if "micros" in sel or key in sel:
            attrs.append(pct(getattr(p, "total_" + field), getattr(p, field),
                             getattr(r, "total_" + field), _time(getattr(p, field))))
    if "params" in sel:
        attrs.append(pct(p.total_parameters, p.parameters, r.total_parameters,
                         _number(p.parameters) + " params"))
    if "float_ops" in sel:
        attrs.append(pct(p.total_float_ops, p.float_ops, r.total_float_ops,
                         _number(p.float_ops) + " float_ops"))
    if "device" in sel:
        attrs.append("")
    if "op_types" in sel:
        types = set()
        for n in node.nodes:
            if any(g.name == n.name for g in p.graph_nodes):
                types |= n.op_types
        attrs.append("|".join(sorted(types)))
    if "occurrence" in sel:
        attrs.append("%10s" % ("%d|%d" % (0, len(p.graph_nodes))))
    return "%-25s%s\n" % (p.name, ", ".join(attrs))


def _op_view(nodes: dict[str, _GraphNode], opts: _Options) -> tuple[Any, str]:
    by_type: dict[str, list[_GraphNode]] = {}
    for node in nodes.values():
        by_type.setdefault(node.op, []).append(node)
    root = _OpNode(ROOT, [])
    root.reinit([".*"])
    root.reset_totals()
    if not by_type:
        return root.proto, ""
    ops = []
    for op_type in sorted(by_type):
        n = _OpNode(op_type, by_type[op_type])
        n.account = n.reinit(opts.account_type_regexes)
        n.reset_totals()
        n.add_self()
        ops.append(n)
    ops = _sorted(ops, opts)
    accounted, pre = [], None
    for n in reversed(ops):
        if n.account:
            if pre is not None:
                n.aggregate(pre)
            accounted.append(n)
            pre = n
    accounted.reverse()
    if pre is not None:
        root.aggregate(pre)
    start = 0
    if opts.start_name_regexes and opts.start_name_regexes != [".*"]:
        start = next((i for i, n in enumerate(accounted) if any(
            _full_match(r, n.proto.name) for r in opts.start_name_regexes)), len(accounted))
    shown = []
    for depth, n in enumerate(accounted[start:]):
        if _trimmed(n.proto.name, opts) or depth > opts.max_depth:
            break
        if _should_show(n.proto, opts, depth, multi=True):
            shown.append(n)
    pre = None
    for n in reversed(shown):
        if opts.account_displayed_op_only:
            n.reset_totals()
            n.add_self()
            if pre is not None:
                n.aggregate(pre)
        pre = n
    if opts.account_displayed_op_only:
        root.reset_totals()
        if pre is not None:
            root.aggregate(pre)
    text = _legend(opts, multi=True) + "".join(_format_op_node(n, root, opts) for n in shown)
    result = tfprof_output_pb2.MultiGraphNodeProto()
    result.CopyFrom(root.proto)
    tail = result
    for n in shown:
        child = tail.children.add()
        child.CopyFrom(n.proto)
        tail = child
    return result, text


# -- entry points ---------------------------------------------------------------------------------

def profile(graph: Any = None, run_meta: Any = None, op_log: Any = None, cmd: str = "scope",
            options: Any = 0) -> Any:
    """Profiles ``graph`` (default: the default graph): ``cmd`` 'scope' returns a
    GraphNodeProto tree by name scope, 'op' a MultiGraphNodeProto by op type; the report is
    printed, written to a file or dropped per ``options['output']``."""
    if graph is None:
        graph = ops_lib.get_default_graph()
    if options == 0:
        options = ProfileOptionBuilder.trainable_variables_parameter()
    if cmd not in ("scope", "op", "graph", "code"):
        raise InvalidArgumentError(None, None, "unknown cmd: %s\n" % cmd)
    if cmd in ("graph", "code"):
        raise UnimplementedError(None, None, f"tf.profiler.profile: cmd='{cmd}' is not "
                                 "supported by graphcore (use 'scope' or 'op')")
    opts = _Options(options)
    if opts.output_type not in ("stdout", "file", "none", "pprof"):
        raise UnimplementedError(None, None, f"tf.profiler.profile: output "
                                 f"'{opts.output_type}' is not supported by graphcore")
    # run_meta completes shapes; its times and memory are not collected (they stay 0).
    merged = merge_default_with_oplog(graph, op_log, run_meta)
    nodes = _graph_nodes(graph)
    for entry in merged.log_entries:
        node = nodes.get(entry.name)
        if node is None:
            continue
        node.op_types.update(entry.types)
        if entry.float_ops:
            node.float_ops = entry.float_ops
    if opts.output_type == "pprof":
        sys.stderr.write("Only 'code' view supports pprof output now.\n")
    result, text = (_scope_view if cmd == "scope" else _op_view)(nodes, opts)
    if opts.output_type in ("stdout", "file"):
        docs = [_DOCS[cmd]] + [_SELECT_DOCS[s] for s in opts.select if s in _SELECT_DOCS]
        report = "\nDoc:\n%s\n\nProfile:\n%s" % ("\n".join(docs), text)
        if opts.output_type == "stdout":
            sys.stdout.write(
                "\n=========================Options=============================\n"
                + opts.to_string()
                + "\n==================Model Analysis Report======================\n"
                + report
                + "\n======================End of Report==========================\n")
            sys.stdout.flush()
        else:
            with GFile(opts.output_options["outfile"], "w") as f:
                f.write(report)
    return result


def write_op_log(graph: Any, log_dir: str, op_log: Any = None, run_meta: Any = None,
                 add_trace: bool = True) -> None:
    """Writes ``graph``'s op log (float ops, trainable variables) merged into ``op_log`` to
    ``log_dir/tfprof_log``."""
    del add_trace
    if graph is None:
        graph = ops_lib.get_default_graph()
    merged = merge_default_with_oplog(graph, op_log, run_meta)
    with GFile(log_dir.rstrip("/") + "/tfprof_log", "wb") as f:
        f.write(merged.SerializeToString())
