"""nn.Module's API as scripts use it, run as the same code on glassgrad.torch and on torch and
compared: traversal (named_modules/children/parameters/buffers with prefix, recurse,
remove_duplicate), apply, train/eval, requires_grad_, zero_grad, dtype moves, get_submodule/
get_parameter/get_buffer, register_buffer/register_parameter and their name errors,
load_state_dict results and errors, and the containers' methods (Sequential, ModuleList,
ModuleDict, ParameterList, ParameterDict). A probe that raises in torch must raise an instance of
the same built-in exception class in glassgrad."""
from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

import glassgrad.torch as gt

torch = pytest.importorskip("torch")


def _dt(t) -> str:
    return str(t.dtype).rpartition(".")[2]


def _net(lib):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(2, 3)
            self.b = nn.Sequential(nn.ReLU(), nn.Linear(3, 2), nn.BatchNorm1d(2))
            self.shared = self.a
            self.register_buffer("m", lib.ones(2))
            self.register_buffer("np", lib.zeros(1), persistent=False)
            self.register_buffer("none", None)
            self.register_parameter("p", nn.Parameter(lib.ones(1)))
            self.register_parameter("q", None)

        def extra_repr(self):
            return "hello=1"

        def forward(self, x):
            return self.b(self.a(x))
    return Net()


def _keys(it):
    return [k for k, _ in it]


PROBES = {
    "repr": lambda lib, net: repr(net),
    "named_modules": lambda lib, net: _keys(net.named_modules()),
    "named_modules-dup": lambda lib, net: _keys(net.named_modules(remove_duplicate=False)),
    "named_modules-prefix": lambda lib, net: _keys(net.named_modules(prefix="root")),
    "named_children": lambda lib, net: _keys(net.named_children()),
    "children": lambda lib, net: [type(m).__name__ for m in net.children()],
    "named_parameters": lambda lib, net: _keys(net.named_parameters()),
    "named_parameters-prefix": lambda lib, net: _keys(net.named_parameters(prefix="x")),
    "named_parameters-norecurse": lambda lib, net: _keys(net.named_parameters(recurse=False)),
    "named_parameters-dup": lambda lib, net: _keys(net.named_parameters(remove_duplicate=False)),
    "named_buffers": lambda lib, net: _keys(net.named_buffers()),
    "named_buffers-norecurse": lambda lib, net: _keys(net.named_buffers(recurse=False)),
    "state_dict": lambda lib, net: list(net.state_dict()),
    "state_dict-prefix": lambda lib, net: list(net.state_dict(prefix="z.")),
    "state_dict-keep_vars": lambda lib, net: [type(v).__name__ for v in net.state_dict(keep_vars=True).values()],
    "state_dict-keep_vars-same": lambda lib, net: net.state_dict(keep_vars=True)["a.weight"] is net.a.weight,
    "state_dict-destination": lambda lib, net: (lambda d: (net.state_dict(destination=d) is d, list(d)[:1]))(
        OrderedDict(first=1)),
    "train": lambda lib, net: net.train() is net,
    "eval": lambda lib, net: (net.eval() is net, [m.training for m in net.modules()]),
    "train-false": lambda lib, net: [m.training for m in net.train(False).modules()],
    "train-not-bool": lambda lib, net: net.train("yes"),
    "requires_grad_": lambda lib, net: (net.requires_grad_(False) is net, [p.requires_grad for p in net.parameters()]),
    "apply": lambda lib, net: (lambda seen: (net.apply(lambda m: seen.append(type(m).__name__)) is net, seen))([]),
    "get_submodule": lambda lib, net: type(net.get_submodule("b.1")).__name__,
    "get_submodule-self": lambda lib, net: net.get_submodule("") is net,
    "get_submodule-missing": lambda lib, net: net.get_submodule("b.7"),
    "get_submodule-not-module": lambda lib, net: net.get_submodule("a.weight"),
    "get_parameter": lambda lib, net: net.get_parameter("b.1.weight") is net.b[1].weight,
    "get_parameter-top": lambda lib, net: tuple(net.get_parameter("p").shape),
    "get_parameter-missing": lambda lib, net: net.get_parameter("b.1.nope"),
    "get_parameter-buffer": lambda lib, net: net.get_parameter("m"),
    "get_buffer": lambda lib, net: tuple(net.get_buffer("b.2.running_mean").shape),
    "get_buffer-parameter": lambda lib, net: net.get_buffer("a.weight"),
    "double": lambda lib, net: (net.double() is net, _dt(net.a.weight), _dt(net.m), _dt(net.b[2].num_batches_tracked)),
    "float": lambda lib, net: (net.double().float() is net, _dt(net.a.weight)),
    "half": lambda lib, net: (net.half() is net, _dt(net.a.weight), _dt(net.m)),
    "bfloat16": lambda lib, net: (net.bfloat16() is net, _dt(net.a.weight)),
    "to-dtype": lambda lib, net: (net.to(lib.float64) is net, _dt(net.a.weight)),
    "to-kwargs": lambda lib, net: (net.to(device="cpu", dtype=lib.float64) is net, _dt(net.a.weight)),
    "to-tensor": lambda lib, net: (net.to(lib.zeros(1, dtype=lib.float64)) is net, _dt(net.p)),
    "to-device": lambda lib, net: net.to("cpu") is net and net.cpu() is net,
    "to-int": lambda lib, net: net.to(lib.int64),
    "type": lambda lib, net: (net.type(lib.float64) is net, _dt(net.a.weight)),
    "register_buffer-dot": lambda lib, net: net.register_buffer("x.y", lib.ones(1)),
    "register_buffer-empty": lambda lib, net: net.register_buffer("", lib.ones(1)),
    "register_buffer-taken": lambda lib, net: net.register_buffer("p", lib.ones(1)),
    "register_buffer-attribute": lambda lib, net: net.register_buffer("forward", lib.ones(1)),
    "register_buffer-not-tensor": lambda lib, net: net.register_buffer("z", 3),
    "register_buffer-again": lambda lib, net: (net.register_buffer("m", lib.zeros(3)), list(net.state_dict())),
    "register_buffer-non-persistent": lambda lib, net: (
        net.register_buffer("t", lib.ones(2), persistent=False), list(net.state_dict()), _keys(net.named_buffers())),
    "register_parameter-not-param": lambda lib, net: net.register_parameter("z", lib.ones(1)),
    "register_parameter-taken": lambda lib, net: net.register_parameter("m", lib.nn.Parameter(lib.ones(1))),
    "register_parameter-dot": lambda lib, net: net.register_parameter("x.y", lib.nn.Parameter(lib.ones(1))),
    "register_parameter-none": lambda lib, net: (net.register_parameter("r", None), net.r,
                                                 _keys(net.named_parameters())),
    "add_module": lambda lib, net: (net.add_module("c", lib.nn.Tanh()), _keys(net.named_children())),
    "add_module-not-module": lambda lib, net: net.add_module("c", 3),
    "register_module-none": lambda lib, net: (net.register_module("d", None), net.d, _keys(net.named_children())),
    "setattr-parameter": lambda lib, net: (setattr(net, "w", lib.nn.Parameter(lib.ones(2))), _keys(net.named_parameters())),
    "delattr-parameter": lambda lib, net: (delattr(net, "p"), _keys(net.named_parameters())),
    "delattr-buffer": lambda lib, net: (delattr(net, "m"), list(net.state_dict())),
    "delattr-module": lambda lib, net: (delattr(net, "b"), _keys(net.named_modules())),
    "assign-tensor-to-parameter": lambda lib, net: setattr(net, "p", lib.ones(1)),
    "assign-none-to-parameter": lambda lib, net: (setattr(net, "p", None), net.p, list(net.state_dict())),
    "replace-module": lambda lib, net: (setattr(net, "a", lib.nn.Linear(2, 5)), _keys(net.named_parameters())),
    "modules-count": lambda lib, net: len(list(net.modules())),
    "parameters-count": lambda lib, net: sum(p.numel() for p in net.parameters()),
    "buffers-count": lambda lib, net: len(list(net.buffers())),
    "_get_name": lambda lib, net: net._get_name(),
    "set_submodule": lambda lib, net: (net.set_submodule("b.0", lib.nn.Tanh()), repr(net.b)),
    "set_submodule-new": lambda lib, net: (net.set_submodule("b.z", lib.nn.Tanh()), _keys(net.b.named_children())),
    "set_submodule-strict": lambda lib, net: net.set_submodule("b.z", lib.nn.Tanh(), strict=True),
    "set_submodule-not-module": lambda lib, net: net.set_submodule("b.0", 3),
    "set_submodule-parameter": lambda lib, net: net.set_submodule("p", lib.nn.Tanh()),
    "compile": lambda lib, net: (net.compile(), tuple(net(lib.ones(4, 2)).shape)),
    "to_empty": lambda lib, net: (net.to_empty(device="cpu") is net, tuple(net.a.weight.shape)),
    "dir": lambda lib, net: [n for n in ("a", "b", "m", "p", "forward", "weight") if n in dir(net)],
    "forward-missing": lambda lib, net: lib.nn.Module()(1),
    "get_extra_state-default": lambda lib, net: net.get_extra_state(),
    "linear-zero-out": lambda lib, net: tuple(lib.nn.Linear(3, 0)(lib.ones(2, 3)).shape),
    "parameter-of-integers": lambda lib, net: lib.nn.Parameter(lib.ones(2, dtype=lib.int64)),
    "linear-zero-in": lambda lib, net: lib.nn.Linear(0, 2)(lib.ones(2, 0)).detach().numpy().tolist(),
}


def test_extra_state_is_saved_after_the_buffers_and_loaded_back():
    for lib in (gt, torch):
        nn = lib.nn

        class Counter(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 2)
                self.register_buffer("b", lib.zeros(1))
                self.steps = 0

            def get_extra_state(self):
                return {"steps": self.steps}

            def set_extra_state(self, state):
                self.steps = state["steps"]

        model = nn.Sequential(Counter(), nn.ReLU(), Counter())
        model[0].steps = 7
        sd = model.state_dict()
        assert list(sd) == ["0.b", "0._extra_state", "0.fc.weight", "0.fc.bias", "2.b", "2._extra_state",
                            "2.fc.weight", "2.fc.bias"]
        assert sd["0._extra_state"] == {"steps": 7}
        fresh = nn.Sequential(Counter(), nn.ReLU(), Counter())
        assert repr(fresh.load_state_dict(sd)) == "<All keys matched successfully>"
        assert fresh[0].steps == 7 and fresh[2].steps == 0
        del sd["2._extra_state"]
        assert fresh.load_state_dict(sd, strict=False).missing_keys == ["2._extra_state"]


def _run(probe, lib):
    net = _net(lib)
    try:
        return probe(lib, net)
    except Exception as e:  # the class is compared, not the message
        return e


@pytest.mark.parametrize("name", list(PROBES))
def test_module_api_matches_torch(name):
    theirs = _run(PROBES[name], torch)
    ours = _run(PROBES[name], gt)
    if isinstance(theirs, Exception):
        assert isinstance(ours, type(theirs)), (name, ours, theirs)
        assert "fix:" in str(ours) or isinstance(ours, AttributeError), str(ours)
    else:
        assert not isinstance(ours, Exception), (name, ours)
        assert ours == theirs


def test_zero_grad_sets_none_by_default_and_zeros_in_place_otherwise():
    for lib in (gt, torch):
        net = _net(lib)
        x = lib.ones(4, 2)
        net(x).sum().backward()
        assert net.a.weight.grad is not None
        assert net.zero_grad() is None
        assert all(p.grad is None for p in net.parameters())
        net(x).sum().backward()
        g = net.a.weight.grad
        net.zero_grad(set_to_none=False)
        assert float(g.abs().sum()) == 0.0 and float(net.a.weight.grad.abs().sum()) == 0.0  # in place


def _state(lib, net):
    """A net's state_dict in the form its library's load_state_dict reads back."""
    return {k: (v.clone() if hasattr(v, "clone") else np.array(v)) for k, v in net.state_dict().items()}


def test_load_state_dict_results_and_errors_match_torch():
    for lib in (gt, torch):
        net = _net(lib)
        sd = _state(lib, net)
        assert repr(net.load_state_dict(sd)) == "<All keys matched successfully>"
        r = net.load_state_dict(sd, strict=True)
        assert type(r).__name__ == "_IncompatibleKeys" and r.missing_keys == [] and r.unexpected_keys == []
        del sd["a.bias"]
        sd["extra"] = sd["m"]
        r = net.load_state_dict(sd, strict=False)
        assert (r.missing_keys, r.unexpected_keys) == (["a.bias"], ["extra"])  # shared.bias is still given
        assert repr(r) == "_IncompatibleKeys(missing_keys=['a.bias'], unexpected_keys=['extra'])"
        with pytest.raises(RuntimeError, match=r"Error\(s\) in loading state_dict for Net") as info:
            net.load_state_dict(sd)
        assert 'Missing key(s) in state_dict: "a.bias". ' in str(info.value)
        assert 'Unexpected key(s) in state_dict: "extra"' in str(info.value)
        sd = _state(lib, net)
        sd["a.weight"] = sd["m"]
        with pytest.raises(RuntimeError, match="size mismatch for a.weight"):
            net.load_state_dict(sd, strict=False)


def test_load_state_dict_assign_takes_the_entries_as_new_parameters():
    for lib in (gt, torch):
        net = _net(lib)
        old = net.b[1].weight
        sd = _state(lib, net)
        new = sd["b.1.weight"] + 1
        sd["b.1.weight"] = new.double() if lib is torch else new.astype(np.float64)
        net.load_state_dict(sd, assign=True)
        w = net.b[1].weight
        assert w is not old and type(w).__name__ == "Parameter" and w.requires_grad and _dt(w) == "float64"
        np.testing.assert_array_equal(np.asarray(w.detach().numpy()), np.asarray(sd["b.1.weight"]))
        assert _dt(net.a.weight) == "float32"  # a.weight and shared.weight are one tensor: the last entry wins


def _seq(nn):
    return nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 4), nn.Tanh())


def _mods(nn):
    return nn.ModuleList([nn.ReLU(), nn.Tanh(), nn.GELU()])


def _P(lib, n):
    return lib.nn.Parameter(lib.ones(n))


CONTAINER_PROBES = {
    "seq-index": lambda lib, nn: type(_seq(nn)[-1]).__name__,
    "seq-slice": lambda lib, nn: repr(_seq(nn)[1:3]),
    "seq-slice-step": lambda lib, nn: repr(_seq(nn)[::2]),
    "seq-index-out-of-range": lambda lib, nn: _seq(nn)[9],
    "seq-len": lambda lib, nn: len(_seq(nn)),
    "seq-append": lambda lib, nn: (lambda s: (s.append(nn.ReLU()) is s, repr(s)))(_seq(nn)),
    "seq-insert": lambda lib, nn: (lambda s: (s.insert(1, nn.Sigmoid()) is s, repr(s)))(_seq(nn)),
    "seq-insert-negative": lambda lib, nn: (lambda s: (s.insert(-1, nn.Sigmoid()), repr(s))[1])(_seq(nn)),
    "seq-insert-out-of-range": lambda lib, nn: _seq(nn).insert(10, nn.Sigmoid()),
    "seq-extend": lambda lib, nn: (lambda s: (s.extend([nn.ReLU(), nn.ReLU()]) is s, repr(s)))(_seq(nn)),
    "seq-pop": lambda lib, nn: (lambda s: (type(s.pop(1)).__name__, repr(s)))(_seq(nn)),
    "seq-del": lambda lib, nn: (lambda s: (s.__delitem__(0), repr(s))[1])(_seq(nn)),
    "seq-del-slice": lambda lib, nn: (lambda s: (s.__delitem__(slice(0, 2)), repr(s))[1])(_seq(nn)),
    "seq-setitem": lambda lib, nn: (lambda s: (s.__setitem__(1, nn.GELU()), repr(s))[1])(_seq(nn)),
    "seq-add": lambda lib, nn: repr(_seq(nn) + _seq(nn)),
    "seq-mul": lambda lib, nn: repr(nn.Sequential(nn.ReLU()) * 2),
    "seq-iadd": lambda lib, nn: (lambda s: (s.__iadd__(_seq(nn)) is s, len(s)))(_seq(nn)),
    "seq-ordereddict": lambda lib, nn: repr(nn.Sequential(OrderedDict([("c", nn.ReLU()), ("d", nn.Tanh())]))),
    "seq-iter": lambda lib, nn: [type(m).__name__ for m in _seq(nn)],
    "seq-empty-bool": lambda lib, nn: bool(nn.Sequential()),
    "seq-call": lambda lib, nn: tuple(_seq(nn)(lib.ones(2, 2)).shape),
    "seq-contains": lambda lib, nn: (lambda s: s[0] in s)(_seq(nn)),
    "ml-append": lambda lib, nn: (lambda m: (m.append(nn.ReLU()) is m, len(m)))(nn.ModuleList()),
    "ml-extend": lambda lib, nn: (lambda m: (m.extend([nn.ReLU(), nn.Tanh()]) is m, repr(m)))(nn.ModuleList()),
    "ml-insert": lambda lib, nn: (lambda m: (m.insert(0, nn.Tanh()), repr(m))[1])(_mods(nn)),
    "ml-pop": lambda lib, nn: (lambda m: (type(m.pop(0)).__name__, repr(m)))(_mods(nn)),
    "ml-pop-negative": lambda lib, nn: (lambda m: (type(m.pop(-1)).__name__, repr(m)))(_mods(nn)),
    "ml-slice": lambda lib, nn: (type(_mods(nn)[1:]).__name__, repr(_mods(nn)[1:])),
    "ml-negative": lambda lib, nn: type(_mods(nn)[-1]).__name__,
    "ml-del": lambda lib, nn: (lambda m: (m.__delitem__(0), repr(m))[1])(_mods(nn)),
    "ml-add": lambda lib, nn: repr(nn.ModuleList([nn.ReLU()]) + nn.ModuleList([nn.Tanh()])),
    "ml-iadd": lambda lib, nn: (lambda m: (m.__iadd__([nn.Tanh()]) is m, len(m)))(_mods(nn)),
    "ml-setitem": lambda lib, nn: (lambda m: (m.__setitem__(0, nn.Tanh()), repr(m))[1])(_mods(nn)),
    "ml-repeated": lambda lib, nn: repr(nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU(), nn.ReLU()])),
    "ml-not-module": lambda lib, nn: nn.ModuleList([3]),
    "md-keys": lambda lib, nn: list(nn.ModuleDict({"b": nn.ReLU(), "a": nn.Tanh()}).keys()),
    "md-items": lambda lib, nn: [(k, type(v).__name__) for k, v in nn.ModuleDict({"b": nn.ReLU(), "a": nn.Tanh()}).items()],
    "md-pop": lambda lib, nn: (lambda d: (type(d.pop("b")).__name__, list(d)))(nn.ModuleDict({"b": nn.ReLU(), "a": nn.Tanh()})),
    "md-update": lambda lib, nn: (lambda d: (d.update({"c": nn.GELU()}), list(d))[1])(nn.ModuleDict({"b": nn.ReLU()})),
    "md-update-pairs": lambda lib, nn: (lambda d: (d.update([("c", nn.GELU())]), list(d))[1])(nn.ModuleDict({"b": nn.ReLU()})),
    "md-clear": lambda lib, nn: (lambda d: (d.clear(), len(d))[1])(nn.ModuleDict({"b": nn.ReLU()})),
    "md-contains": lambda lib, nn: "b" in nn.ModuleDict({"b": nn.ReLU()}),
    "md-missing": lambda lib, nn: nn.ModuleDict({"b": nn.ReLU()})["zz"],
    "md-setitem": lambda lib, nn: (lambda d: (d.__setitem__("x", nn.ReLU()), repr(d))[1])(nn.ModuleDict()),
    "md-repr": lambda lib, nn: repr(nn.ModuleDict({"b": nn.ReLU(), "a": nn.Linear(1, 2)})),
    "md-not-module": lambda lib, nn: nn.ModuleDict({"b": 3}),
    "pl-len": lambda lib, nn: len(nn.ParameterList([_P(lib, 1), _P(lib, 2)])),
    "pl-append": lambda lib, nn: (lambda pl: (pl.append(_P(lib, 3)) is pl, len(pl)))(nn.ParameterList()),
    "pl-extend": lambda lib, nn: (lambda pl: (pl.extend([_P(lib, 3), _P(lib, 1)]) is pl, len(pl)))(nn.ParameterList()),
    "pl-names": lambda lib, nn: _keys(nn.ParameterList([_P(lib, 1), _P(lib, 2)]).named_parameters()),
    "pl-tensor-becomes-parameter": lambda lib, nn: type(nn.ParameterList([lib.ones(2)])[0]).__name__,
    "pl-slice": lambda lib, nn: type(nn.ParameterList([_P(lib, 1), _P(lib, 2), _P(lib, 3)])[1:]).__name__,
    "pl-setitem": lambda lib, nn: (lambda pl: (pl.__setitem__(0, _P(lib, 5)), tuple(pl[0].shape))[1])(nn.ParameterList([_P(lib, 1)])),
    "pl-repr": lambda lib, nn: repr(nn.ParameterList([_P(lib, 1), _P(lib, 2)])).replace("glassgrad.", "torch."),
    "pl-repr-one": lambda lib, nn: repr(nn.ParameterList([_P(lib, 1)])).replace("glassgrad.", "torch."),
    "pl-repr-empty": lambda lib, nn: repr(nn.ParameterList()),
    "pd-dict-sorted": lambda lib, nn: list(nn.ParameterDict({"b": _P(lib, 1), "a": _P(lib, 2)}).keys()),
    "pd-ordereddict-kept": lambda lib, nn: list(nn.ParameterDict(OrderedDict(b=_P(lib, 1), a=_P(lib, 2))).keys()),
    "pd-pairs-kept": lambda lib, nn: list(nn.ParameterDict([("b", _P(lib, 1)), ("a", _P(lib, 2))]).keys()),
    "pd-names": lambda lib, nn: _keys(nn.ParameterDict({"b": _P(lib, 1), "a": _P(lib, 2)}).named_parameters()),
    "pd-pop": lambda lib, nn: (lambda d: (tuple(d.pop("b").shape), list(d)))(nn.ParameterDict({"b": _P(lib, 1), "a": _P(lib, 2)})),
    "pd-update": lambda lib, nn: (lambda d: (d.update({"c": _P(lib, 3)}), list(d))[1])(nn.ParameterDict({"b": _P(lib, 1)})),
    "pd-update-bad-pair": lambda lib, nn: nn.ParameterDict().update([("a", _P(lib, 1), 3)]),
    "pd-setdefault": lambda lib, nn: (lambda d: (tuple(d.setdefault("c", _P(lib, 3)).shape), list(d)))(nn.ParameterDict({"b": _P(lib, 1)})),
    "pd-popitem": lambda lib, nn: (lambda d: (d.popitem()[0], list(d)))(nn.ParameterDict({"b": _P(lib, 1), "a": _P(lib, 2)})),
    "pd-copy": lambda lib, nn: (lambda d: (type(d.copy()).__name__, d.copy()["b"] is d["b"]))(nn.ParameterDict({"b": _P(lib, 1)})),
    "pd-fromkeys": lambda lib, nn: list(nn.ParameterDict({"b": _P(lib, 1)}).fromkeys(["x", "y"])),
    "pd-get": lambda lib, nn: nn.ParameterDict({"b": _P(lib, 1)}).get("zz", 5),
    "pd-or": lambda lib, nn: list(nn.ParameterDict({"b": _P(lib, 1)}) | nn.ParameterDict({"c": _P(lib, 1)})),
    "pd-ior": lambda lib, nn: (lambda d: list(d.__ior__(nn.ParameterDict({"a": _P(lib, 1)}))))(nn.ParameterDict({"b": _P(lib, 1)})),
    "pd-tensor-becomes-parameter": lambda lib, nn: type(nn.ParameterDict({"b": lib.ones(2)})["b"]).__name__,
    "pd-repr": lambda lib, nn: repr(nn.ParameterDict({"b": _P(lib, 1), "a": _P(lib, 2)})).replace("glassgrad.", "torch."),
    "pd-clear": lambda lib, nn: (lambda d: (d.clear(), len(d))[1])(nn.ParameterDict({"b": _P(lib, 1)})),
    "pd-reversed": lambda lib, nn: list(reversed(nn.ParameterDict({"b": _P(lib, 1), "a": _P(lib, 2)}))),
    "pd-in": lambda lib, nn: "b" in nn.ParameterDict({"b": _P(lib, 1)}),
}


@pytest.mark.parametrize("name", list(CONTAINER_PROBES))
def test_container_api_matches_torch(name):
    def run(lib):
        try:
            return CONTAINER_PROBES[name](lib, lib.nn)
        except Exception as e:
            return e
    theirs, ours = run(torch), run(gt)
    if isinstance(theirs, Exception):
        assert isinstance(ours, type(theirs)), (name, ours, theirs)
    else:
        assert not isinstance(ours, Exception), (name, ours)
        assert ours == theirs


def _state_dict_hook_script(lib):
    nn = lib.nn
    log = []
    m = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Linear(2, 1)))
    m.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: log.append(("pre", type(mod).__name__, prefix, keep_vars)))
    m[1].register_state_dict_pre_hook(lambda mod, prefix, keep_vars: log.append(("pre1", prefix)))
    def post(mod, sd, prefix, meta):
        log.append(("post", prefix, sorted(sd)))
        sd["extra." + prefix] = sd[prefix + "0.weight"]
    m[1].register_state_dict_post_hook(post)
    sd = m.state_dict()
    log.append(sorted(sd))
    def rename(mod, state, prefix, meta, strict, missing, unexpected, errors):
        log.append(("lpre", type(mod).__name__, prefix, strict))
        if prefix + "old_bias" in state:
            state[prefix + "0.bias"] = state.pop(prefix + "old_bias")
    m2 = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Linear(2, 1)))
    m2[1].register_load_state_dict_pre_hook(rename)
    given = {k: (v.clone() if hasattr(v, "clone") else np.array(v)) for k, v in m.state_dict().items() if not k.startswith("extra")}
    given["1.old_bias"] = given.pop("1.0.bias")
    r = m2.load_state_dict(given)
    log.append(("lres", repr(r), "1.old_bias" in given))
    m3 = nn.Linear(2, 2)
    m3.register_load_state_dict_post_hook(lambda mod, inc: (log.append(("lpost", list(inc.missing_keys), list(inc.unexpected_keys))), inc.unexpected_keys.clear(), None)[-1])
    sd3 = {k: (v.clone() if hasattr(v, "clone") else np.array(v)) for k, v in m3.state_dict().items()}
    sd3["junk"] = sd3["bias"]
    log.append(("post-strict", repr(m3.load_state_dict(sd3))))
    del sd3["bias"]
    try:
        m3.load_state_dict(sd3)
    except RuntimeError as e:
        log.append(("raised", "Missing key(s)" in str(e)))
    return log


def test_state_dict_and_load_state_dict_hooks_match_torch():
    """pre/post hooks of state_dict and load_state_dict: what they see (module, prefix, keys,
    strict, incompatible keys), a post-hook adding an entry, a load pre-hook renaming an old key, a
    load post-hook clearing unexpected keys before the strict check, and refusing a return value."""
    assert _state_dict_hook_script(gt) == _state_dict_hook_script(torch)
    for lib in (gt, torch):
        m = lib.nn.Linear(2, 2)
        m.register_load_state_dict_post_hook(lambda mod, inc: inc)
        with pytest.raises(AssertionError, match="not expected to return new values"):
            m.load_state_dict({k: (v.clone() if hasattr(v, "clone") else np.array(v)) for k, v in m.state_dict().items()})
