"""``read_data_sets`` of TF1's MNIST tutorials: the four MNIST files from ``train_dir``
when they are there (TF's IDX format, gzipped); otherwise, offline, a stand-in of
MNIST's shapes built from scikit-learn's handwritten digits (8x8 images scaled to 28x28,
shifted and noised into 60,000 training and 10,000 test images of the ten classes), since
nothing is downloaded here."""

from __future__ import annotations

import collections
import gzip
import os
from typing import Any

import numpy as np

Datasets = collections.namedtuple("Datasets", ["train", "validation", "test"])

_FILES = ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
          "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")


class DataSet:
    """Images (uint8 0-255, or float32 scaled to [0, 1]) and labels, batched by
    ``next_batch`` with TF's epoch and shuffle behaviour."""

    def __init__(self, images: np.ndarray | None, labels: np.ndarray | None,
                 fake_data: bool = False, one_hot: bool = False, dtype: Any = np.float32,
                 reshape: bool = True, seed: int | None = None):
        dtype = np.dtype(getattr(dtype, "as_numpy_dtype", dtype))
        if dtype not in (np.uint8, np.float32):
            raise TypeError(f"Invalid image dtype {dtype!r}, expected uint8 or float32")
        self.fake_data = fake_data
        self.one_hot = one_hot
        if fake_data:
            self._num_examples = 10000
        else:
            assert images.shape[0] == labels.shape[0], (images.shape, labels.shape)
            self._num_examples = images.shape[0]
            if reshape:
                images = images.reshape(images.shape[0], -1)
            if dtype == np.float32:
                images = images.astype(np.float32) * (1.0 / 255.0)
        self._images, self._labels = images, labels
        self._epochs_completed = 0
        self._index_in_epoch = 0
        self._rng = np.random.default_rng(seed)

    images = property(lambda self: self._images)
    labels = property(lambda self: self._labels)
    num_examples = property(lambda self: self._num_examples)
    epochs_completed = property(lambda self: self._epochs_completed)

    def next_batch(self, batch_size: int, fake_data: bool = False,
                   shuffle: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """The next ``batch_size`` examples (reshuffled at every epoch); with
        ``fake_data``, ``batch_size`` copies of an all-ones image of label 0."""
        if fake_data:
            image = [1] * 784
            label = [1] + [0] * 9 if self.one_hot else 0
            return [image] * batch_size, [label] * batch_size
        start = self._index_in_epoch
        if self._epochs_completed == 0 and start == 0 and shuffle:
            self._shuffle()
        if start + batch_size > self._num_examples:
            self._epochs_completed += 1
            rest = self._num_examples - start
            images_rest, labels_rest = self._images[start:], self._labels[start:]
            if shuffle:
                self._shuffle()
            self._index_in_epoch = batch_size - rest
            end = self._index_in_epoch
            return (np.concatenate((images_rest, self._images[:end]), axis=0),
                    np.concatenate((labels_rest, self._labels[:end]), axis=0))
        self._index_in_epoch += batch_size
        end = self._index_in_epoch
        return self._images[start:end], self._labels[start:end]

    def _shuffle(self) -> None:
        perm = self._rng.permutation(self._num_examples)
        self._images, self._labels = self._images[perm], self._labels[perm]


def dense_to_one_hot(labels_dense: np.ndarray, num_classes: int = 10) -> np.ndarray:
    out = np.zeros((labels_dense.shape[0], num_classes), dtype=np.float32)
    out[np.arange(labels_dense.shape[0]), labels_dense] = 1.0
    return out


def _read_idx(path: str) -> np.ndarray:
    with gzip.open(path, "rb") as f:
        data = f.read()
    magic = int.from_bytes(data[:4], "big")
    ndim = magic & 0xFF
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    array = np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)
    return array[..., None] if ndim == 3 else array


def stand_in_mnist(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(train images, train labels, test images, test labels) of MNIST's shapes
    (60000/10000 x 28 x 28 x 1 uint8) from scikit-learn's digits."""
    try:
        from sklearn.datasets import load_digits
    except ImportError as e:
        raise RuntimeError("No MNIST files here and scikit-learn (which ships the "
                           "stand-in's digits) is not installed") from e
    digits = load_digits()
    rng = np.random.default_rng(seed)
    small = (digits.images / 16.0 * 255.0).astype(np.float32)  # 8x8 in [0, 255]
    big = np.kron(small, np.ones((3, 3), np.float32))  # 24x24

    def make(n: int, pool: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        idx = rng.choice(pool, size=n)
        out = np.zeros((n, 28, 28), np.float32)
        dx, dy = rng.integers(0, 5, size=n), rng.integers(0, 5, size=n)
        for x in range(5):
            for y in range(5):
                sel = np.nonzero((dx == x) & (dy == y))[0]
                out[sel, y:y + 24, x:x + 24] = big[idx[sel]]
        out += rng.standard_normal(out.shape, dtype=np.float32) * 12.0
        return np.clip(out, 0, 255).astype(np.uint8)[..., None], digits.target[idx]

    order = rng.permutation(len(digits.target))
    train_pool, test_pool = order[:1400], order[1400:]
    train_images, train_labels = make(60000, train_pool)
    test_images, test_labels = make(10000, test_pool)
    return train_images, train_labels.astype(np.uint8), test_images, \
        test_labels.astype(np.uint8)


def read_data_sets(train_dir: str, fake_data: bool = False, one_hot: bool = False,
                   dtype: Any = np.float32, reshape: bool = True, validation_size: int = 5000,
                   seed: int | None = None, source_url: str | None = None) -> Datasets:
    """MNIST from ``train_dir`` (the four gz files), or the offline stand-in; with
    ``fake_data``, three fake sets (see ``DataSet.next_batch``)."""
    del source_url
    if fake_data:
        def fake() -> DataSet:
            return DataSet(None, None, fake_data=True, one_hot=one_hot, dtype=dtype,
                           seed=seed)
        return Datasets(train=fake(), validation=fake(), test=fake())
    paths = [os.path.join(train_dir, name) for name in _FILES]
    if all(os.path.exists(p) for p in paths):
        train_images, train_labels, test_images, test_labels = (_read_idx(p) for p in paths)
    else:
        train_images, train_labels, test_images, test_labels = stand_in_mnist(
            0 if seed is None else seed)
    if one_hot:
        train_labels, test_labels = dense_to_one_hot(train_labels), dense_to_one_hot(
            test_labels)
    if not 0 <= validation_size <= len(train_images):
        raise ValueError(f"Validation size should be between 0 and {len(train_images)}. "
                         f"Received: {validation_size}.")
    options = dict(one_hot=one_hot, dtype=dtype, reshape=reshape, seed=seed)
    validation = DataSet(train_images[:validation_size], train_labels[:validation_size],
                         **options)
    train = DataSet(train_images[validation_size:], train_labels[validation_size:],
                    **options)
    test = DataSet(test_images, test_labels, **options)
    return Datasets(train=train, validation=validation, test=test)
