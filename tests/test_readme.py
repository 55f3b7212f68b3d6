"""The README's example runs and prints what its comments say."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_readme_example_runs():
    text = (ROOT / "README.md").read_text()
    code = re.search(r"## Example\s+```python\n(.*?)```", text, re.S).group(1)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout.splitlines()
    expected = [line.split("# ", 1)[1] for line in code.splitlines() if "print(" in line]
    assert out == expected
