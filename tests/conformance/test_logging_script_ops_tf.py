"""Reference tier: tf.Print / tf.print output and py_func / numpy_function / py_function
against TensorFlow's compat.v1. Skipped without TensorFlow."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

PRINT_SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    if sys.argv[1] == "tf":
        import tensorflow as T
        t = T.compat.v1
    else:
        import graphcore as t
    with t.Graph().as_default():
        ops = [t.print("hello", t.reshape(t.range(24), [2, 3, 4]), output_stream=sys.stdout,
                       summarize=1),
               t.print(t.constant([1.5, 2.25, 1 / 3]), t.constant(True),
                       t.constant(["a", "b"]), output_stream=sys.stdout),
               t.print(t.range(10), output_stream=sys.stdout, end="!\\n")]
        p = t.Print(t.constant(1), [t.constant([1.0, 0.5, 2.0, 4.0]), t.constant("s")],
                    "x is: ", summarize=2)
        # Tensor::SummarizeValue: brackets per dimension, "..." where cut, bools as 1/0.
        values = [np.arange(4.0).reshape(2, 2), np.arange(24).reshape(2, 3, 4),
                  np.array([True, False]), np.array(3.5), np.arange(10).reshape(2, 5),
                  np.zeros((0, 3)), np.array([[0.1, 1e-8]])]
        shown = [t.Print(t.constant(0), [t.constant(v) for v in values], "x is: ",
                         summarize=n) for n in (3, 4, 7, -1)]
        with t.Session() as s:
            for o in ops:
                s.run(o)
            sys.stdout.flush()
            s.run(p)
            for o in shown:
                s.run(o)
""")


def _printed(lib: str) -> tuple[str, str]:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    out = subprocess.run([sys.executable, "-c", PRINT_SCRIPT, lib], capture_output=True,
                         text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    err = [line for line in out.stderr.splitlines() if line.startswith("x is:")]
    return out.stdout, "\n".join(err)


def test_print_and_tf_print_write_what_tf_writes():
    assert _printed("graphcore") == _printed("tf")


PY_CASES = {
    "py_func": lambda t, x: t.py_func(lambda a: (a * 2).astype(np.float32), [x], t.float32),
    "py_func_list": lambda t, x: t.py_func(
        lambda a: [a.sum(), np.int64(a.size)], [x], [t.float32, t.int64]),
    "stateless": lambda t, x: t.py_func(lambda a: a + 1, [x], t.float32, stateful=False),
    "numpy_function": lambda t, x: t.numpy_function(lambda a: a[::-1].copy(), [x], t.float32),
    "py_function": lambda t, x: t.py_function(lambda a: a.numpy() * 3, [x], t.float32),
    "wrong_dtype": lambda t, x: t.py_func(lambda a: a.astype(np.float64), [x], t.float32),
    "wrong_count": lambda t, x: t.py_func(lambda a: [a, a], [x], [t.float32]),
    "raises_value_error": lambda t, x: t.py_func(_raise(ValueError), [x], t.float32),
    "raises_stop_iteration": lambda t, x: t.py_func(_raise(StopIteration), [x], t.float32),
    "raises_runtime_error": lambda t, x: t.py_func(_raise(RuntimeError), [x], t.float32),
}


def _raise(cls):
    def fn(a):
        raise cls("from the function")
    return fn


def _outcome(lib, case):
    with lib.Graph().as_default() as g:
        x = lib.placeholder(lib.float32, [3])
        out = PY_CASES[case](lib, x)
        op_types = sorted(n.op for n in g.as_graph_def().node if n.op != "Placeholder")
        with lib.Session() as sess:
            try:
                value = sess.run(out, {x: [1.0, 2.0, 3.0]})
            except Exception as e:
                return op_types, type(e).__name__
    return op_types, [np.asarray(v).tolist() for v in (value if isinstance(value, list)
                                                        else [value])]


@pytest.mark.parametrize("case", sorted(PY_CASES))
def test_python_function_ops_match_tf(case):
    assert _outcome(tf, case) == _outcome(tf1, case)
