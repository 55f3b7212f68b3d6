"""TF1 public names the API coverage test does not count, each with its reason.

Only names that make no sense for a graph-mode TF1 library written in Python: eager-only
switches, TPU support, facts about TensorFlow's own C++ build, and loaders of TensorFlow's
compiled shared objects. Anything a graph-mode script may call stays counted, even if
graphcore lacks it. Keys are namespaces as in ``tf.compat.v1`` ("" is the top level).
"""

EXCLUDED: dict[str, dict[str, str]] = {
    "": {
        # Facts about the C++ build of the TensorFlow binary, not an API.
        "COMPILER_VERSION": "compiler that built TF's C++ core",
        "CXX11_ABI_FLAG": "C++ ABI of TF's shared library",
        "CXX_VERSION": "C++ standard TF's core was built with",
        "GIT_VERSION": "git hash of TF's build",
        "MONOLITHIC_BUILD": "whether TF's C++ core was linked as one library",
        "sysconfig": "compile/link flags for building C++ ops against TF's headers",
        # Loaders of compiled TensorFlow shared objects (TF's C++ ABI).
        "load_file_system_library": "loads a C++ file-system plugin built against TF",
        "load_library": "loads C++ kernels built against TF",
        "load_op_library": "loads C++ ops built against TF",
        # Eager-only switches: they turn graph mode off.
        "enable_eager_execution": "switches TF1 to eager mode",
        "enable_v2_behavior": "switches on TF2 behaviour, eager execution first",
        "wrap_function": "wraps a TF1 graph function for eager (TF2) callers",
        # Accelerators and converters outside graph-mode execution.
        "tpu": "TPU system setup and TPU rewrites",
        "lite": "TFLite converter (mobile flatbuffers)",
        "mlir": "TF's MLIR compiler passes",
        # TF-internal leftover: an example op of TF's own build ("my_fact").
        "user_ops": "TF's build-system example of a user op",
    },
}
