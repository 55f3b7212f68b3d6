"""The README's Ray example runs, on the test session's cluster, and prints what it says."""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_readme_ray_example_runs(ray_cluster):
    text = (ROOT / "README.md").read_text()
    code = re.search(r"## Ray example\s+```python\n(.*?)```", text, re.S).group(1)
    # "ray://auto" follows RAY_ADDRESS: the example joins this session's cluster.
    env = {**os.environ, "RAY_ADDRESS": ray_cluster.get_runtime_context().gcs_address}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=240, env=env, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    expected = [line.split("# ", 1)[1] for line in code.splitlines() if "print(" in line]
    assert out.stdout.splitlines() == expected, out.stderr
