"""Rendezvous keys (TF's ``Rendezvous::CreateKey``): the name of one tensor transfer,
``src_device;src_incarnation;dst_device;tensor_name;frame:iter``, shared by the partitioner
that pairs _Send/_Recv nodes and the kernels that run them."""

from __future__ import annotations

from typing import Any


def rendezvous_key(send_device: str, incarnation: int, recv_device: str,
                   tensor_name: str) -> str:
    return f"{send_device};{incarnation:016x};{recv_device};{tensor_name};0:0"


def rendezvous_key_from_attrs(node_def: Any) -> str:
    """The key of a _Send/_Recv node, from its attrs."""
    a = node_def.attr
    return rendezvous_key(a["send_device"].s.decode(), a["send_device_incarnation"].i,
                          a["recv_device"].s.decode(), a["tensor_name"].s.decode())
