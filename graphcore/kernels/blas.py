"""The CPU BLAS path of graphcore's matrix kernels (MatMul, BatchMatMulV2, Conv2D).

graphcore chooses its GEMM libraries itself instead of inheriting numpy's:

- float32 2-D products: oneDNN's ``dnnl_sgemm`` (the ``onednn-cpu-gomp`` wheel, x86-64
  Linux), the library TensorFlow's own CPU MatMul runs on x86. On the project's 2-core
  AVX-512 machine it is about 5% faster than OpenBLAS on 2048^3 and twice as fast on the
  256x64x256 products of a small MLP, where OpenBLAS's threading costs more than it gains.
- float64, batched products, and float32 where oneDNN is missing: a dedicated OpenBLAS,
  the ``scipy-openblas32`` wheel, loaded privately. OpenBLAS picks its compute kernel once,
  when it loads, from the CPU or from ``OPENBLAS_CORETYPE``; machines whose CPUs older
  builds mishandled set that variable (and ``OPENBLAS_L2_SIZE``) so that numpy's copy
  runs a safe, slower kernel, about half as fast there. graphcore's pinned, current build
  loads with both variables hidden and detects the CPU itself.
- numpy's matmul for every other dtype, for products small enough that a ctypes call
  costs more than it saves, and for everything when no library loads, when a library
  disagrees with numpy in the check below, or when ``GRAPHCORE_BLAS=numpy``
  (``GRAPHCORE_BLAS=openblas`` skips oneDNN).

Each library must agree with numpy's float64 matmul on a set of products (kernel tails,
transposes, one large enough to thread) before it is used. Kernels pick their product
function when a plan is built (:func:`matmul_fn`), so the choice costs nothing per step.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib.metadata
import importlib.util
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from graphcore.kernels import intra_op
from graphcore.kernels.intra_op import TeamTimings

_log = logging.getLogger("graphcore.blas")

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)
# Read by OpenBLAS when it loads; hidden while the dedicated copy loads.
_FORCING_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112
# m*n*k under which OpenBLAS runs a product on the calling thread alone (its
# GEMM_MULTITHREAD_THRESHOLD): there the libraries compute alike, and numpy's call costs
# about 1 us where a ctypes call costs about 3.
_SMALL = 65536 * 4

# Multiply-adds under which a oneDNN product runs on one thread: waking OpenMP's other
# thread costs more than it saves there, and much more when the cores are shared (the
# woken thread waits for a core while the caller waits at the barrier).  The digits
# MLP's [256,256]x[256,10] products (655k) are above it: on idle cores two threads
# took 22-25 us against one thread's 26-38 us.
SERIAL_MACS = 1 << 19
# Above it, each product shape times both team sizes (the intra-op thread count, and one
# thread) and runs on the faster: intra_op.TeamTimings.
Product = Callable[[np.ndarray, np.ndarray, bool, bool], np.ndarray]


def _ptr(x: np.ndarray) -> ctypes.c_void_p:
    return ctypes.c_void_p(x.__array_interface__["data"][0])


class _OpenBLAS:
    """ctypes bindings to the gemm entry points of one loaded OpenBLAS.

    The entry points carry no argtypes: ints pass as C ints, pointers as c_void_p and
    alpha/beta as prebuilt scalars, which halves ctypes' per-call cost (to about 3 us)."""

    name = "OpenBLAS"

    def __init__(self, path: str):
        self.path = path
        self._lib = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
        self._lib.scipy_openblas_get_corename.restype = ctypes.c_char_p
        self.kernel = self._lib.scipy_openblas_get_corename().decode()
        # dtype -> (gemm, gemm_batch_strided, alpha = 1, beta = 0)
        self.routines: dict[np.dtype, tuple[Any, Any, Any, Any]] = {}
        for dtype, prefix, scalar in ((F32, "s", ctypes.c_float),
                                      (F64, "d", ctypes.c_double)):
            self.routines[dtype] = (getattr(self._lib, f"scipy_cblas_{prefix}gemm"),
                                    getattr(self._lib, f"scipy_cblas_{prefix}gemm_batch_strided"),
                                    scalar(1.0), scalar(0.0))

    @property
    def dtypes(self) -> tuple[np.dtype, ...]:
        return tuple(self.routines)

    def gemm(self, out: np.ndarray, a: np.ndarray, ta: bool, lda: int, b: np.ndarray,
             tb: bool, ldb: int, m: int, n: int, k: int) -> None:
        gemm, _, one, zero = self.routines[out.dtype]
        gemm(_ROW_MAJOR, _TRANS if ta else _NO_TRANS, _TRANS if tb else _NO_TRANS, m, n, k,
             one, _ptr(a), lda, _ptr(b), ldb, zero, _ptr(out), n)


class _OneDNN:
    """ctypes binding to oneDNN's row-major ``dnnl_sgemm`` (float32 only)."""

    name = "oneDNN"
    dtypes = (F32,)

    def __init__(self, path: str):
        self.path = path
        self._lib = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)

        class _Version(ctypes.Structure):
            _fields_ = [("major", ctypes.c_int), ("minor", ctypes.c_int),
                        ("patch", ctypes.c_int), ("hash", ctypes.c_char_p),
                        ("cpu_runtime", ctypes.c_uint), ("gpu_runtime", ctypes.c_uint)]

        self._lib.dnnl_version.restype = ctypes.POINTER(_Version)
        v = self._lib.dnnl_version().contents
        self.kernel = f"v{v.major}.{v.minor}.{v.patch}"
        self._sgemm = self._lib.dnnl_sgemm
        self._sgemm.restype = ctypes.c_int
        self._flags = {False: ctypes.c_char(b"N"), True: ctypes.c_char(b"T")}
        self._one, self._zero = ctypes.c_float(1.0), ctypes.c_float(0.0)
        # The OpenMP runtime oneDNN runs on (loaded with it): its team size is set per
        # calling thread, as OpenMP keeps it.
        try:
            gomp = ctypes.CDLL("libgomp.so.1")
            self._set_team = gomp.omp_set_num_threads
            # At most what OpenMP would use by itself (OMP_NUM_THREADS, as Ray's actors
            # set it, or one per core).
            self.max_team = max(int(gomp.omp_get_max_threads()), 1)
        except (OSError, AttributeError):
            self._set_team = None
            self.max_team = 0
        self._team = threading.local()
        # (m, n, k, ta, tb) -> the product shape's timings
        self._timings = TeamTimings()

    def gemm(self, out: np.ndarray, a: np.ndarray, ta: bool, lda: int, b: np.ndarray,
             tb: bool, ldb: int, m: int, n: int, k: int) -> None:
        full = min(intra_op.threads(), self.max_team) if self._set_team is not None else 1
        if full <= 1 or m * n * k < SERIAL_MACS:
            self._call(1 if self._set_team is not None else 0, out, a, ta, lda, b, tb, ldb,
                       m, n, k)
            return
        # The intra-op thread count (intra_op_parallelism_threads) or one thread, by the
        # timings of this shape (see TEAM_PROBE).
        stats, one, probe = self._timings.choose((m, n, k, ta, tb))
        t0 = time.perf_counter()
        self._call(1 if one else full, out, a, ta, lda, b, tb, ldb, m, n, k)
        self._timings.record(stats, one, probe, time.perf_counter() - t0)

    @property
    def library(self) -> ctypes.CDLL:
        """The loaded libdnnl (its primitive API: :mod:`graphcore.kernels.dnnl_primitives`)."""
        return self._lib

    def set_team(self, team: int) -> None:
        """OpenMP's team size on this thread (0: left alone)."""
        if team and self._set_team is not None and getattr(self._team, "size", None) != team:
            self._set_team(team)
            self._team.size = team

    def _call(self, team: int, out: np.ndarray, a: np.ndarray, ta: bool, lda: int,
              b: np.ndarray, tb: bool, ldb: int, m: int, n: int, k: int) -> None:
        """One sgemm with OpenMP's team on this thread set to ``team`` (0: left alone)."""
        self.set_team(team)
        i64 = ctypes.c_int64
        status = self._sgemm(self._flags[ta], self._flags[tb], i64(m), i64(n), i64(k),
                             self._one, _ptr(a), i64(lda), _ptr(b), i64(ldb), self._zero,
                             _ptr(out), i64(n))
        if status != 0:
            raise RuntimeError(f"dnnl_sgemm failed with status {status} for a "
                               f"[{m},{k}] x [{k},{n}] product")


def _openblas_path() -> str | None:
    spec = importlib.util.find_spec("scipy_openblas32")
    if spec is None or not spec.submodule_search_locations:
        return None
    lib_dir = os.path.join(spec.submodule_search_locations[0], "lib")
    names = sorted(n for n in os.listdir(lib_dir)
                   if n.startswith("libscipy_openblas") and (".so" in n or n.endswith(".dylib")))
    return os.path.join(lib_dir, names[0]) if names else None


def _onednn_path() -> str | None:
    try:
        dist = importlib.metadata.distribution("onednn-cpu-gomp")
    except importlib.metadata.PackageNotFoundError:
        return None
    for f in dist.files or []:
        if f.name == "libdnnl.so.3":
            return os.path.normpath(str(dist.locate_file(f)))
    return None


@contextlib.contextmanager
def _environ(changes: dict[str, str | None]) -> Iterator[None]:
    """The environment with ``changes`` (None removes a variable) while a library loads
    and reads it; restored afterwards."""
    saved = {k: os.environ.get(k) for k in changes}
    for k, v in changes.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _load_openblas(path: str) -> _OpenBLAS:
    with _environ(dict.fromkeys(_FORCING_VARIABLES)):
        return _OpenBLAS(path)


def _load_onednn(path: str) -> _OneDNN:
    """Loads oneDNN (and with it libgomp, which reads its settings once, when it loads).
    Unless the user chose a wait policy, OpenMP's idle threads spin for 10k rounds rather
    than libgomp's 300k (milliseconds here) before they sleep: the spinning thread would
    otherwise take a core from the numpy kernels that follow a product, and from the
    intra-op threads of the training updates."""
    chosen = {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT"} & os.environ.keys()
    with _environ({} if chosen else {"GOMP_SPINCOUNT": "10000"}):
        return _OneDNN(path)


def _agrees_with_numpy(lib: Any) -> bool:
    """Products with kernel tails, both transposes, and one large enough to thread."""
    rng = np.random.default_rng(0)
    for dtype in lib.dtypes:
        for m, n, k, ta, tb in ((1, 1, 1, False, False), (67, 129, 33, False, True),
                                (130, 17, 258, True, False), (301, 287, 263, True, True)):
            a = rng.standard_normal((k, m) if ta else (m, k)).astype(dtype)
            b = rng.standard_normal((n, k) if tb else (k, n)).astype(dtype)
            want = np.matmul(a.T.astype(F64) if ta else a.astype(F64),
                             b.T.astype(F64) if tb else b.astype(F64))
            got = _gemm(lib, a, b, ta, tb)
            tol = 1e-3 if dtype == F32 else 1e-10
            if not np.allclose(got, want, rtol=tol, atol=tol * np.sqrt(k)):
                return False
    return True


class _Choice:
    """The libraries chosen for this process: per dtype for 2-D products, and for batches."""

    def __init__(self) -> None:
        self.gemm: dict[np.dtype, Any] = {}
        self.batch: _OpenBLAS | None = None


_lock = threading.Lock()
_chosen: _Choice | None = None


def _try(loader: Callable[[str], Any], path: str | None) -> Any:
    if path is None:
        return None
    try:
        lib = loader(path)
    except (OSError, AttributeError) as e:  # a missing runtime (libgomp) or symbol
        _log.warning("could not load %s: %s", path, e)
        return None
    if not _agrees_with_numpy(lib):
        _log.warning("%s at %s (%s) disagrees with numpy's matmul; not used", lib.name,
                     lib.path, lib.kernel)
        return None
    return lib


def _choice() -> _Choice:
    global _chosen
    if _chosen is not None:
        return _chosen
    with _lock:
        if _chosen is None:
            wanted = os.environ.get("GRAPHCORE_BLAS", "auto")
            choice = _Choice()
            if wanted != "numpy":
                openblas = _try(_load_openblas, _openblas_path())
                if openblas is not None:
                    choice.gemm = dict.fromkeys(openblas.dtypes, openblas)
                    choice.batch = openblas
                onednn = _try(_load_onednn, _onednn_path()) if wanted == "auto" else None
                if onednn is not None:
                    choice.gemm[F32] = onednn
            _chosen = choice
    return _chosen


def onednn() -> _OneDNN | None:
    """The oneDNN chosen for float32 products, or None (absent, disagreeing with numpy, or
    ``GRAPHCORE_BLAS`` set otherwise): the conv and pool primitives run on the same copy
    and the same OpenMP teams."""
    lib = _choice().gemm.get(F32)
    return lib if isinstance(lib, _OneDNN) else None


def info() -> dict[str, str]:
    """Which library multiplies each kind of product: ``"float32"``, ``"float64"`` and
    ``"batch"`` map to "<library> <kernel or version> (<path>)", or "numpy"."""
    choice = _choice()

    def describe(lib: Any) -> str:
        return "numpy" if lib is None else f"{lib.name} {lib.kernel} ({lib.path})"

    return {"float32": describe(choice.gemm.get(F32)),
            "float64": describe(choice.gemm.get(F64)), "batch": describe(choice.batch)}


def _operand(x: np.ndarray, transposed: bool) -> tuple[np.ndarray, bool, int]:
    """A row-major buffer for x (transposed or not), the BLAS transpose flag, and ld."""
    if x.flags.c_contiguous:
        return x, transposed, x.shape[-1]
    if x.ndim == 2 and x.flags.f_contiguous:  # x.T is row-major: flip the flag
        return x.T, not transposed, x.shape[0]
    x = np.ascontiguousarray(x)
    return x, transposed, x.shape[-1]


def _gemm(lib: Any, a: np.ndarray, b: np.ndarray, ta: bool, tb: bool) -> np.ndarray:
    m, k = (a.shape[1], a.shape[0]) if ta else a.shape
    n = b.shape[0] if tb else b.shape[1]
    out = np.empty((m, n), dtype=a.dtype)
    if m == 0 or n == 0 or k == 0:
        out.fill(0)
        return out
    a, ta, lda = _operand(a, ta)
    b, tb, ldb = _operand(b, tb)
    lib.gemm(out, a, ta, lda, b, tb, ldb, m, n, k)
    return out


def matmul_fn(dtype: np.dtype) -> Product:
    """``f(a, b, transpose_a, transpose_b)`` for 2-D a and b of ``dtype`` (shapes checked
    by the caller)."""
    dtype = np.dtype(dtype)
    lib = _choice().gemm.get(dtype)
    if lib is None:
        return _numpy_matmul

    def product(a: np.ndarray, b: np.ndarray, ta: bool, tb: bool) -> np.ndarray:
        if a.dtype != dtype or b.dtype != dtype or \
                a.size * (b.shape[0] if tb else b.shape[1]) < _SMALL:
            return _numpy_matmul(a, b, ta, tb)
        return _gemm(lib, a, b, ta, tb)

    return product


def matmul(a: np.ndarray, b: np.ndarray, transpose_a: bool = False,
           transpose_b: bool = False) -> np.ndarray:
    """One 2-D product, its library chosen by the operands' dtype (for kernels such as
    Conv2D's that multiply matrices of their own making)."""
    return matmul_fn(np.result_type(a, b))(a, b, transpose_a, transpose_b)


def _numpy_matmul(a: np.ndarray, b: np.ndarray, ta: bool, tb: bool) -> np.ndarray:
    return np.matmul(a.T if ta else a, b.T if tb else b)


def batch_matmul_fn(dtype: np.dtype) -> Product:
    """``f(x, y, adj_x, adj_y)`` for batches of matrices (batch shapes checked and
    broadcastable): one strided batched gemm when x's and y's batch shapes are equal or one
    side is a single matrix, numpy's matmul otherwise."""
    dtype = np.dtype(dtype)
    lib = _choice().batch
    if lib is None or dtype not in lib.dtypes:
        return _numpy_batch_matmul

    def product(x: np.ndarray, y: np.ndarray, adj_x: bool, adj_y: bool) -> np.ndarray:
        # Small batches (all products' multiply-adds under _SMALL) stay in numpy: OpenBLAS's
        # batched call threads over the batch, and on shared cores a 16 x 7x12x7 attention
        # product took milliseconds there against microseconds in numpy.
        if x.dtype != dtype or y.dtype != dtype or \
                max(x.size * y.shape[-2 if adj_y else -1],
                    y.size * x.shape[-1 if adj_x else -2]) < _SMALL:
            return _numpy_batch_matmul(x, y, adj_x, adj_y)
        return _batch_gemm(lib, x, y, adj_x, adj_y)

    return product


def _adjoint(m: np.ndarray) -> np.ndarray:
    m = np.swapaxes(m, -1, -2)
    return np.conj(m) if m.dtype.kind == "c" else m


def _numpy_batch_matmul(x: np.ndarray, y: np.ndarray, adj_x: bool, adj_y: bool) -> np.ndarray:
    return np.matmul(_adjoint(x) if adj_x else x, _adjoint(y) if adj_y else y)


def _batch_gemm(lib: _OpenBLAS, x: np.ndarray, y: np.ndarray, ax: bool,
                ay: bool) -> np.ndarray:
    bx, by = x.shape[:-2], y.shape[:-2]
    if (bx != by and x.ndim > 2 and y.ndim > 2) or max(x.size, y.size) >= 2**31:
        return _numpy_batch_matmul(x, y, ax, ay)
    batch = bx if x.ndim >= y.ndim else by
    count = int(np.prod(batch, dtype=np.int64))
    m = x.shape[-1] if ax else x.shape[-2]
    k = x.shape[-2] if ax else x.shape[-1]
    n = y.shape[-2] if ay else y.shape[-1]
    out = np.empty(batch + (m, n), dtype=x.dtype)
    if out.size == 0 or k == 0:
        out.fill(0)
        return out
    x = np.ascontiguousarray(x)
    y = np.ascontiguousarray(y)
    # A single matrix on one side is shared by every product: stride 0.
    sx = m * k if x.ndim > 2 else 0
    sy = k * n if y.ndim > 2 else 0
    _, gemm_batch, one, zero = lib.routines[out.dtype]
    gemm_batch(_ROW_MAJOR, _TRANS if ax else _NO_TRANS, _TRANS if ay else _NO_TRANS, m, n, k,
               one, _ptr(x), x.shape[-1], sx, _ptr(y), y.shape[-1], sy, zero, _ptr(out), n,
               m * n, count)
    return out
