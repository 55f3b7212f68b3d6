"""docs/ops.md, the table of every op type with its kernels and gradient, is what
scripts/gen_op_table.py generates from the registries now (rerun the script after adding
an op)."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_op_table_is_up_to_date():
    spec = importlib.util.spec_from_file_location("gen_op_table",
                                                  ROOT / "scripts" / "gen_op_table.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    assert (ROOT / "docs" / "ops.md").read_text() == gen.render(), \
        "docs/ops.md is stale: run python scripts/gen_op_table.py"
