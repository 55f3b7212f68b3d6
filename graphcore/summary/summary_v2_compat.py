"""TF1's bridge names to TF2 summaries (``tf.compat.v1.summary.initialize``,
``all_v2_summary_ops``) and ``get_summary_description``.

graphcore has the TF1 summary ops only: no TF2 summary writer can be made default from
the TF1 API, so no op joins TF's v2 summary collection and ``initialize`` finds no
writer, as in a TF1 graph-mode script run on TF."""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format

from graphcore.framework import ops as ops_lib
from graphcore.protobuf.summary_pb2 import SummaryDescription

__all__ = ["all_v2_summary_ops", "get_summary_description", "initialize"]

# TF's GraphKeys._SUMMARY_COLLECTION: where TF2 summary ops built in a graph are listed.
_SUMMARY_V2_COLLECTION = "_SUMMARY_V2"


def all_v2_summary_ops() -> list:
    """The TF2 summary ops of the default graph."""
    return ops_lib.get_collection(_SUMMARY_V2_COLLECTION)


def initialize(graph: Any = None, session: Any = None) -> None:
    """Initializes the default TF2 summary writer: there is none (RuntimeError, as TF)."""
    del graph, session
    raise RuntimeError("No default tf.contrib.summary.SummaryWriter found")


def get_summary_description(node_def: Any) -> SummaryDescription:
    """The SummaryDescription a legacy ``TensorSummary`` node keeps in its
    ``description`` attr (JSON)."""
    if node_def.op != "TensorSummary":
        raise ValueError(f"Can't get_summary_description on {node_def.op}")
    summary_description = SummaryDescription()
    json_format.Parse(node_def.attr["description"].s.decode(), summary_description)
    return summary_description
