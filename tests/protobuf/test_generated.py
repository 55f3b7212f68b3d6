"""The generated *_pb2 modules are current and usable."""

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PROTO_NAMES = sorted(p.stem for p in (REPO / "proto").glob("*.proto"))


def test_generated_modules_are_current():
    pytest.importorskip("grpc_tools.protoc")
    proc = subprocess.run(
        [sys.executable, "scripts/gen_protos.py", "--check"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, (
        "graphcore/protobuf is stale; run `python scripts/gen_protos.py`\n"
        + proc.stdout
        + proc.stderr
    )


def test_one_module_per_proto():
    assert PROTO_NAMES
    generated = sorted(
        p.name[: -len("_pb2.py")] for p in (REPO / "graphcore/protobuf").glob("*_pb2.py")
    )
    assert generated == PROTO_NAMES


@pytest.mark.parametrize("name", PROTO_NAMES)
def test_module_imports(name):
    mod = importlib.import_module(f"graphcore.protobuf.{name}_pb2")
    # TF's "tensorflow" package is "graphcore" here, and its sub-packages keep their
    # names under it ("tensorflow.tfprof" -> "graphcore.tfprof").
    assert mod.DESCRIPTOR.package.split(".")[0] == "graphcore"
    assert mod.DESCRIPTOR.name == f"graphcore/protobuf/{name}.proto"


def test_graph_def_round_trip():
    from graphcore.protobuf import graph_pb2, types_pb2

    g = graph_pb2.GraphDef()
    g.versions.producer = 27
    node = g.node.add(name="c", op="Const", device="/device:CPU:0")
    node.attr["dtype"].type = types_pb2.DT_FLOAT
    value = node.attr["value"].tensor
    value.dtype = types_pb2.DT_FLOAT
    value.tensor_shape.dim.add(size=2)
    value.float_val.extend([1.0, 2.0])
    g.node.add(name="n", op="Neg", input=["c", "^c"]).attr["T"].type = types_pb2.DT_FLOAT
    fn = g.library.function.add()
    fn.signature.name = "f"
    fn.ret["y"] = "x"

    data = g.SerializeToString(deterministic=True)  # map order is otherwise unspecified
    back = graph_pb2.GraphDef.FromString(data)
    assert back == g
    assert back.SerializeToString(deterministic=True) == data
    assert list(back.node[1].input) == ["c", "^c"]
    assert list(back.node[0].attr["value"].tensor.float_val) == [1.0, 2.0]


def test_ref_dtypes_are_offset_by_100():
    from graphcore.protobuf import types_pb2

    for name, number in types_pb2.DataType.items():
        if name.endswith("_REF"):
            assert types_pb2.DataType.Value(name[: -len("_REF")]) == number - 100
