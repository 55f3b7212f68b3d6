"""``optimize_for_inference_lib`` (TF1's ``tensorflow.python.tools.optimize_for_inference_lib``):
GraphDef passes that leave a frozen graph with only what inference needs.

``optimize_for_inference`` runs, as TF's: bool placeholders named in
``placeholder_to_const_names`` (and ``keras_learning_phase``) become constants; the graph
is stripped to the outputs (inputs turned into Placeholders); CheckNumerics, Identity and
StopGradient nodes are removed; batch norms decomposed into Add/Mul/Sub/Rsqrt are fused
into FusedBatchNorm; batch norms after a convolution are folded into its weights (a
BiasAdd of the folded offset takes their place); and, unless ``toco_compatible``, a
ResizeBilinear and/or MirrorPad before a Conv2D are fused into FusedResizeAndPadConv2D /
FusedPadConv2D. Names, node order, attributes and messages are TF's, so the output is
TF's GraphDef byte for byte.
"""

from __future__ import annotations

import collections
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from graphcore.framework import dtypes, graph_util_impl, tensor_util
from graphcore.platform import tf_logging
from graphcore.protobuf import attr_value_pb2, graph_pb2, node_def_pb2
from graphcore.tools import strip_unused_lib

__all__ = [
    "EPSILON_ATTR", "INPUT_ORDER", "PLACEHOLDER_WITH_DEFAULT_LIST",
    "convert_placeholder_to_const", "ensure_graph_is_valid", "fold_batch_norms",
    "fuse_decomposed_batch_norm", "fuse_resize_and_conv", "get_const_dim_count",
    "node_from_map", "node_name_from_input", "optimize_for_inference", "parse_entry",
    "parse_nodes_dict", "scale_after_normalization", "strtobool", "values_from_const",
]

_BATCH_NORM_OPS = ("BatchNormWithGlobalNormalization", "FusedBatchNorm", "FusedBatchNormV3")
_CONV_OPS = ("Conv2D", "DepthwiseConv2dNative")
_FUSED_ORDER = ["conv_op", "gamma_op", "beta_op", "mean_op", "var_op"]

# Where each batch norm op takes its operands, and the attr holding its epsilon.
INPUT_ORDER = {
    "BatchNormWithGlobalNormalization": ["conv_op", "mean_op", "var_op", "beta_op",
                                         "gamma_op"],
    "FusedBatchNorm": list(_FUSED_ORDER),
    "FusedBatchNormV3": list(_FUSED_ORDER),
}
EPSILON_ATTR = {
    "BatchNormWithGlobalNormalization": "variance_epsilon",
    "FusedBatchNorm": "epsilon",
    "FusedBatchNormV3": "epsilon",
}
# PlaceholderWithDefault names always turned into constants of these values.
PLACEHOLDER_WITH_DEFAULT_LIST = {"keras_learning_phase": "False"}


def optimize_for_inference(input_graph_def: graph_pb2.GraphDef,
                           input_node_names: Sequence[str],
                           output_node_names: Sequence[str], placeholder_type_enum: Any,
                           toco_compatible: bool = False,
                           placeholder_to_const_names: Any = None) -> graph_pb2.GraphDef:
    """``input_graph_def`` (frozen) with the inference passes applied (see the module
    docstring); ``placeholder_type_enum`` is the inputs' dtype enum, or one per input."""
    ensure_graph_is_valid(input_graph_def)
    graph_def = convert_placeholder_to_const(input_graph_def, placeholder_to_const_names)
    graph_def = strip_unused_lib.strip_unused(graph_def, input_node_names, output_node_names,
                                              placeholder_type_enum)
    graph_def = graph_util_impl.remove_training_nodes(graph_def, output_node_names)
    graph_def = fuse_decomposed_batch_norm(graph_def)
    graph_def = fold_batch_norms(graph_def)
    if not toco_compatible:
        graph_def = fuse_resize_and_conv(graph_def, output_node_names)
    ensure_graph_is_valid(graph_def)
    return graph_def


def strtobool(val_str: str) -> bool:
    """True for "True"/"true", False for "False"/"false" and (with a warning) the rest."""
    if val_str in ("True", "true"):
        return True
    if val_str in ("False", "false"):
        return False
    tf_logging.warning("Wrong string values.       Supports False/false or True/true only."
                       " val_str = ", val_str)
    return False


def parse_entry(entry: str) -> tuple[Any, Any]:
    """("key", "value") of "key=value" (the key stripped), (None, None) without "="."""
    items = entry.split("=")
    if len(items) > 1:
        return items[0].strip(), items[1]
    return None, None


def parse_nodes_dict(nodes: Any) -> dict:
    """The "key=value" entries of ``nodes`` as a dict."""
    parsed = {}
    for node in nodes or ():
        key, value = parse_entry(node)
        if key is not None:
            parsed[key] = value
    return parsed


def _node_map(graph_def: graph_pb2.GraphDef) -> dict[str, node_def_pb2.NodeDef]:
    node_map = {}
    for node in graph_def.node:
        if node.name in node_map:
            raise ValueError("Duplicate node names detected for ", node.name)
        node_map[node.name] = node
    return node_map


def ensure_graph_is_valid(graph_def: graph_pb2.GraphDef) -> None:
    """Raises ValueError for duplicate node names or an input naming no node."""
    node_map = _node_map(graph_def)
    for node in graph_def.node:
        for input_name in node.input:
            if node_name_from_input(input_name) not in node_map:
                raise ValueError("Input for ", node.name, " not found: ", input_name)


def node_name_from_input(node_name: str) -> str:
    """The node name of an input ("^name" and "name:1" give "name")."""
    if node_name.startswith("^"):
        node_name = node_name[1:]
    m = re.search(r"(.*):\d+$", node_name)
    return m.group(1) if m else node_name


def node_from_map(node_map: Mapping[str, node_def_pb2.NodeDef],
                  name: str) -> node_def_pb2.NodeDef:
    """The NodeDef of input ``name``; ValueError when there is none."""
    stripped = node_name_from_input(name)
    if stripped not in node_map:
        raise ValueError("No node named '%s' found in map." % name)
    return node_map[stripped]


def values_from_const(node_def: node_def_pb2.NodeDef) -> np.ndarray:
    """The value of a Const NodeDef; ValueError for another op."""
    if node_def.op != "Const":
        raise ValueError("Can not extract constant value from a node that is not Const. "
                         f"Got:\n{node_def}")
    return tensor_util.MakeNdarray(node_def.attr["value"].tensor)


def scale_after_normalization(node: node_def_pb2.NodeDef) -> bool:
    """Whether the batch norm ``node`` scales by gamma (always, but for the old op's
    attr)."""
    if node.op == "BatchNormWithGlobalNormalization":
        return node.attr["scale_after_normalization"].b
    return True


def _const_node(name: str, dtype_attr: attr_value_pb2.AttrValue,
                tensor: Any) -> node_def_pb2.NodeDef:
    node = node_def_pb2.NodeDef(op="Const", name=name)
    node.attr["dtype"].CopyFrom(dtype_attr)
    node.attr["value"].CopyFrom(attr_value_pb2.AttrValue(tensor=tensor))
    return node


def _copy_without(graph_def: graph_pb2.GraphDef, skip: Mapping[str, Any],
                  new_ops: list) -> graph_pb2.GraphDef:
    """The nodes of ``graph_def`` not in ``skip`` (control inputs on them dropped), then
    ``new_ops``, with ``graph_def``'s versions."""
    result = graph_pb2.GraphDef()
    for node in graph_def.node:
        if node.name in skip:
            continue
        new_node = node_def_pb2.NodeDef()
        new_node.CopyFrom(node)
        new_node.input[:] = [i for i in new_node.input
                             if not i.startswith("^") or i[1:] not in skip]
        result.node.append(new_node)
    result.node.extend(new_ops)
    result.versions.CopyFrom(graph_def.versions)
    return result


def _bn_operand(node_map: Mapping, node: node_def_pb2.NodeDef, role: str, what: str,
                channel_count: int) -> np.ndarray | None:
    """The constant ``role`` operand of batch norm ``node`` when it is a Const of
    ``channel_count`` values, else None (with TF's warning)."""
    op = node_from_map(node_map, node.input[INPUT_ORDER[node.op].index(role)])
    if op.op != "Const":
        tf_logging.warning("Didn't find expected %s Constant input to '%s', found %s "
                           "instead. Maybe because freeze_graph wasn't run first?"
                           % (what, node.name, op))
        return None
    value = values_from_const(op)
    if value.shape != (channel_count,):
        tf_logging.warning("Incorrect shape for %s, found %s, expected %s, for node %s"
                           % (what, str(value.shape), str((channel_count,)), node.name))
        return None
    return value


def fold_batch_norms(input_graph_def: graph_pb2.GraphDef) -> graph_pb2.GraphDef:
    """Folds each batch norm (BatchNormWithGlobalNormalization, FusedBatchNorm(V3)) whose
    input is a Conv2D / DepthwiseConv2dNative with constant weights (maybe through a
    constant-bias BiasAdd/Add/AddV2) into the conv: its weights become
    ``<conv>_weights``, scaled per output channel, and a BiasAdd named as the batch norm
    adds ``<conv>_bn_offset``. Batch norms that do not fit stay, with a warning."""
    node_map = _node_map(input_graph_def)
    nodes_to_skip: dict[str, bool] = {}
    new_ops: list = []
    for node in input_graph_def.node:
        if node.op not in _BATCH_NORM_OPS:
            continue
        bias = add_op = None
        conv_op = node_from_map(node_map, node.input[INPUT_ORDER[node.op].index("conv_op")])
        if conv_op.op in ("BiasAdd", "Add", "AddV2"):
            add_op = conv_op
            conv_op = node_from_map(node_map, add_op.input[0])
            bias = node_from_map(node_map, add_op.input[1])
            if conv_op.op not in _CONV_OPS:
                conv_op = node_from_map(node_map, add_op.input[1])
                bias = node_from_map(node_map, add_op.input[0])
        if bias and bias.op != "Const":
            tf_logging.warning("The bias %s after the conv %s was not a constant. Maybe "
                               "because freeze_graph wasn't run first?"
                               % (bias.name, conv_op.name))
            continue
        if conv_op.op not in _CONV_OPS:
            tf_logging.warning("Didn't find expected Conv2D or DepthwiseConv2dNative input "
                               "to '%s'" % node.name)
            continue
        weights_op = node_from_map(node_map, conv_op.input[1])
        if weights_op.op != "Const":
            tf_logging.warning("Didn't find expected conv Constant input to '%s', found %s "
                               "instead. Maybe because freeze_graph wasn't run first?"
                               % (conv_op.name, weights_op))
            continue
        weights = values_from_const(weights_op)
        depthwise = conv_op.op == "DepthwiseConv2dNative"
        channel_count = weights.shape[2] * weights.shape[3] if depthwise \
            else weights.shape[3]
        mean_op = node_from_map(node_map, node.input[INPUT_ORDER[node.op].index("mean_op")])
        mean_value = _bn_operand(node_map, node, "mean_op", "mean", channel_count)
        if mean_value is None:
            continue
        if bias is not None:  # the bias between conv and batch norm shifts the mean
            mean_value = mean_value - values_from_const(bias)
        var_value = _bn_operand(node_map, node, "var_op", "var", channel_count)
        if var_value is None:
            continue
        beta_value = _bn_operand(node_map, node, "beta_op", "beta", channel_count)
        if beta_value is None:
            continue
        gamma_value = _bn_operand(node_map, node, "gamma_op", "gamma", channel_count)
        if gamma_value is None:
            continue

        epsilon = node.attr[EPSILON_ATTR[node.op]].f
        for name in (node.name, weights_op.name, conv_op.name) + (
                (add_op.name,) if bias is not None else ()):
            nodes_to_skip[name] = True
        # TF's arithmetic: the square root in double (math.sqrt, which raises for a
        # negative variance), the scaled weights rounded back to their dtype.
        scale_value = 1.0 / np.vectorize(math.sqrt)(var_value + epsilon)
        if scale_after_normalization(node):
            scale_value = scale_value * gamma_value
        offset_value = (-mean_value * scale_value) + beta_value
        per_channel = scale_value.reshape(weights.shape[2:]) if depthwise else scale_value
        scaled_weights = (weights * per_channel).astype(weights.dtype)

        scaled_weights_op = _const_node(
            conv_op.name + "_weights", weights_op.attr["dtype"],
            tensor_util.make_tensor_proto(scaled_weights, weights.dtype.type, weights.shape))
        # As TF's, the conv of the input graph is rewired too (it is then skipped).
        for i, weights_node in enumerate(conv_op.input):
            if weights_node == weights_op.name:
                conv_op.input[i] = scaled_weights_op.name
        new_conv_op = node_def_pb2.NodeDef()
        new_conv_op.CopyFrom(conv_op)
        offset_op = _const_node(
            conv_op.name + "_bn_offset", mean_op.attr["dtype"],
            tensor_util.make_tensor_proto(offset_value, mean_value.dtype.type,
                                          offset_value.shape))
        bias_add_op = node_def_pb2.NodeDef(op="BiasAdd", name=node.name)
        bias_add_op.attr["T"].CopyFrom(conv_op.attr["T"])
        bias_add_op.attr["data_format"].CopyFrom(conv_op.attr["data_format"])
        bias_add_op.input.extend([new_conv_op.name, offset_op.name])
        new_ops.extend([scaled_weights_op, new_conv_op, offset_op, bias_add_op])
    return _copy_without(input_graph_def, nodes_to_skip, new_ops)


def fuse_resize_and_conv(input_graph_def: graph_pb2.GraphDef,
                         output_node_names: Sequence[str]) -> graph_pb2.GraphDef:
    """Fuses a ResizeBilinear and/or MirrorPad feeding a Conv2D into one
    FusedResizeAndPadConv2D (a ``<conv>_dummy_paddings`` Const of zeros when there is
    no MirrorPad) or FusedPadConv2D named as the conv; the resize/pad nodes go when
    nothing else uses them."""
    node_map = _node_map(input_graph_def)
    reference_count: collections.defaultdict[str, int] = collections.defaultdict(int)
    for node in input_graph_def.node:
        for input_name in node.input:
            reference_count[node_name_from_input(input_name)] += 1
    for output_name in output_node_names:
        reference_count[output_name] += 1

    new_ops = []
    for node in input_graph_def.node:
        if node.op != "Conv2D":
            continue
        conv_op = node
        input_op = node_from_map(node_map, conv_op.input[0])
        if input_op.op == "MirrorPad":
            mirror_pad_op = input_op
            resize_op = node_from_map(node_map, mirror_pad_op.input[0])
            if resize_op.op != "ResizeBilinear":
                resize_op = None
        else:
            mirror_pad_op = None
            resize_op = input_op if input_op.op == "ResizeBilinear" else None
        if not mirror_pad_op and not resize_op:
            continue

        reference_count[conv_op.name] = 0
        if mirror_pad_op:
            reference_count[mirror_pad_op.name] -= 1
        if resize_op:
            reference_count[resize_op.name] -= 1

        fused_conv_op = node_def_pb2.NodeDef(
            op="FusedResizeAndPadConv2D" if resize_op else "FusedPadConv2D",
            name=conv_op.name)
        if mirror_pad_op:
            paddings_name = mirror_pad_op.input[1]
            paddings_mode = mirror_pad_op.attr["mode"]
        else:  # paddings that make the fused op's padding stage a no-op
            paddings_op = _const_node(
                conv_op.name + "_dummy_paddings",
                attr_value_pb2.AttrValue(type=dtypes.int32.as_datatype_enum),
                tensor_util.make_tensor_proto([0] * 8, dtypes.int32, [4, 2]))
            new_ops.append(paddings_op)
            paddings_name = paddings_op.name
            paddings_mode = attr_value_pb2.AttrValue(s=b"REFLECT")
        if resize_op:
            fused_conv_op.input.extend([resize_op.input[0], resize_op.input[1],
                                        paddings_name, conv_op.input[1]])
            fused_conv_op.attr["resize_align_corners"].CopyFrom(
                resize_op.attr["align_corners"])
        else:
            fused_conv_op.input.extend([mirror_pad_op.input[0], paddings_name,
                                        conv_op.input[1]])
        for key, value in (("T", conv_op.attr["T"]), ("mode", paddings_mode),
                           ("strides", conv_op.attr["strides"]),
                           ("padding", conv_op.attr["padding"])):
            fused_conv_op.attr[key].CopyFrom(value)
        new_ops.append(fused_conv_op)

    result = graph_pb2.GraphDef()
    for node in input_graph_def.node:
        if reference_count[node.name] < 1:
            continue
        new_node = node_def_pb2.NodeDef()
        new_node.CopyFrom(node)
        result.node.append(new_node)
    result.node.extend(new_ops)
    return result


def convert_placeholder_to_const(input_graph_def: graph_pb2.GraphDef,
                                 nodes_to_convert: Any = None) -> graph_pb2.GraphDef:
    """Turns each bool Placeholder / PlaceholderWithDefault whose name contains a key of
    ``nodes_to_convert`` ("name=True" entries) or ``keras_learning_phase`` into a scalar
    Const of that value; other dtypes stay, with a warning."""
    _node_map(input_graph_def)
    dict_to_change = dict(PLACEHOLDER_WITH_DEFAULT_LIST)
    if nodes_to_convert is not None and len(nodes_to_convert) > 0:
        dict_to_change.update(parse_nodes_dict(nodes_to_convert))
    result = graph_pb2.GraphDef()
    for node in input_graph_def.node:
        new_node = result.node.add()
        if node.op in ("PlaceholderWithDefault", "Placeholder"):
            match_key = [key for key in dict_to_change if key in node.name]
            if match_key:
                if node.attr["dtype"].type == dtypes.bool.as_datatype_enum:
                    new_node.op = "Const"
                    new_node.name = node.name
                    new_node.attr["dtype"].CopyFrom(node.attr["dtype"])
                    new_node.attr["value"].CopyFrom(attr_value_pb2.AttrValue(
                        tensor=tensor_util.make_tensor_proto(
                            strtobool(dict_to_change[match_key[0]]), dtype=dtypes.bool,
                            shape=[])))
                    continue
                tf_logging.warning("Not converting to Const. Currently only bool            "
                                   " PlaceholderWithDefault or Placeholder can be converted"
                                   " to const.             current dtype = ",
                                   node.attr["dtype"])
        new_node.CopyFrom(node)
    return result


def get_const_dim_count(node_def: node_def_pb2.NodeDef) -> int:
    """The rank of a Const node's value."""
    return values_from_const(node_def).ndim


def _decomposed_batch_norm(node_map: Mapping, node: node_def_pb2.NodeDef) -> Any:
    """The parts of the batch norm ``node`` (an Add) computes as
    ``x * m + (beta - mean * m)`` with ``m = rsqrt(variance + epsilon) [* gamma]`` over
    an NHWC convolution, or None when it is not one."""
    input0_op = node_from_map(node_map, node.input[0])
    input1_op = node_from_map(node_map, node.input[1])
    if input0_op.op == "Mul" and input1_op.op == "Sub":
        data_scale_mul_op, bias_mean_sub_op = input0_op, input1_op
    elif input0_op.op == "Sub" and input1_op.op == "Mul":
        bias_mean_sub_op, data_scale_mul_op = input0_op, input1_op
    else:
        return None
    input_data_op = node_from_map(node_map, data_scale_mul_op.input[0])
    scale_op = node_from_map(node_map, data_scale_mul_op.input[1])
    data_format = None
    if input_data_op.op in _CONV_OPS:
        data_format = input_data_op.attr["data_format"]
    else:
        for in_node_name in input_data_op.input:
            in_node = node_from_map(node_map, in_node_name)
            if in_node.op in _CONV_OPS:
                data_format = in_node.attr["data_format"]
                break
    if data_format is None or data_format.s != b"NHWC":
        return None

    def const_of_rank(op: node_def_pb2.NodeDef, rank: int) -> bool:
        return op.op == "Const" and get_const_dim_count(op) == rank

    if scale_op.op == "Rsqrt":
        gamma_op, rsqrt_op = None, scale_op
    elif scale_op.op == "Mul":
        rsqrt_op = node_from_map(node_map, scale_op.input[0])
        gamma_op = node_from_map(node_map, scale_op.input[1])
        if rsqrt_op.op != "Rsqrt" or not const_of_rank(gamma_op, 1):
            return None
    else:
        return None
    beta_op = node_from_map(node_map, bias_mean_sub_op.input[0])
    mean_scale_mul_op = node_from_map(node_map, bias_mean_sub_op.input[1])
    if mean_scale_mul_op.op != "Mul" or not const_of_rank(beta_op, 1):
        return None
    if scale_op != node_from_map(node_map, mean_scale_mul_op.input[1]):
        return None
    mean_op = node_from_map(node_map, mean_scale_mul_op.input[0])
    if not const_of_rank(mean_op, 1):
        return None
    variance_epsilon_add_op = node_from_map(node_map, rsqrt_op.input[0])
    if variance_epsilon_add_op.op != "Add":
        return None
    variance_op = node_from_map(node_map, variance_epsilon_add_op.input[0])
    epsilon_op = node_from_map(node_map, variance_epsilon_add_op.input[1])
    if not const_of_rank(epsilon_op, 0) or not const_of_rank(variance_op, 1):
        return None
    skipped = [node, data_scale_mul_op, bias_mean_sub_op, mean_scale_mul_op, scale_op]
    if scale_op.op != "Rsqrt":
        skipped.append(rsqrt_op)
    skipped.append(variance_epsilon_add_op)
    return (skipped, input_data_op, scale_op, gamma_op, beta_op, mean_op, variance_op,
            values_from_const(epsilon_op), data_format)


def fuse_decomposed_batch_norm(input_graph_def: graph_pb2.GraphDef) -> graph_pb2.GraphDef:
    """Replaces each batch norm built of Add/Mul/Sub/Rsqrt over constants after an NHWC
    Conv2D / DepthwiseConv2dNative (see ``_decomposed_batch_norm``) by one inference
    FusedBatchNorm named as its final Add; without a gamma, a ``gamma`` Const of ones
    beside the Rsqrt is made."""
    node_map = _node_map(input_graph_def)
    nodes_to_skip: dict[str, bool] = {}
    new_ops: list = []
    for node in input_graph_def.node:
        if node.op != "Add":
            continue
        found = _decomposed_batch_norm(node_map, node)
        if found is None:
            continue
        (skipped, input_data_op, scale_op, gamma_op, beta_op, mean_op, variance_op,
         epsilon, data_format) = found
        for op in skipped:
            nodes_to_skip[op.name] = True
        if gamma_op is None:
            m = re.search(r"(.*)/(.*)", scale_op.name)
            beta_value = values_from_const(beta_op)
            gamma_op = _const_node(
                (m.group(1) if m else scale_op.name) + "/gamma", beta_op.attr["dtype"],
                tensor_util.make_tensor_proto(1, beta_value.dtype.type, beta_value.shape,
                                              allow_broadcast=True))
            new_ops.append(gamma_op)
        fused = node_def_pb2.NodeDef(op="FusedBatchNorm", name=node.name)
        fused.attr["T"].CopyFrom(node.attr["T"])
        fused.attr["is_training"].CopyFrom(attr_value_pb2.AttrValue(b=False))
        fused.attr["epsilon"].CopyFrom(attr_value_pb2.AttrValue(f=epsilon.tolist()))
        fused.attr["data_format"].CopyFrom(data_format)
        fused.input.extend([input_data_op.name, gamma_op.name, beta_op.name, mean_op.name,
                            variance_op.name])
        new_ops.append(fused)
    return _copy_without(input_graph_def, nodes_to_skip, new_ops)
