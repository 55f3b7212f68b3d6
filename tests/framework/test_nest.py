"""graphcore.framework.nest: dicts flatten in sorted key order and pack back in theirs."""

import collections

from graphcore.framework import nest


def test_dicts_flatten_sorted_and_pack_in_their_own_key_order():
    structure = {"x": 1, "len": (2, 3)}
    assert nest.flatten(structure) == [2, 3, 1]
    packed = nest.pack_sequence_as(structure, ["a", "b", "c"])
    assert list(packed) == ["x", "len"] and packed == {"x": "c", "len": ("a", "b")}
    ordered = collections.OrderedDict([("b", 1), ("a", 2)])
    again = nest.pack_sequence_as(ordered, nest.flatten(ordered))
    assert type(again) is collections.OrderedDict and list(again.items()) == [("b", 1),
                                                                              ("a", 2)]
