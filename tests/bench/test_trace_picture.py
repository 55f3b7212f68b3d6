"""bench/trace_picture.py draws a Chrome trace (of a traced Ray step) as a PNG."""

import pytest

from bench import trace_picture


def test_renders_rows_per_thread_grouped_by_process(tmp_path):
    image = pytest.importorskip("PIL.Image")
    trace = {"traceEvents": [
        {"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "/job:ps"}},
        {"ph": "M", "name": "thread_name", "pid": 0, "tid": 1, "args": {"name": "ray: t"}},
        {"ph": "X", "cat": "Op", "name": "RayCall", "pid": 0, "tid": 1, "ts": 10.0,
         "dur": 500.0, "args": {"name": "run_begin"}},
        {"ph": "X", "cat": "Op", "name": "MatMul", "pid": 1, "tid": 7, "ts": 100.0,
         "dur": 40.0, "args": {"name": "m"}},
    ]}
    out = tmp_path / "t.png"
    trace_picture.render(trace, str(out), width=600)
    img = image.open(out)
    assert img.size[0] == 600 and img.size[1] > 60
