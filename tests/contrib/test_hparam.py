"""tf.contrib.training.HParams: typed hyperparameters, parse / override_from_dict /
parse_json with TF 1.15's type rules and error messages, get, json and string forms."""

import pytest

import graphcore as tf

HParams = tf.contrib.training.HParams


def _hparams():
    return HParams(lr=0.1, steps=10, name="relu", sizes=[1, 2], flag=False)


PARSE_CASES = [
    ("lr=0.5", {"lr": 0.5}),
    ("steps=3, name=tanh", {"steps": 3, "name": "tanh"}),
    ("sizes=[4, 5,6]", {"sizes": [4, 5, 6]}),
    ("flag=true", {"flag": True}),
    ("flag=False", {"flag": False}),
    ("flag=1", {"flag": True}),
    ("lr=3", {"lr": 3.0}),
    ("", {}),
]


@pytest.mark.parametrize("text,changed", PARSE_CASES)
def test_parse(text, changed):
    hparams = _hparams().parse(text)
    expected = dict(_hparams().values(), **changed)
    assert hparams.values() == expected
    assert {k: type(v) for k, v in hparams.values().items()} == \
        {k: type(v) for k, v in expected.items()}


PARSE_ERRORS = [
    ("steps=1.5", "Could not parse hparam 'steps' of type 'int' with value '1.5' in steps=1.5"),
    ("flag=maybe", "Could not parse hparam 'flag' of type 'bool'"),
    ("nope=1", "Unknown hyperparameter type for nope"),
    ("lr=0.1,lr=0.2", "Multiple assignments to variable 'lr' in lr=0.1,lr=0.2"),
    ("lr=[0.1]", "Must not pass a list for single-valued parameter: lr"),
    ("sizes=3", "Must pass a list for multi-valued parameter: sizes."),
    ("=3", "Malformed hyperparameter value: =3"),
]


@pytest.mark.parametrize("text,message", PARSE_ERRORS)
def test_parse_errors(text, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace(".", r"\.")):
        _hparams().parse(text)


def test_set_override_json_get_and_forms():
    hparams = _hparams()
    hparams.set_hparam("lr", 1)
    assert hparams.lr == 1.0 and isinstance(hparams.lr, float)
    with pytest.raises(ValueError, match="Could not cast hparam 'steps'"):
        hparams.set_hparam("steps", 2.5)
    with pytest.raises(ValueError, match="Could not cast hparam 'name'"):
        hparams.override_from_dict({"name": 3})
    with pytest.raises(ValueError, match="Could not cast hparam 'flag'"):
        hparams.set_hparam("flag", 1)
    hparams.parse_json('{"steps": 7, "sizes": [9]}')
    assert (hparams.steps, hparams.sizes) == (7, [9])
    assert hparams.to_json(sort_keys=True) == (
        '{"flag": false, "lr": 1.0, "name": "relu", "sizes": [9], "steps": 7}')
    assert hparams.get("steps", 0) == 7 and hparams.get("missing", 4) == 4
    with pytest.raises(ValueError, match="is incompatible with default=x"):
        hparams.get("steps", "x")
    assert "lr" in hparams and "missing" not in hparams
    assert str(hparams) == "lr=1.0,steps=7,name=relu,sizes=[9],flag=False"
    assert repr(hparams).startswith("HParams([('flag', False), ('lr', 1.0)")
    hparams.add_hparam("extra", [0.5])
    hparams.del_hparam("lr")
    assert sorted(hparams.values()) == ["extra", "flag", "name", "sizes", "steps"]
    with pytest.raises(ValueError, match="Hyperparameter name is reserved: parse"):
        hparams.add_hparam("parse", 1)
    with pytest.raises(ValueError, match="Multi-valued hyperparameters cannot be empty: e"):
        hparams.add_hparam("e", [])
