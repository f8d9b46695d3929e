"""ModuleDict.update and ModuleList.extend refuse what is not an iterable of modules (or of
(key, module) pairs) with PyTorch's exception classes and messages, before anything is added."""
import pytest

import glassgrad as gg


def test_module_dict_update_of_a_non_iterable():
    d = gg.nn.ModuleDict({"a": gg.nn.ReLU()})
    with pytest.raises(TypeError, match="^ModuleDict.update should be called with an iterable of key/value pairs, "
                                        "but got int"):
        d.update(5)
    assert list(d) == ["a"]


def test_module_dict_update_with_pairs_of_the_wrong_length_or_kind():
    d = gg.nn.ModuleDict()
    with pytest.raises(ValueError, match="^ModuleDict update sequence element #1 has length 3; 2 is required"):
        d.update([("a", gg.nn.ReLU()), ("b", gg.nn.ReLU(), 3)])
    with pytest.raises(TypeError, match="^ModuleDict update sequence element #0 should be Iterable; isint"):
        d.update([7])
    d.update([("c", gg.nn.Tanh())])
    d.update({"e": gg.nn.ELU()})
    assert list(d) == ["a", "c", "e"]  # the pairs before the bad one were added, as PyTorch's loop adds them


def test_module_list_extend_of_a_module():
    ml = gg.nn.ModuleList([gg.nn.ReLU()])
    with pytest.raises(TypeError, match="^ModuleList.extend should be called with an iterable, but got ReLU"):
        ml.extend(gg.nn.ReLU())
    ml.extend(gg.nn.ModuleList([gg.nn.Tanh()]))
    assert [type(m).__name__ for m in ml] == ["ReLU", "Tanh"]


def test_messages_as_torch():
    torch = pytest.importorskip("torch")
    for lib in (torch, gg):
        for call in (lambda: lib.nn.ModuleDict().update(5), lambda: lib.nn.ModuleList().extend(lib.nn.ReLU())):
            with pytest.raises(TypeError) as info:
                call()
            text = str(info.value).split("\n")[0]
            assert text.startswith(("ModuleDict.update should be called with an iterable of key/value pairs, but got "
                                    "int", "ModuleList.extend should be called with an iterable, but got ReLU")), text
