"""CPU (numpy) kernels of fractional pooling: FractionalMaxPool/FractionalAvgPool draw the
row and column pooling sequences (TF's GeneratePoolingSequence: random or pseudo-random
regions of k or k + 1 cells) and pool over them; their gradient ops scatter back."""

from __future__ import annotations

import math

import numpy as np

from graphcore.kernels.random_kernels import stream_of
from graphcore.kernels.registry import KernelContext, register_kernel
from graphcore.kernels.window import int_tuple, invalid, lowest, out_dtype, shape_text


def _pseudo_random_diff(rng: np.random.Generator, n_in: int, n_out: int) -> list:
    alpha = n_in / n_out
    k = n_in // n_out
    u_max1 = (k + 2) / alpha - 1
    u_max2 = (n_in + 1 - k) / alpha - (n_out - 1)
    u = rng.random() * min(u_max1, u_max2)
    cum = [1] + [int(math.ceil(alpha * (i + u))) for i in range(1, n_out)] + [n_in + 1]
    return [cum[i + 1] - cum[i] for i in range(n_out)]


def _random_diff(rng: np.random.Generator, n_in: int, n_out: int) -> list:
    k, extra = divmod(n_in, n_out)
    diff = [k + 1] * extra + [k] * (n_out - extra)
    return list(rng.permutation(diff))


def pooling_sequence(rng: np.random.Generator, n_in: int, n_out: int,
                     pseudo_random: bool) -> np.ndarray:
    """The cumulative region boundaries [0, ..., n_in] (n_out + 1 of them)."""
    diff = (_pseudo_random_diff if pseudo_random else _random_diff)(rng, n_in, n_out)
    return np.concatenate([[0], np.cumsum(diff)]).astype(np.int64)


def _regions(seq: np.ndarray, size: int, overlapping: bool) -> list[tuple[int, int]]:
    """[start, end) of each region: to the next boundary, one further when overlapping,
    clipped to the input."""
    return [(int(seq[i]), min(int(seq[i + 1]) + (1 if overlapping else 0), size))
            for i in range(len(seq) - 1)]


class _Sequences:
    """The rng of a fractional pooling node: a fixed stream per run when deterministic
    (the same regions every run), else the node's advancing stream."""

    def __init__(self, ctx: KernelContext):
        attr = ctx.node_def.attr
        self.ratio = list(attr["pooling_ratio"].list.f)
        if len(self.ratio) != 4:
            raise invalid(f"pooling_ratio field must specify 4 dimensions, got "
                          f"{len(self.ratio)}")
        if self.ratio[0] != 1.0 or self.ratio[3] != 1.0:
            raise invalid("Fractional pooling is not yet supported on the batch nor channel "
                          "dimension.")
        self.pseudo_random = attr["pseudo_random"].b
        self.overlapping = attr["overlapping"].b
        seed, seed2 = int(attr["seed"].i), int(attr["seed2"].i)
        self.fixed = None
        if attr["deterministic"].b:
            if seed == 0 and seed2 == 0:
                seed, seed2 = (int(v) for v in np.random.SeedSequence().generate_state(2))
            self.fixed = (seed, seed2)
        elif seed != 0 or seed2 != 0:
            raise invalid("Both seed and seed2 should be 0 if deterministic is false.")
        self.ctx = ctx

    def draw(self, shape: tuple) -> tuple[np.ndarray, np.ndarray]:
        out = [int(math.floor(d / r)) for d, r in zip(shape, self.ratio)]
        for d in out:
            if d <= 0:
                raise invalid(f"Computed output size must be positive, got {d}")
        if self.fixed is not None:
            rng = np.random.default_rng(list(self.fixed))
            return (pooling_sequence(rng, shape[1], out[1], self.pseudo_random),
                    pooling_sequence(rng, shape[2], out[2], self.pseudo_random))
        stream = stream_of(self.ctx)
        with stream.lock:
            return (pooling_sequence(stream.rng, shape[1], out[1], self.pseudo_random),
                    pooling_sequence(stream.rng, shape[2], out[2], self.pseudo_random))


def _fractional_pool(reduce):
    def factory(ctx: KernelContext):
        seqs = _Sequences(ctx)
        out = out_dtype(ctx)

        def compute(x):
            x = np.asarray(x)
            if x.ndim != 4:
                raise invalid(f"input must be 4-dimensional{shape_text(x.shape)}")
            rows, cols = seqs.draw(x.shape)
            rr = _regions(rows, x.shape[1], seqs.overlapping)
            cr = _regions(cols, x.shape[2], seqs.overlapping)
            y = np.empty((x.shape[0], len(rr), len(cr), x.shape[3]), dtype=out)
            for i, (r0, r1) in enumerate(rr):
                for j, (c0, c1) in enumerate(cr):
                    y[:, i, j, :] = reduce(x[:, r0:r1, c0:c1, :])
            return y, rows, cols

        return compute

    return factory


def _mean(block: np.ndarray) -> np.ndarray:
    total = block.sum(axis=(1, 2))
    count = block.shape[1] * block.shape[2]
    return total // count if block.dtype.kind in "iu" else total / count


register_kernel("FractionalMaxPool")(_fractional_pool(
    lambda block: block.max(axis=(1, 2), initial=lowest(block.dtype))))
register_kernel("FractionalAvgPool")(_fractional_pool(_mean))


def _grad_regions(shape: tuple, grad: np.ndarray, rows: object, cols: object,
                  overlapping: bool) -> tuple[list, list]:
    rows, cols = np.asarray(rows), np.asarray(cols)
    rr = _regions(rows, shape[1], overlapping)
    cr = _regions(cols, shape[2], overlapping)
    if grad.shape != (shape[0], len(rr), len(cr), shape[3]):
        raise invalid(f"out_backprop has incompatible shape {shape_text(grad.shape)}")
    return rr, cr


@register_kernel("FractionalMaxPoolGrad")
def _fractional_max_pool_grad(ctx: KernelContext):
    overlapping = ctx.node_def.attr["overlapping"].b
    out = out_dtype(ctx)

    def compute(x, orig_output, grad, rows, cols):
        x, grad = np.asarray(x), np.asarray(grad)
        rr, cr = _grad_regions(x.shape, grad, rows, cols, overlapping)
        dx = np.zeros(x.shape, dtype=out)
        n_idx, c_idx = np.indices((x.shape[0], x.shape[3]))
        for i, (r0, r1) in enumerate(rr):
            for j, (c0, c1) in enumerate(cr):
                block = x[:, r0:r1, c0:c1, :]
                flat = block.reshape(x.shape[0], -1, x.shape[3]).argmax(axis=1)
                bi, bj = np.unravel_index(flat, (r1 - r0, c1 - c0))
                np.add.at(dx, (n_idx, r0 + bi, c0 + bj, c_idx), grad[:, i, j, :])
        return (dx,)

    return compute


@register_kernel("FractionalAvgPoolGrad")
def _fractional_avg_pool_grad(ctx: KernelContext):
    overlapping = ctx.node_def.attr["overlapping"].b
    out = out_dtype(ctx)

    def compute(orig_shape, grad, rows, cols):
        shape, grad = int_tuple(orig_shape), np.asarray(grad)
        if len(shape) != 4:
            raise invalid(f"orig_input_tensor_shape must be 4-dimensional, got {len(shape)}")
        rr, cr = _grad_regions(shape, grad, rows, cols, overlapping)
        dx = np.zeros(shape, dtype=np.float64)
        for i, (r0, r1) in enumerate(rr):
            for j, (c0, c1) in enumerate(cr):
                count = (r1 - r0) * (c1 - c0)
                dx[:, r0:r1, c0:c1, :] += grad[:, i, j, None, None, :] / count
        return (dx.astype(out),)

    return compute
