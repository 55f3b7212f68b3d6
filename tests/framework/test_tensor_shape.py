"""Unit tests for graphcore.framework.tensor_shape (no TensorFlow needed)."""

import pickle

import numpy as np
import pytest

from graphcore.framework.tensor_shape import (
    Dimension,
    TensorShape,
    as_dimension,
    as_shape,
    dimension_at_index,
    dimension_value,
    matrix,
    scalar,
    unknown_shape,
    vector,
)
from graphcore.protobuf import tensor_shape_pb2

# --- Dimension ---------------------------------------------------------------------------


def test_dimension_basics():
    assert Dimension(3).value == 3
    assert Dimension(None).value is None
    assert repr(Dimension(3)) == "Dimension(3)"
    assert repr(Dimension(None)) == "Dimension(None)"
    assert str(Dimension(None)) == "?"
    assert int(Dimension(4)) == 4
    assert [0, 1, 2][Dimension(1)] == 1
    assert Dimension(Dimension(5)).value == 5
    assert Dimension(np.int64(2)).value == 2


def test_dimension_errors():
    with pytest.raises(ValueError, match="Dimension -1 must be >= 0"):
        Dimension(-1)
    with pytest.raises(TypeError, match="Dimension value must be integer or None"):
        Dimension(2.5)
    with pytest.raises(TypeError):
        int(Dimension(None))


def test_dimension_equality_and_comparison():
    assert Dimension(3) == 3
    assert Dimension(3) == Dimension(3)
    assert (Dimension(3) == Dimension(None)) is None
    assert (Dimension(None) != 3) is None
    assert Dimension(3) != 4
    assert (Dimension(3) == "3") is False
    assert Dimension(2) < 3 and Dimension(3) >= 3
    assert (Dimension(None) < 3) is None


def test_dimension_arithmetic():
    assert (Dimension(3) + 4).value == 7
    assert (4 + Dimension(3)).value == 7
    assert (Dimension(None) + 4).value is None
    assert (10 - Dimension(3)).value == 7
    assert (Dimension(3) * Dimension(None)).value is None
    assert (Dimension(7) // 2).value == 3
    assert (7 // Dimension(2)).value == 3
    assert (Dimension(7) % 4).value == 3
    with pytest.raises(ValueError):
        Dimension(3) - 5
    with pytest.raises(TypeError, match="please use // instead"):
        Dimension(6) / 2
    with pytest.raises(TypeError, match="please use // instead"):
        6 / Dimension(2)
    with pytest.raises(TypeError):
        Dimension(3) + 1.5


def test_dimension_merge_and_compat():
    assert Dimension(None).merge_with(4).value == 4
    assert Dimension(4).merge_with(None).value == 4
    assert Dimension(4).is_compatible_with(Dimension(None))
    assert not Dimension(4).is_compatible_with(5)
    with pytest.raises(ValueError, match="Dimensions 2 and 3 are not compatible"):
        Dimension(2).merge_with(3)
    with pytest.raises(ValueError):
        Dimension(2).assert_is_compatible_with(3)


def test_dimension_helpers():
    assert as_dimension(3).value == 3
    d = Dimension(2)
    assert as_dimension(d) is d
    assert dimension_value(d) == 2
    assert dimension_value(5) == 5
    assert dimension_at_index(TensorShape([1, 2]), 1).value == 2
    assert dimension_at_index(unknown_shape(), 4).value is None
    assert pickle.loads(pickle.dumps(Dimension(3))) == 3


# --- TensorShape ---------------------------------------------------------------------------


def test_construction():
    assert TensorShape([2, None]).as_list() == [2, None]
    assert TensorShape((2, Dimension(3))).as_list() == [2, 3]
    assert TensorShape(3).as_list() == [3]
    assert TensorShape(np.array([4, 5])).as_list() == [4, 5]
    assert TensorShape(None).rank is None
    assert TensorShape(TensorShape([1])).as_list() == [1]
    with pytest.raises(TypeError, match="Failed to convert"):
        TensorShape("a")
    with pytest.raises(ValueError):
        TensorShape([-1])


def test_from_proto():
    proto = tensor_shape_pb2.TensorShapeProto(dim=[{"size": 2}, {"size": -1}])
    assert TensorShape(proto).as_list() == [2, None]
    assert TensorShape(tensor_shape_pb2.TensorShapeProto(unknown_rank=True)).rank is None
    assert TensorShape(tensor_shape_pb2.TensorShapeProto()).as_list() == []


def test_as_proto():
    assert TensorShape([2, None]).as_proto() == tensor_shape_pb2.TensorShapeProto(
        dim=[{"size": 2}, {"size": -1}]
    )
    assert TensorShape(None).as_proto().unknown_rank
    assert TensorShape([]).as_proto() == tensor_shape_pb2.TensorShapeProto()


def test_str_and_repr():
    assert str(TensorShape([2, None])) == "(2, ?)"  # TF1's spelling
    assert str(TensorShape([3])) == "(3,)"
    assert str(TensorShape([None])) == "(?,)"
    assert str(TensorShape([])) == "()"
    assert str(TensorShape(None)) == "<unknown>"
    assert repr(TensorShape([2, None])) == "TensorShape([Dimension(2), Dimension(None)])"
    assert repr(TensorShape(None)) == "TensorShape(None)"
    assert repr(TensorShape([])) == "TensorShape([])"


def test_rank_len_iter_bool():
    s = TensorShape([2, None])
    assert s.rank == s.ndims == len(s) == 2
    assert [d.value for d in s] == [2, None]
    assert [d.value for d in s.dims] == [2, None]
    assert bool(TensorShape([]))
    assert not bool(TensorShape(None))
    assert TensorShape(None).dims is None
    with pytest.raises(ValueError, match="unknown rank"):
        len(TensorShape(None))
    with pytest.raises(ValueError, match="unknown rank"):
        list(TensorShape(None))


def test_getitem():
    s = TensorShape([2, None, 4])
    assert isinstance(s[0], Dimension) and s[0].value == 2
    assert s[-1].value == 4
    assert s[1:].as_list() == [None, 4]
    assert s[::-1].as_list() == [4, None, 2]
    with pytest.raises(IndexError):
        s[3]  # noqa: B018
    u = TensorShape(None)
    assert u[5].value is None
    assert u[1:3].as_list() == [None, None]
    assert u[:2].as_list() == [None, None]
    assert u[-2:].rank is None
    assert u[2:].rank is None
    with pytest.raises(ValueError, match="Steps are not yet handled"):
        u[::2]  # noqa: B018


def test_num_elements_and_fully_defined():
    assert TensorShape([2, 3]).num_elements() == 6
    assert TensorShape([]).num_elements() == 1
    assert TensorShape([2, None]).num_elements() is None
    assert TensorShape(None).num_elements() is None
    assert TensorShape([2, 3]).is_fully_defined()
    assert not TensorShape([None]).is_fully_defined()
    with pytest.raises(ValueError, match=r"Shape \(2, \?\) is not fully defined"):
        TensorShape([2, None]).assert_is_fully_defined()


def test_as_list_unknown():
    with pytest.raises(ValueError, match="as_list\\(\\) is not defined on an unknown TensorShape."):
        TensorShape(None).as_list()


def test_merge_with():
    assert TensorShape([2, None]).merge_with([None, 3]).as_list() == [2, 3]
    assert TensorShape(None).merge_with([1]).as_list() == [1]
    assert TensorShape([1]).merge_with(None).as_list() == [1]
    with pytest.raises(ValueError, match=r"Shapes \(2,\) and \(3,\) are not compatible"):
        TensorShape([2]).merge_with([3])
    with pytest.raises(ValueError, match=r"Shapes \(2,\) and \(3, 4\) are not compatible"):
        TensorShape([2]).merge_with([3, 4])


def test_compatibility():
    assert TensorShape([2, None]).is_compatible_with([2, 5])
    assert TensorShape(None).is_compatible_with([1, 2])
    assert not TensorShape([1, 2]).is_compatible_with([1])
    with pytest.raises(ValueError, match=r"Shapes \(2,\) and \[3\] are incompatible"):
        TensorShape([2]).assert_is_compatible_with([3])
    assert TensorShape([2, 3]).most_specific_compatible_shape([2, 4]).as_list() == [2, None]
    assert TensorShape([2, 3]).most_specific_compatible_shape([2]).rank is None


def test_rank_assertions():
    s = TensorShape([2, 3])
    assert s.with_rank(2) is s
    assert TensorShape(None).with_rank(2).as_list() == [None, None]
    with pytest.raises(ValueError, match=r"Shape \(2, 3\) must have rank 3"):
        s.with_rank(3)
    with pytest.raises(ValueError, match="must have rank at least 3"):
        s.with_rank_at_least(3)
    with pytest.raises(ValueError, match="must have rank at most 1"):
        s.with_rank_at_most(1)
    assert s.with_rank_at_least(1) is s
    with pytest.raises(ValueError, match="must have the same rank"):
        s.assert_same_rank([1])
    with pytest.raises(ValueError, match="must have rank 1"):
        s.assert_has_rank(1)


def test_concatenate():
    assert TensorShape([1]).concatenate([2, 3]).as_list() == [1, 2, 3]
    assert TensorShape([1]).concatenate(None).rank is None
    assert (TensorShape([1]) + TensorShape([2])).as_list() == [1, 2]
    assert ([1] + TensorShape([2])).as_list() == [1, 2]


def test_eq_hash_pickle():
    assert TensorShape([2, None]) == TensorShape([2, None])
    assert TensorShape([2]) == [2]
    assert TensorShape([1, 2]) == (1, 2)
    assert TensorShape([1]) != TensorShape([2])
    assert TensorShape(None) == TensorShape(None)
    assert TensorShape(None) != TensorShape([1])
    assert TensorShape([1]) != "a"
    assert hash(TensorShape([1, None])) == hash(TensorShape([1, None]))
    for s in (TensorShape([2, None]), TensorShape(None), TensorShape([])):
        assert pickle.loads(pickle.dumps(s)) == s


def test_factories():
    assert unknown_shape().rank is None
    assert unknown_shape(rank=2).as_list() == [None, None]
    assert unknown_shape(ndims=1).as_list() == [None]
    assert scalar().as_list() == []
    assert vector(3).as_list() == [3]
    assert matrix(2, None).as_list() == [2, None]
    s = TensorShape([1])
    assert as_shape(s) is s
    assert as_shape([1, None]).as_list() == [1, None]
    assert as_shape(4).as_list() == [4]
