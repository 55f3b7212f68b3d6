"""Ops the runtime inserts into partition graphs: _Arg/_Retval (feeds and fetches of a
step) and _Send/_Recv (tensors crossing devices), with TF's OpDefs."""

from graphcore.framework import common_shapes, op_registry

op_registry.register_op("_Arg").output("output: T").attr("T: type").attr("index: int >= 0") \
    .stateful().shape_fn(common_shapes.unknown_shapes)

op_registry.register_op("_Retval").input("input: T").attr("T: type") \
    .attr("index: int >= 0").stateful().shape_fn(common_shapes.no_outputs)

op_registry.register_op("_Send").input("tensor: T").attr("T: type") \
    .attr("tensor_name: string").attr("send_device: string") \
    .attr("send_device_incarnation: int").attr("recv_device: string") \
    .attr("client_terminated: bool = false").stateful().shape_fn(common_shapes.no_outputs)

op_registry.register_op("_Recv").output("tensor: tensor_type").attr("tensor_type: type") \
    .attr("tensor_name: string").attr("send_device: string") \
    .attr("send_device_incarnation: int").attr("recv_device: string") \
    .attr("client_terminated: bool = false").stateful() \
    .shape_fn(common_shapes.unknown_shapes)
