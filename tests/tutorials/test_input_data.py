"""graphcore.tutorials.mnist.input_data: the fake data sets of TF's tutorials."""

import numpy as np

from graphcore.tutorials.mnist import input_data


def test_fake_data_sets_give_all_ones_images_of_label_zero():
    sets = input_data.read_data_sets("/nonexistent", fake_data=True)
    assert [s.num_examples for s in sets] == [10000, 10000, 10000]
    images, labels = sets.train.next_batch(3, fake_data=True)
    assert np.array_equal(np.asarray(images), np.ones((3, 784)))
    assert labels == [0, 0, 0]
    one_hot = input_data.read_data_sets("/nonexistent", fake_data=True, one_hot=True)
    _, labels = one_hot.test.next_batch(2, fake_data=True)
    assert np.array_equal(np.asarray(labels), [[1] + [0] * 9] * 2)


def test_data_set_rejects_other_image_dtypes():
    images, labels = np.zeros((4, 28, 28, 1), np.uint8), np.zeros(4, np.uint8)
    try:
        input_data.DataSet(images, labels, dtype=np.int32)
    except TypeError as e:
        assert "Invalid image dtype" in str(e)
    else:
        raise AssertionError("int32 images were accepted")
    data = input_data.DataSet(images, labels, one_hot=False, dtype=np.uint8)
    assert data.images.shape == (4, 784) and data.images.dtype == np.uint8
