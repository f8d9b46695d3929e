"""Optimizer behaviour PyTorch documents beyond the update rules: optimizer.state is a
defaultdict(dict) (state[p] of a parameter without state reads {}, and state_dict() then saves
that empty entry, as PyTorch's), LBFGS.step() without a closure is a TypeError, a group without
'params' a KeyError and a set of parameters a TypeError. Torch-free expectations, and the same
checks against torch.optim where installed."""
import warnings

import pytest

import glassgrad as gg


def _params(lib):
    return [lib.ones(3, requires_grad=True), lib.zeros(2, requires_grad=True)]


def test_state_of_a_parameter_without_state_reads_empty():
    ps = _params(gg)
    opt = gg.optim.SGD(ps, lr=0.1)        # no momentum: SGD keeps no state
    (ps[0] ** 2).sum().backward()
    opt.step()
    assert opt.state_dict()["state"] == {}
    assert opt.state[ps[0]] == {} and opt.state[ps[1]] == {}
    assert opt.state_dict()["state"] == {0: {}, 1: {}}   # PyTorch saves the entries a read made
    adam = gg.optim.Adam(ps, lr=0.1)
    assert adam.state[ps[0]] == {}
    (ps[0] ** 2).sum().backward()
    adam.step()                            # an entry read before the first step does not stop it
    assert list(adam.state[ps[0]]) == ["step", "exp_avg", "exp_avg_sq"]
    assert list(adam.state_dict()["state"]) == [0]   # ps[1] has no gradient and was not read


def test_state_after_load_state_dict_is_still_a_defaultdict():
    ps = _params(gg)
    opt = gg.optim.Adam(ps, lr=0.1)
    opt.load_state_dict(gg.optim.Adam(_params(gg), lr=0.1).state_dict())
    assert opt.state[ps[1]] == {}
    lbfgs = gg.optim.LBFGS(ps)
    lbfgs.load_state_dict(gg.optim.LBFGS(_params(gg)).state_dict())
    assert lbfgs.state[ps[0]] == {}


def test_lbfgs_step_without_closure_is_a_type_error():
    with pytest.raises(TypeError, match="closure"):
        gg.optim.LBFGS(_params(gg)).step()


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "Adagrad"])
def test_state_access_matches_torch(name):
    torch = pytest.importorskip("torch")
    seen = []
    for lib in (torch, gg):
        ps = _params(lib)
        opt = getattr(lib.optim, name)(ps, lr=0.1)
        before = sorted(opt.state[ps[1]])   # Adagrad's entries are made in its constructor
        (ps[0] ** 2).sum().backward()
        opt.step()
        seen.append((before, sorted(opt.state[ps[0]]), sorted(opt.state_dict()["state"])))
    assert seen[0] == seen[1]


def test_a_group_without_params_is_a_key_error_and_a_set_of_params_a_type_error():
    opt = gg.optim.SGD(_params(gg), lr=0.1)
    with pytest.raises(KeyError, match="params"):
        opt.add_param_group({"lr": 0.1})
    with pytest.raises(TypeError, match="ordered collections"):
        opt.add_param_group({"params": {gg.ones(2, requires_grad=True)}})
    with pytest.raises(TypeError, match="ordered collections"):
        gg.optim.Adam([{"params": set(_params(gg))}])
    assert len(opt.param_groups) == 1
    opt.add_param_group({"params": (gg.ones(2, requires_grad=True),), "lr": 0.5})   # a tuple is ordered
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]


@pytest.mark.parametrize("group", [{"lr": 0.1}, {"params": "set"}])
def test_group_refusals_match_torch(group):
    torch = pytest.importorskip("torch")
    kinds = []
    for lib in (torch, gg):
        g = dict(group)
        if g.get("params") == "set":
            g["params"] = {lib.ones(2, requires_grad=True)}
        with pytest.raises((KeyError, TypeError)) as caught:
            lib.optim.SGD(_params(lib), lr=0.1).add_param_group(g)
        kinds.append(KeyError if issubclass(caught.type, KeyError) else TypeError)
    assert kinds[0] is kinds[1]


def _plain_sgd_class(lib):
    class PlainSGD(lib.optim.Optimizer):   # a script's own optimizer: its step() never calls super().step()
        def __init__(self, params, lr=0.1):
            super().__init__(params, dict(lr=lr))

        @lib.no_grad()
        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        state = self.state[p]
                        state["step"] = state.get("step", 0) + 1
                        p.add_(p.grad, alpha=-group["lr"])
    return PlainSGD


def _schedule_warnings(lib, scheduler_first):
    ps = _params(lib)
    opt = _plain_sgd_class(lib)(ps)
    sched = lib.optim.lr_scheduler.StepLR(opt, 1, gamma=0.5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):
            (ps[0] ** 2).sum().backward()
            if scheduler_first:
                sched.step()
                opt.step()
            else:
                opt.step()
                sched.step()
    return ["before `optimizer.step()`" in str(w.message) for w in caught], ps[0].tolist()


def test_a_subclass_step_counts_for_the_scheduler_step_order_warning():
    flags, values = _schedule_warnings(gg, scheduler_first=False)
    assert flags == []
    # p = 1, grad 2: p = 1 - 0.1 * 2 = 0.8; lr halves to 0.05 and the gradient (not zeroed)
    # accumulates to 2 + 1.6: p = 0.8 - 0.05 * 3.6 = 0.62
    assert values == pytest.approx([0.62] * 3)
    assert _schedule_warnings(gg, scheduler_first=True)[0] == [True]


@pytest.mark.parametrize("scheduler_first", [False, True])
def test_the_step_order_warning_with_a_subclass_matches_torch(scheduler_first):
    torch = pytest.importorskip("torch")
    assert _schedule_warnings(torch, scheduler_first)[0] == _schedule_warnings(gg, scheduler_first)[0]


def _get_lr_warnings(lib):
    class Warmup(lib.optim.lr_scheduler.LRScheduler):   # a script's own schedule
        def get_lr(self):
            return [base * min(1.0, (self.last_epoch + 1) / 4) for base in self.base_lrs]
    opt = lib.optim.SGD(_params(lib), lr=0.1)
    seen = []
    for sched in (Warmup(opt), lib.optim.lr_scheduler.StepLR(opt, 2)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rates = sched.get_lr()
        seen.append(([round(r, 12) for r in rates], ["get_last_lr()" in str(w.message) for w in caught]))
    return seen


def test_get_lr_of_a_scripts_scheduler_does_not_warn_pytorchs_own_do():
    (custom_rates, custom_warned), (_, builtin_warned) = _get_lr_warnings(gg)
    assert custom_rates == [0.025] and custom_warned == []   # one group, epoch 0: 0.1 * 1 / 4
    assert builtin_warned == [True]


def test_get_lr_warnings_match_torch():
    torch = pytest.importorskip("torch")
    assert _get_lr_warnings(torch) == _get_lr_warnings(gg)


@pytest.mark.parametrize("name", ["Adam", "AdamW"])
@pytest.mark.parametrize("betas", [(0, 0.999), (0.9, gg.tensor(0.99)), (gg.tensor(0.9), 0.99)])
def test_adam_betas_are_both_floats_or_both_tensors(name, betas):
    with pytest.raises(ValueError) as e:
        getattr(gg.optim, name)(_params(gg), betas=betas)
    assert str(e.value).splitlines()[0] == "betas must be either both floats or both Tensors"


@pytest.mark.parametrize("name", ["Adam", "AdamW"])
def test_adam_tensor_betas_refuse_foreach_without_capturable(name):
    betas = (gg.tensor(0.9), gg.tensor(0.99))
    with pytest.raises(ValueError) as e:
        getattr(gg.optim, name)(_params(gg), betas=betas, foreach=True)
    assert str(e.value).splitlines()[0] == ("betas[0] as a Tensor is not supported for capturable=False and "
                                            "foreach=True")
    opt = getattr(gg.optim, name)(_params(gg), betas=betas)  # foreach=None: accepted
    assert opt.param_groups[0]["betas"][0] == pytest.approx(0.9)


def test_an_out_of_range_beta_is_named_before_its_kind():
    # PyTorch checks the range first: (0.9, 1) is out of range, not "both floats"
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        gg.optim.Adam(_params(gg), betas=(0.9, 1))


def test_other_betas_optimizers_take_int_betas_as_torch():
    for name in ("NAdam", "RAdam", "Adamax"):
        opt = getattr(gg.optim, name)(_params(gg), betas=(0, 0.99))
        assert opt.param_groups[0]["betas"] == (0.0, 0.99)


@pytest.mark.parametrize("name, key, given", [("Adam", "betas", [0.8, 0.9]), ("AdamW", "betas", [0.8, 0.9]),
                                               ("Adamax", "betas", [0.8, 0.9]), ("NAdam", "betas", [0.8, 0.9]),
                                               ("RAdam", "betas", [0.8, 0.9]), ("SparseAdam", "betas", [0.8, 0.9]),
                                               ("Rprop", "etas", [0.4, 1.3]), ("Rprop", "step_sizes", [1e-6, 50])])
def test_a_list_hyperparameter_stays_the_groups_list_as_torch(name, key, given):
    torch = pytest.importorskip("torch")
    for lib in (gg, torch):
        p, q = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
        opt = getattr(lib.optim, name)([p], **{key: given})
        opt.add_param_group({"params": [q], key: list(given)})
        # PyTorch's Adam and AdamW make the constructor's betas a tuple
        first = tuple(given) if name in ("Adam", "AdamW") else given
        assert [g[key] for g in opt.param_groups] == [first, given]
        assert name in ("Adam", "AdamW") or opt.param_groups[0][key] is given
        assert [type(g[key]) for g in opt.state_dict()["param_groups"]] == [type(first), list]
    loaded = getattr(gg.optim, name)([gg.ones(2, requires_grad=True), gg.ones(2, requires_grad=True)])
    with pytest.raises(ValueError):  # two groups saved, one here: refused
        loaded.load_state_dict(opt.state_dict())
    loaded = getattr(gg.optim, name)([gg.ones(2, requires_grad=True)])
    loaded.add_param_group({"params": [gg.ones(2, requires_grad=True)]})
    loaded.load_state_dict(opt.state_dict())
    assert [g[key] for g in loaded.param_groups] == [first, given]


def test_lbfgs_keeps_a_tensor_lr_as_the_groups_object():
    lr = gg.tensor(0.5)
    p = gg.tensor([1.0, -2.0], requires_grad=True)
    opt = gg.optim.LBFGS([p], lr=lr)
    sched = gg.optim.lr_scheduler.ExponentialLR(opt, 0.5)

    def closure():
        opt.zero_grad()
        loss = ((p - 3) ** 2).sum()
        loss.backward()
        return loss

    for _ in range(2):
        opt.step(closure)
        sched.step()
    assert opt.param_groups[0]["lr"] is lr and lr.item() == 0.125  # filled in place, as PyTorch's
    assert p.detach().numpy() == pytest.approx([3.0, 3.0], abs=1e-4)
    with pytest.raises(ValueError, match="Tensor lr must be 1-element"):
        gg.optim.LBFGS([p], lr=gg.tensor([0.5, 0.1]))
