"""CPU kernels of the tf.data ops (:mod:`graphcore.ops.dataset_ops`).

A dataset op's ``variant`` output is a :class:`DatasetObject`: a recipe whose
``iterate()`` starts a fresh pass, yielding elements as lists of numpy components. The
chain runs in the engine: an iterator resource (IteratorV2 / OneShotIterator in the task's
store) holds a pass and IteratorGetNext pulls the next element. Functions (map, filter,
flat_map, interleave, one-shot dataset factories) are called through the kernel context's
function library.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from graphcore.framework import errors
from graphcore.kernels import philox, reader_kernels
from graphcore.kernels.registry import KernelContext, register_kernel

Element = list


def _shape_text(shape: tuple) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _row(array: np.ndarray, i: int) -> np.ndarray:
    """Row ``i`` of ``array`` as an array (a 0-d one for scalars), dtype kept."""
    return array[i:i + 1].reshape(array.shape[1:])


class DatasetObject:
    """A dataset: ``iterate()`` yields its elements, a fresh pass per call."""

    def __init__(self, iterate: Callable[[], Iterator[Element]]):
        self.iterate = iterate


def _function(ctx: KernelContext, attr: str) -> Callable[..., list]:
    name = ctx.node_def.attr[attr].func.name
    library = ctx.function_library
    if library is None:
        raise errors.UnimplementedError(
            None, None, f"{ctx.op_type} needs a function library; this engine has none")
    return library.instantiate(name)


def _dataset_kernel(op_type: str):
    """Registers ``build(ctx) -> compute(*inputs) -> DatasetObject`` for ``op_type``."""

    def decorate(build):
        def factory(ctx: KernelContext):
            make = build(ctx)
            return lambda *inputs: (make(*inputs),)
        register_kernel(op_type)(factory)
        return build

    return decorate


# -- sources ---------------------------------------------------------------------------
@_dataset_kernel("TensorSliceDataset")
def _tensor_slice(ctx):
    def make(*components):
        arrays = [np.asarray(c) for c in components]
        n = arrays[0].shape[0] if arrays[0].ndim else None
        for a in arrays:
            if not a.ndim or a.shape[0] != n:
                raise errors.InvalidArgumentError(
                    None, None, "All components must have the same size in the 0th "
                                f"dimension, got {n} and "
                                f"{a.shape[0] if a.ndim else 'a scalar'}")

        def iterate():
            for i in range(n):
                yield [_row(a, i) for a in arrays]
        return DatasetObject(iterate)
    return make


@_dataset_kernel("TensorDataset")
def _tensor(ctx):
    def make(*components):
        element = [np.asarray(c) for c in components]
        return DatasetObject(lambda: iter([element]))
    return make


@_dataset_kernel("RangeDataset")
def _range(ctx):
    dtype = ctx.attr("output_types")[0].as_numpy_dtype

    def make(start, stop, step):
        if int(step) == 0:
            raise errors.InvalidArgumentError(None, None, "step must be a non-zero integer.")
        values = range(int(start), int(stop), int(step))
        return DatasetObject(lambda: ([np.asarray(v, dtype)] for v in values))
    return make


@_dataset_kernel("RandomDataset")
def _random(ctx):
    """TF's RandomDataset: endless int64 values, the uint32 outputs of Philox seeded by
    (seed, seed2) one at a time, the same sequence for every pass; (0, 0) seeds at random
    once."""
    def make(seed, seed2):
        seeds = (int(seed), int(seed2))
        if seeds == (0, 0):
            seeds = tuple(int.from_bytes(os.urandom(8), "little") for _ in range(2))

        def iterate():
            draw = philox.SingleSample(philox.Philox.from_seeds(*seeds))
            while True:
                yield [np.asarray(draw(), np.int64)]
        return DatasetObject(iterate)
    return make


def _files(filenames: Any) -> list[bytes]:
    return [f if isinstance(f, bytes) else str(f).encode()
            for f in np.asarray(filenames, dtype=object).ravel()]


def _file_dataset(records: Callable[[bytes, bytes], Iterator[bytes]]):
    """The build function of a dataset of ``records(path, data)`` over its files in
    order, ``data`` each file's bytes inflated per ``compression_type``."""

    def build(ctx):
        fixed = ctx.op_type == "FixedLengthRecordDatasetV2"

        def make(filenames, *args):
            files = _files(filenames)
            # (compression_type, buffer_size), or (header, record, footer bytes,
            # buffer_size, compression_type) for fixed-length records.
            compression = _files(args[-1] if fixed else args[0])[0].decode()
            sizes = tuple(int(a) for a in args[:3]) if fixed else ()

            def iterate():
                for f in files:
                    data = reader_kernels.decompress(reader_kernels.read_file(f),
                                                     compression)
                    for record in records(f, data, *sizes):
                        yield [np.asarray(record, dtype=object)]
            return DatasetObject(iterate)
        return make
    return build


def _tf_records(path: bytes, data: bytes, *_: int) -> Iterator[bytes]:
    return (record for _, record in reader_kernels.tf_records(data, path.decode()))


def _lines(path: bytes, data: bytes, *_: int) -> list[bytes]:
    return reader_kernels.text_lines(data)


def _fixed_length(path: bytes, data: bytes, header: int, record: int,
                  footer: int) -> Iterator[bytes]:
    body = len(data) - header - footer
    if body % record:
        raise errors.InvalidArgumentError(
            None, None, f"Excluding the header ({header} bytes) and footer ({footer} bytes), "
                        f"input file \"{path.decode()}\" has body length {body} bytes, which "
                        f"is not an exact multiple of the record length ({record} bytes).")
    return reader_kernels.fixed_length_records(data, header, record, footer)


_dataset_kernel("TFRecordDataset")(_file_dataset(_tf_records))
_dataset_kernel("TextLineDataset")(_file_dataset(_lines))
_dataset_kernel("FixedLengthRecordDatasetV2")(_file_dataset(_fixed_length))


# -- transformations with functions --------------------------------------------------------
def _map(ctx):
    fn = _function(ctx, "f")

    def make(dataset, *captured):
        return DatasetObject(lambda: (list(fn(*e, *captured)) for e in dataset.iterate()))
    return make


_dataset_kernel("MapDataset")(_map)


@_dataset_kernel("ParallelMapDatasetV2")
def _parallel_map(ctx):
    # Elements are mapped in order, one at a time: the sequence is the deterministic one.
    make_map = _map(ctx)
    return lambda dataset, *rest: make_map(dataset, *rest[:-1])


@_dataset_kernel("FilterDataset")
def _filter(ctx):
    fn = _function(ctx, "predicate")

    def make(dataset, *captured):
        return DatasetObject(lambda: (e for e in dataset.iterate()
                                      if bool(fn(*e, *captured)[0])))
    return make


@_dataset_kernel("FlatMapDataset")
def _flat_map(ctx):
    fn = _function(ctx, "f")

    def make(dataset, *captured):
        def iterate():
            for e in dataset.iterate():
                yield from fn(*e, *captured)[0].iterate()
        return DatasetObject(iterate)
    return make


@_dataset_kernel("InterleaveDataset")
def _interleave(ctx):
    fn = _function(ctx, "f")

    def make(dataset, *rest):
        captured, cycle_length, block_length = rest[:-2], int(rest[-2]), int(rest[-1])
        if cycle_length <= 0:  # AUTOTUNE: TF's default of one per core
            cycle_length = os.cpu_count() or 1

        def iterate():
            # TF's InterleaveDataset: a finished slot is refilled from the input when the
            # cycle comes back to it; each slot gives ``block_length`` elements in turn.
            inputs = dataset.iterate()
            cycle: list = [None] * cycle_length
            index = block = n_open = 0
            end_of_input = False
            while not end_of_input or n_open:
                current = cycle[index]
                if current is not None:
                    e = next(current, None)
                    if e is not None:
                        yield e
                        block += 1
                        if block < block_length:
                            continue
                    else:
                        cycle[index] = None
                        n_open -= 1
                elif not end_of_input:
                    e = next(inputs, None)
                    if e is None:
                        end_of_input = True
                    else:
                        cycle[index] = fn(*e, *captured)[0].iterate()
                        n_open += 1
                    continue
                block = 0
                index = (index + 1) % cycle_length
        return DatasetObject(iterate)
    return make


@_dataset_kernel("GeneratorDataset")
def _generator(ctx):
    init, next_fn, finalize = (_function(ctx, a) for a in ("init_func", "next_func",
                                                            "finalize_func"))
    counts = [len(ctx.node_def.attr[a].list.type) for a in
              ("Tinit_func_args", "Tnext_func_args")]

    def make(*args):
        init_args = args[:counts[0]]
        next_args = args[counts[0]:counts[0] + counts[1]]
        finalize_args = args[counts[0] + counts[1]:]

        def iterate():
            # init_func makes the pass's state; next_func's OutOfRange ends it.
            state = init(*init_args)
            try:
                while True:
                    try:
                        element = next_fn(*state, *next_args)
                    except errors.OutOfRangeError:
                        return
                    yield list(element)
            finally:
                finalize(*state, *finalize_args)
        return DatasetObject(iterate)
    return make


# -- batching ----------------------------------------------------------------------------
def _check_same_shapes(batch: list[Element]) -> None:
    first = batch[0]
    for e in batch[1:]:
        for a, b in zip(first, e):
            if np.shape(a) != np.shape(b):
                raise errors.InvalidArgumentError(
                    None, None, "Cannot add tensor to the batch: number of elements does "
                                f"not match. Shapes are: [tensor]: "
                                f"{_shape_text(np.shape(a))}, [batch]: "
                                f"{_shape_text(np.shape(b))}")


def _batches(dataset: DatasetObject, size: int, drop: bool) -> Iterator[list[Element]]:
    batch: list[Element] = []
    for e in dataset.iterate():
        batch.append(e)
        if len(batch) == size:
            yield batch
            batch = []
    if batch and not drop:
        yield batch


def _check_batch_size(size: int) -> int:
    if size <= 0:
        raise errors.InvalidArgumentError(None, None, "Batch size must be greater than zero.")
    return size


@_dataset_kernel("BatchDatasetV2")
def _batch(ctx):
    def make(dataset, batch_size, drop_remainder):
        size, drop = _check_batch_size(int(batch_size)), bool(drop_remainder)

        def iterate():
            for batch in _batches(dataset, size, drop):
                _check_same_shapes(batch)
                yield [np.stack([e[k] for e in batch]) for k in range(len(batch[0]))]
        return DatasetObject(iterate)
    return make


@_dataset_kernel("PaddedBatchDatasetV2")
def _padded_batch(ctx):
    n = ctx.node_def.attr["N"].i

    def make(dataset, batch_size, *rest):
        size = _check_batch_size(int(batch_size))
        padded_shapes = [np.asarray(s) for s in rest[:n]]
        padding_values = rest[n:2 * n]
        drop = bool(rest[2 * n])

        def iterate():
            for batch in _batches(dataset, size, drop):
                out = []
                for k in range(n):
                    parts = [np.asarray(e[k]) for e in batch]
                    want = padded_shapes[k]
                    full = tuple(max(p.shape[d] for p in parts) if want[d] < 0
                                 else int(want[d]) for d in range(len(want)))
                    for p in parts:
                        if any(s > f for s, f in zip(p.shape, full)):
                            raise errors.InvalidArgumentError(
                                None, None, f"Attempted to pad to a smaller size than the "
                                            f"input element. Padded shape "
                                            f"{_shape_text(full)}, element shape "
                                            f"{_shape_text(p.shape)}")
                    value = np.full((len(parts),) + full, padding_values[k],
                                    dtype=parts[0].dtype)
                    for j, p in enumerate(parts):
                        value[(j,) + tuple(slice(0, d) for d in p.shape)] = p
                    out.append(value)
                yield out
        return DatasetObject(iterate)
    return make


@_dataset_kernel("UnbatchDataset")
def _unbatch(ctx):
    def make(dataset):
        def iterate():
            for e in dataset.iterate():
                arrays = [np.asarray(c) for c in e]
                for i in range(arrays[0].shape[0]):
                    yield [_row(a, i) for a in arrays]
        return DatasetObject(iterate)
    return make


# -- order and count ---------------------------------------------------------------------
@_dataset_kernel("ShuffleDataset")
def _shuffle(ctx):
    """TF's shuffle (core/kernels/data/shuffle_dataset_op.cc), the same order for the same
    seeds.  The dataset holds a seed generator: with ``reshuffle_each_iteration`` a Philox
    stream seeded by (seed, seed2) whose next two uint32 seed each new pass (a repeat's
    epochs), else (seed, seed2) itself for every pass; (0, 0) means seeds drawn at random
    once.  A pass fills a ring buffer of ``buffer_size`` and outputs the element at a
    random offset ``r % n`` from the oldest one, which takes its place."""
    reshuffle = ctx.node_def.attr["reshuffle_each_iteration"].b

    def make(dataset, buffer_size, seed, seed2):
        size = int(buffer_size)
        if size <= 0:
            raise errors.InvalidArgumentError(
                None, None, "buffer_size must be greater than zero.")
        seeds = (int(seed), int(seed2))
        if seeds == (0, 0):
            seeds = tuple(int.from_bytes(os.urandom(8), "little") for _ in range(2))
        seed_stream = philox.SingleSample(philox.Philox.from_seeds(*seeds), batch=1) \
            if reshuffle else None
        lock = threading.Lock()

        def iterate():
            if seed_stream is None:
                pass_seeds = seeds
            else:
                with lock:
                    pass_seeds = (seed_stream(), seed_stream())
            draw = philox.SingleSample(philox.Philox.from_seeds(*pass_seeds))
            buffer: list = [None] * size
            first = last = 0  # the elements held are buffer[first % size:last % size]

            def pop():
                nonlocal first
                index = (first + draw() % (last - first)) % size
                out = buffer[index]
                buffer[index] = buffer[first % size]
                buffer[first % size] = None
                first += 1
                return out

            for e in dataset.iterate():
                buffer[last % size] = e
                last += 1
                if last - first == size:
                    yield pop()
            while last > first:
                yield pop()
        return DatasetObject(iterate)
    return make


@_dataset_kernel("RepeatDataset")
def _repeat(ctx):
    def make(dataset, count):
        n = int(count)

        def iterate():
            done = 0
            while n < 0 or done < n:
                empty = True
                for e in dataset.iterate():
                    empty = False
                    yield e
                if empty:
                    return  # an empty input repeats to nothing, not a hang
                done += 1
        return DatasetObject(iterate)
    return make


@_dataset_kernel("TakeDataset")
def _take(ctx):
    def make(dataset, count):
        n = int(count)

        def iterate():
            if n == 0:
                return
            for i, e in enumerate(dataset.iterate(), 1):
                yield e
                if i == n:
                    return
        return DatasetObject(iterate)
    return make


@_dataset_kernel("SkipDataset")
def _skip(ctx):
    def make(dataset, count):
        n = int(count)

        def iterate():
            for i, e in enumerate(dataset.iterate()):
                if n < 0:
                    return
                if i >= n:
                    yield e
        return DatasetObject(iterate)
    return make


@_dataset_kernel("GroupByWindowDataset")
def _group_by_window(ctx):
    """TF's GroupByWindowDatasetOp: elements gathered per key; a full window (its size
    from window_size_func, once per key) is reduced and its dataset's elements given at
    once; at the end of the input the groups left are flushed smallest key first."""
    key_fn = _function(ctx, "key_func")
    reduce_fn = _function(ctx, "reduce_func")
    size_fn = _function(ctx, "window_size_func")
    nk = len(ctx.attr("Tkey_func_other_arguments"))
    nr = len(ctx.attr("Treduce_func_other_arguments"))

    def scalar_int64(values: list, what: str) -> int:
        if len(values) != 1 or np.asarray(values[0]).dtype != np.int64 or \
                np.asarray(values[0]).size != 1:
            raise errors.InvalidArgumentError(None, None, f"`{what}` must return a scalar "
                                                          "int64.")
        return int(np.asarray(values[0]).reshape(()))

    def make(dataset, *captured):
        kc, rc, wc = captured[:nk], captured[nk:nk + nr], captured[nk + nr:]

        def iterate():
            groups: dict[int, list] = {}
            sizes: dict[int, int] = {}

            def flush(key):
                elements = groups[key]
                window = DatasetObject(lambda: iter(list(elements)))
                yield from reduce_fn(np.int64(key), window, *rc)[0].iterate()
                del groups[key]

            for e in dataset.iterate():
                key = scalar_int64(key_fn(*e, *kc), "key_func")
                if key not in sizes:
                    size = scalar_int64(size_fn(np.int64(key), *wc), "window_size_func")
                    if size <= 0:
                        raise errors.InvalidArgumentError(
                            None, None, f"Window size must be greater than zero, but got "
                                        f"{size}.")
                    sizes[key] = size
                group = groups.setdefault(key, [])
                group.append(e)
                if len(group) == sizes[key]:
                    yield from flush(key)
            while groups:
                yield from flush(min(groups))
        return DatasetObject(iterate)
    return make


@_dataset_kernel("ShardDataset")
def _shard(ctx):
    def make(dataset, num_shards, index):
        n, i = int(num_shards), int(index)
        if n <= 0:
            raise errors.InvalidArgumentError(
                None, None, f"Number of shards must be greater than zero (currently "
                            f"num_shards = {n}).")
        if not 0 <= i < n:
            raise errors.InvalidArgumentError(
                None, None, f"Index must be between 0 and {n - 1} (currently index = {i}).")

        def iterate():
            for k, e in enumerate(dataset.iterate()):
                if k % n == i:
                    yield e
        return DatasetObject(iterate)
    return make


@_dataset_kernel("PrefetchDataset")
def _prefetch(ctx):
    # Elements come in the same order either way; production is on demand.
    return lambda dataset, buffer_size: dataset


@_dataset_kernel("CacheDataset")
def _cache(ctx):
    def make(dataset, filename):
        if _files(filename)[0]:
            raise errors.UnimplementedError(
                None, None, "graphcore caches datasets in memory only (filename='')")
        cached: list = []
        complete = [False]

        def iterate():
            if complete[0]:
                yield from cached
                return
            seen = []
            for e in dataset.iterate():
                seen.append(e)
                yield e
            cached[:] = seen
            complete[0] = True
        return DatasetObject(iterate)
    return make


@_dataset_kernel("ConcatenateDataset")
def _concatenate(ctx):
    def make(first, second):
        def iterate():
            yield from first.iterate()
            yield from second.iterate()
        return DatasetObject(iterate)
    return make


@_dataset_kernel("ZipDataset")
def _zip(ctx):
    def make(*datasets):
        def iterate():
            for elements in zip(*[d.iterate() for d in datasets]):
                yield [c for e in elements for c in e]
        return DatasetObject(iterate)
    return make


# -- iterators ---------------------------------------------------------------------------
class IteratorResource:
    """An iterator: the current pass over the dataset it was last made from."""

    def __init__(self, name: str):
        self.name = name
        self._lock = threading.Lock()
        self._pass: Iterator | None = None

    @property
    def initialized(self) -> bool:
        return self._pass is not None

    def make(self, dataset: DatasetObject) -> None:
        with self._lock:
            self._pass = dataset.iterate()

    def get_next(self) -> Element:
        with self._lock:
            if self._pass is None:
                raise errors.FailedPreconditionError(
                    None, None, "GetNext() failed because the iterator has not been "
                                "initialized. Ensure that you have run the initializer "
                                "operation for this iterator before getting the next "
                                "element.")
            element = next(self._pass, None)
        if element is None:
            raise errors.OutOfRangeError(None, None, "End of sequence")
        return element


def _iterator_key(ctx: KernelContext) -> tuple[str, str]:
    attr = ctx.node_def.attr
    return attr["container"].s.decode(), attr["shared_name"].s.decode() or ctx.name


@register_kernel("IteratorV2")
def _iterator_v2(ctx: KernelContext):
    container, name = _iterator_key(ctx)
    store = ctx.resources
    return lambda: (store.resource(container, name, lambda _: IteratorResource(name)),)


@register_kernel("OneShotIterator")
def _one_shot_iterator(ctx: KernelContext):
    container, name = _iterator_key(ctx)
    store = ctx.resources
    factory = _function(ctx, "dataset_factory")
    lock = threading.Lock()

    def compute():
        iterator = store.resource(container, name, lambda _: IteratorResource(name))
        if not iterator.initialized:
            with lock:
                if not iterator.initialized:
                    iterator.make(factory()[0])
        return (iterator,)

    return compute


@register_kernel("MakeIterator")
def _make_iterator(ctx: KernelContext):
    def compute(dataset, iterator):
        iterator.make(dataset)
        return ()
    return compute


@register_kernel("IteratorGetNext")
def _get_next(ctx: KernelContext):
    return lambda iterator: tuple(iterator.get_next())


_HANDLE_PREFIX = b"graphcore-iterator:"


@register_kernel("IteratorToStringHandle")
def _to_string_handle(ctx: KernelContext):
    store = ctx.resources

    def compute(iterator):
        for (container, name), res in store.resources().items():
            if res is iterator:
                return (np.asarray(_HANDLE_PREFIX + f"{container}\0{name}".encode(),
                                   dtype=object),)
        raise errors.NotFoundError(None, None, f"Iterator {iterator.name} is not in the "
                                               "resource manager")
    return compute


@register_kernel("IteratorFromStringHandleV2")
def _from_string_handle(ctx: KernelContext):
    store = ctx.resources

    def missing(_: int) -> Any:
        raise errors.InvalidArgumentError(None, None, "Could not find the iterator of the "
                                                      "given string handle")

    def compute(handle):
        text = np.asarray(handle, dtype=object).item()
        if not isinstance(text, bytes) or not text.startswith(_HANDLE_PREFIX):
            raise errors.InvalidArgumentError(
                None, None, f"Could not parse an iterator string handle from {text!r}")
        container, _, name = text[len(_HANDLE_PREFIX):].decode().partition("\0")
        return (store.resource(container, name, missing),)
    return compute
