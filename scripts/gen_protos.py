#!/usr/bin/env python
"""Regenerate graphcore/protobuf/*_pb2.py from proto/*.proto with grpc_tools.protoc.

Run from anywhere; paths are resolved relative to the repository root.

    python scripts/gen_protos.py           # rewrite the generated modules in place
    python scripts/gen_protos.py --check   # exit 1 if any are stale, missing or extra

The .proto files import each other as "graphcore/protobuf/X.proto"; the virtual
path is mapped onto proto/ so that generated modules import each other as
``from graphcore.protobuf import X_pb2``.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROTO_DIR = REPO / "proto"
PACKAGE = Path("graphcore") / "protobuf"
OUT_DIR = REPO / PACKAGE


def _protoc_include() -> str:
    import grpc_tools  # only needed when generating

    return os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")


def generate(out_root: Path) -> None:
    """Write generated modules under out_root/graphcore/protobuf/."""
    protos = sorted(p.name for p in PROTO_DIR.glob("*.proto"))
    if not protos:
        sys.exit(f"no .proto files in {PROTO_DIR}")
    (out_root / PACKAGE).mkdir(parents=True, exist_ok=True)
    cmd = [
        sys.executable,
        "-m",
        "grpc_tools.protoc",
        f"--proto_path={PACKAGE.as_posix()}=proto",
        f"--proto_path={_protoc_include()}",
        f"--python_out={out_root}",
        *[f"{PACKAGE.as_posix()}/{name}" for name in protos],
    ]
    subprocess.run(cmd, cwd=REPO, check=True)


def _generated(root: Path) -> set[str]:
    return {p.name for p in (root / PACKAGE).glob("*_pb2.py")}


def check() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        tmp_root = Path(tmp)
        generate(tmp_root)
        fresh = _generated(tmp_root)
        current = {p.name for p in OUT_DIR.glob("*_pb2.py")}
        missing = sorted(fresh - current)
        extra = sorted(current - fresh)
        stale = sorted(
            name
            for name in fresh & current
            if not filecmp.cmp(tmp_root / PACKAGE / name, OUT_DIR / name, shallow=False)
        )
    for label, names in (("stale", stale), ("missing", missing), ("extra", extra)):
        for name in names:
            print(f"{label}: {PACKAGE.as_posix()}/{name}")
    if stale or missing or extra:
        print("generated protobuf modules are out of date; run: python scripts/gen_protos.py")
        return 1
    print(f"{len(fresh)} generated modules up to date")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="compare with checked-in files instead of writing"
    )
    args = parser.parse_args(argv)
    if args.check:
        return check()
    for stale in OUT_DIR.glob("*_pb2.py"):
        stale.unlink()
    generate(REPO)
    print(f"wrote {len(_generated(REPO))} modules to {PACKAGE.as_posix()}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
