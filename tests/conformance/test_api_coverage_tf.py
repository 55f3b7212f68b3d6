"""Reference tier: graphcore's public names against ``tensorflow.compat.v1``, per namespace.

Prints a coverage table (namespace, have, TF total, %; with ``-s`` also the missing names)
and fails when a namespace's count drops below its floor in api_coverage_floor.json.
A name counts when ``hasattr(graphcore_namespace, name)``; modules count as names. Names in
api_coverage_exclusions.py are left out of both counts. After adding names, raise the floors
with ``GRAPHCORE_API_FLOOR_UPDATE=1 pytest tests/conformance/test_api_coverage_tf.py``.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import pathlib
import types

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")

_HERE = pathlib.Path(__file__).parent
FLOOR_FILE = _HERE / "api_coverage_floor.json"
# --import-mode=importlib puts no test folder on sys.path: load the list by its path.
_spec = importlib.util.spec_from_file_location("api_coverage_exclusions",
                                               _HERE / "api_coverage_exclusions.py")
_exclusions = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_exclusions)
EXCLUDED: dict[str, dict[str, str]] = _exclusions.EXCLUDED
NAMESPACES = ("", "nn", "math", "linalg", "random", "losses", "layers", "metrics",
              "initializers", "sparse", "train", "app", "logging", "gfile", "io", "data",
              "python_io", "summary", "bitwise", "image", "strings", "errors")
# tf.compat.v1.layers is Keras 2's legacy module; with Keras 3 installed TF cannot load it
# unless TF_USE_LEGACY_KERAS was set before import, so read it from tf_keras directly.
_FALLBACKS = {"layers": "tf_keras.api._v1.keras.__internal__.legacy.layers"}


def _public(module: object) -> set[str]:
    return {n for n in dir(module) if not n.startswith("_")}


def _tf_namespace(ns: str) -> types.ModuleType | None:
    """tf.compat.v1.<ns>, or None when this TensorFlow install cannot load it."""
    if not ns:
        return tf_ref.compat.v1
    try:
        module = getattr(tf_ref.compat.v1, ns)
        _public(module)  # lazy loaders import on first dir()
        return module
    except (ImportError, AttributeError):
        if ns not in _FALLBACKS:
            return None
        try:
            return importlib.import_module(_FALLBACKS[ns])
        except ImportError:
            return None


def measure() -> dict[str, dict]:
    """Per namespace: have, total, missing names (or None when TF cannot load it)."""
    table: dict[str, dict] = {}
    for ns in NAMESPACES:
        ref = _tf_namespace(ns)
        if ref is None:
            table[ns] = None
            continue
        names = _public(ref) - set(EXCLUDED.get(ns, {}))
        ours = graphcore if not ns else getattr(graphcore, ns, None)
        missing = sorted(n for n in names if ours is None or not hasattr(ours, n))
        table[ns] = {"have": len(names) - len(missing), "total": len(names), "missing": missing}
    return table


def format_table(table: dict[str, dict], with_missing: bool = False) -> str:
    lines = [f"{'namespace':<14} {'have':>5} {'TF':>5} {'%':>6}"]
    have = total = 0
    for ns, row in table.items():
        label = ns or "(top level)"
        if row is None:
            lines.append(f"{label:<14} {'-':>5} {'-':>5} {'-':>6}  (TF cannot load it here)")
            continue
        have, total = have + row["have"], total + row["total"]
        pct = 100.0 * row["have"] / row["total"] if row["total"] else 100.0
        lines.append(f"{label:<14} {row['have']:>5} {row['total']:>5} {pct:>5.1f}%")
    lines.append(f"{'all':<14} {have:>5} {total:>5} {100.0 * have / max(total, 1):>5.1f}%")
    if with_missing:
        for ns, row in table.items():
            if row and row["missing"]:
                lines.append(f"missing in tf.{ns or '*'}: {' '.join(row['missing'])}")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def table() -> dict[str, dict]:
    return measure()


def test_exclusions_name_real_tf_names(table):
    """A stale exclusion (a name TF no longer has) would hide nothing and mislead readers."""
    for ns, entries in EXCLUDED.items():
        ref = _tf_namespace(ns)
        assert ref is not None, ns
        assert sorted(set(entries) - _public(ref)) == [], ns
        assert all(reason.strip() for reason in entries.values()), ns


def test_api_coverage_at_or_above_floor(table, capsys):
    floors = json.loads(FLOOR_FILE.read_text())
    report = format_table(table)
    with capsys.disabled():  # the table is the test's output, wanted even without -s
        print("\nTF1 API coverage (graphcore vs tensorflow.compat.v1)\n" + report)
    print(format_table(table, with_missing=True))
    if os.environ.get("GRAPHCORE_API_FLOOR_UPDATE"):
        # A namespace TF cannot load here keeps its recorded floor.
        raised = {(ns or "top"): max(floors.get(ns or "top", 0),
                                     row["have"] if row is not None else 0)
                  for ns, row in table.items()}
        FLOOR_FILE.write_text(json.dumps(raised, indent=2) + "\n")
        floors = json.loads(FLOOR_FILE.read_text())
    assert set(floors) == {ns or "top" for ns in NAMESPACES}
    drops = {ns: (row["have"], floors[ns or "top"]) for ns, row in table.items()
             if row is not None and row["have"] < floors[ns or "top"]}
    assert drops == {}, "coverage fell below its floor (have, floor):\n" + report
