"""state_dict / load_state_dict walk the module tree as PyTorch's do (nn/state_dict_load.py):
_load_from_state_dict and _save_to_state_dict overrides, a child's own state_dict override, the
private hook registrations, PyTorch's error text and order; plus the forward hooks' always_call
after a failing pre-hook, zero_grad(set_to_none=False) on a gradient with a history, and
get_submodule's lookups. Expected values are PyTorch 2.x's documented behaviour."""
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import glassgrad.torch as torch
from glassgrad.torch import nn


class OldLinear(nn.Linear):
    """A layer whose old checkpoints named the weight "old_w" (a version migration)."""

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        self.seen = (prefix, sorted(state_dict), local_metadata.get("version"), strict)
        if prefix + "old_w" in state_dict:
            state_dict[prefix + "weight"] = state_dict.pop(prefix + "old_w")
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)


def test_load_from_state_dict_override_renames_an_old_key():
    model = nn.Sequential(OldLinear(2, 2))
    result = model.load_state_dict({"0.old_w": torch.ones(2, 2), "0.bias": torch.zeros(2)})
    assert repr(result) == "<All keys matched successfully>"
    assert model[0].seen == ("0.", ["0.bias", "0.old_w"], None, True)
    np.testing.assert_array_equal(model[0].weight.detach().numpy(), np.ones((2, 2), np.float32))


def test_override_sees_the_saved_version_and_its_errors_are_raised():
    model = nn.Sequential(OldLinear(2, 2))
    sd = model.state_dict()
    model.load_state_dict(sd)
    assert model[0].seen[2] == 1  # the _metadata of state_dict() carries each module's _version

    class Refuses(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(1, 1)

        def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
            errors.append("custom error")

    with pytest.raises(RuntimeError) as info:
        Refuses().load_state_dict(Refuses().state_dict())
    assert str(info.value).startswith("Error(s) in loading state_dict for Refuses:\n\tcustom error")


def test_save_to_state_dict_override_and_a_childs_own_state_dict():
    class Scaled(nn.Linear):
        def _save_to_state_dict(self, destination, prefix, keep_vars):
            super()._save_to_state_dict(destination, prefix, keep_vars)
            destination[prefix + "scale"] = torch.tensor(2.0)

    class Custom(nn.Module):
        def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
            destination[prefix + "mine"] = torch.tensor(1.0)
            return destination

    model = nn.Sequential(Scaled(1, 1), Custom())
    sd = model.state_dict()
    assert list(sd) == ["0.weight", "0.bias", "0.scale", "1.mine"]
    assert dict(sd._metadata) == {"": {"version": 1}, "0": {"version": 1}}  # Custom wrote none


def test_private_state_dict_hook_may_return_a_new_dict_and_public_post_hook_gets_the_metadata():
    m = nn.Linear(1, 1)
    m._register_state_dict_hook(lambda mod, sd, prefix, md: OrderedDict(new=1))
    assert list(m.state_dict()) == ["new"]
    seen = []
    m2 = nn.Sequential(nn.Linear(1, 1))
    m2[0].register_state_dict_post_hook(lambda mod, sd, prefix, md: seen.append((prefix, list(sd), md)))
    m2.state_dict(prefix="p.")
    assert seen == [("p.0.", ["p.0.weight", "p.0.bias"], {"version": 1})]
    m2[0].register_state_dict_post_hook(lambda mod, sd, prefix, md: {})
    with pytest.raises(RuntimeError, match="state_dict post-hook must return None"):
        m2.state_dict()


def test_private_load_pre_hook_with_and_without_the_module():
    seen = []
    m = nn.Sequential(nn.Linear(1, 1), nn.BatchNorm1d(1))
    m[1]._register_load_state_dict_pre_hook(
        lambda sd, prefix, md, strict, missing, unexpected, errors: seen.append(("plain", prefix, md, strict)))
    m[1]._register_load_state_dict_pre_hook(lambda mod, *args: seen.append(("module", type(mod).__name__)),
                                            with_module=True)
    m.load_state_dict(m.state_dict())
    assert seen == [("plain", "1.", {"version": 2}, True), ("module", "BatchNorm1d")]


def test_a_childs_pre_hook_renames_keys_for_itself_only():
    m = nn.Sequential(nn.Linear(1, 1))

    def rename(mod, sd, prefix, *rest):
        if prefix + "w" in sd:
            sd[prefix + "weight"] = sd.pop(prefix + "w")
    m[0].register_load_state_dict_pre_hook(rename)
    caller = {"0.w": torch.full((1, 1), 3.0), "0.bias": torch.zeros(1)}
    assert repr(m.load_state_dict(caller)) == "<All keys matched successfully>"
    assert list(caller) == ["0.w", "0.bias"]  # the caller's dict is not edited
    assert m[0].weight.item() == 3.0


def test_error_text_order_and_strict_false_size_mismatch():
    m = nn.Linear(2, 2)
    with pytest.raises(RuntimeError) as info:
        m.load_state_dict({"weight": torch.ones(3), "x": torch.ones(1)})
    lines = str(info.value).split("\n")
    assert lines[:4] == [
        "Error(s) in loading state_dict for Linear:",
        '\tMissing key(s) in state_dict: "bias". ',
        '\tUnexpected key(s) in state_dict: "x". ',
        "\tsize mismatch for weight: copying a param with shape torch.Size([3]) from checkpoint, the shape in "
        "current model is torch.Size([2, 2]).".replace("torch.", type(m.weight.shape).__module__.split(".")[0] + "."),
    ]
    before = m.weight.detach().numpy().copy()
    with pytest.raises(RuntimeError, match="size mismatch for weight"):  # strict=False keeps size errors
        m.load_state_dict({"weight": torch.ones(3)}, strict=False)
    np.testing.assert_array_equal(m.weight.detach().numpy(), before)


def test_results_of_strict_false_and_unexpected_keys_per_level():
    m = nn.Sequential(nn.Linear(1, 1))
    m.register_buffer("b", torch.zeros(1), persistent=False)
    sd = {"0.weight": torch.ones(1, 1), "b": torch.ones(1), "1.x": torch.ones(1), "0.z.y": torch.ones(1)}
    r = m.load_state_dict(sd, strict=False)
    assert r.missing_keys == ["0.bias"]
    assert r.unexpected_keys == ["b", "1.x", "0.z.y"]


def test_a_zero_d_entry_may_be_saved_with_one_element():
    class Scalar(nn.Module):
        def __init__(self):
            super().__init__()
            self.s = nn.Parameter(torch.tensor(0.0))
    m = Scalar()
    m.load_state_dict({"s": torch.tensor([5.0])})
    assert m.s.shape == () and m.s.item() == 5.0


def test_post_hooks_see_the_loaded_values():
    m = nn.Sequential(nn.Linear(1, 1))
    seen = []
    m[0].register_load_state_dict_post_hook(lambda mod, keys: seen.append(mod.weight.item()))
    m.load_state_dict({"0.weight": torch.full((1, 1), 7.0), "0.bias": torch.zeros(1)})
    assert seen == [7.0]


def test_load_from_state_dict_called_directly_puts_the_entries_in_place():
    m = nn.Linear(1, 1)
    missing, unexpected, errors = [], [], []
    m._load_from_state_dict({"w.weight": torch.full((1, 1), 4.0)}, "w.", {}, True, missing, unexpected, errors)
    assert (missing, unexpected, errors) == (["w.bias"], [], [])
    assert m.weight.item() == 4.0


def test_always_call_hooks_run_when_a_pre_hook_raises():
    seen = []
    m = nn.Identity()

    def bad_pre(mod, args):
        raise KeyError("pre")
    m.register_forward_pre_hook(bad_pre)
    m.register_forward_hook(lambda mod, args, out: seen.append(("always", out)), always_call=True)
    m.register_forward_hook(lambda mod, args, out: seen.append("plain"))
    with pytest.raises(KeyError):
        m(torch.zeros(1))
    assert seen == [("always", None)]


def test_always_call_hook_runs_once_when_a_later_hook_raises_and_its_own_error_warns():
    seen = []
    m = nn.Identity()
    m.register_forward_hook(lambda mod, args, out: seen.append("always"), always_call=True)

    def bad(mod, args, out):
        raise ValueError("post")
    m.register_forward_hook(bad)
    with pytest.raises(ValueError):
        m(torch.zeros(1))
    assert seen == ["always"]

    def failing(mod, args, out):
        raise IndexError("hook")
    m2 = nn.Identity()
    m2.register_forward_pre_hook(lambda mod, args: bad(mod, args, None))
    m2.register_forward_hook(failing, always_call=True)
    with warnings.catch_warnings(record=True) as w, pytest.raises(ValueError):
        warnings.simplefilter("always")
        m2(torch.zeros(1))
    assert any("silenced" in str(x.message) for x in w)


def test_zero_grad_keeping_tensors_detaches_a_gradient_with_a_history():
    lin = nn.Linear(1, 1)
    lin(torch.ones(1, 1)).sum().backward()
    lin.weight.grad = lin.weight.grad * torch.ones(1, 1, requires_grad=True)
    lin.zero_grad(set_to_none=False)
    assert lin.weight.grad.grad_fn is None and not lin.weight.grad.requires_grad
    assert lin.weight.grad.item() == 0.0


def test_get_submodule_follows_attributes_and_names_pytorchs_errors():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.Sequential(nn.Linear(1, 1), nn.ReLU())

        @property
        def head(self):
            return self.layers[0]
    net = Net()
    assert net.get_submodule("head") is net.layers[0]
    with pytest.raises(AttributeError, match="Sequential has no attribute `5`"):
        net.get_submodule("layers.5")
    with pytest.raises(AttributeError, match="`weight` is not an nn.Module"):
        net.get_submodule("layers.0.weight")
    with pytest.raises(AttributeError, match="`training` is not an nn.Module"):
        net.get_submodule("training")
