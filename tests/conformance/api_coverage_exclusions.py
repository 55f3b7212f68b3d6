"""TF1 public names the API coverage test does not count, each with its reason.

Only names that make no sense for a graph-mode TF1 library written in Python: eager-only
switches, TPU support, and the tools and loaders for TensorFlow's compiled C++ objects. Anything a graph-mode script may call stays counted, even if
graphcore lacks it. Keys are namespaces as in ``tf.compat.v1`` ("" is the top level).
"""

EXCLUDED: dict[str, dict[str, str]] = {
    "": {
        # Compile/link flags for building C++ ops against TF's headers.
        "sysconfig": "compile/link flags for building C++ ops against TF's headers",
        # Loaders of compiled TensorFlow shared objects (TF's C++ ABI).
        "load_file_system_library": "loads a C++ file-system plugin built against TF",
        "load_library": "loads C++ kernels built against TF",
        "load_op_library": "loads C++ ops built against TF",
        # Eager-only switches: they turn graph mode off.
        "enable_eager_execution": "switches TF1 to eager mode",
        "enable_v2_behavior": "switches on TF2 behaviour, eager execution first",
        "wrap_function": "wraps a TF1 graph function for eager (TF2) callers",
        # Switches that turn on TF2 semantics a TF1 graph-mode script turns off (their
        # disable_* counterparts are present): functional While/If control flow,
        # elementwise Tensor ==, int TensorShape dimensions.
        "enable_control_flow_v2": "switches on TF2's functional control flow",
        "enable_tensor_equality": "switches on TF2's elementwise Tensor ==",
        "enable_v2_tensorshape": "switches on TF2's int TensorShape dimensions",
        # Accelerators and converters outside graph-mode execution.
        "tpu": "TPU system setup and TPU rewrites",
        "lite": "TFLite converter (mobile flatbuffers)",
        "mlir": "TF's MLIR compiler passes",
        # TF-internal leftover: an example op of TF's own build ("my_fact").
        "user_ops": "TF's build-system example of a user op",
    },
    "errors": {
        # A context manager yielding a TF_Status C struct for calls into TF's C API.
        "raise_exception_on_not_ok_status": "wraps TF's C API status struct",
    },
    "data": {
        # Iterates a dataset in Python (iter(dataset)): eager-only, a RuntimeError in graph
        # mode in TF1 too.
        "NumpyIterator": "eager-only: iterates the dataset in Python",
    },
}
