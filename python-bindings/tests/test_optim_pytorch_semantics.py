"""Optimizer behaviour PyTorch documents beyond the update rules: optimizer.state is a
defaultdict(dict) (state[p] of a parameter without state reads {}, and state_dict() then saves
that empty entry, as PyTorch's), LBFGS.step() without a closure
is a TypeError. Torch-free expectations, and the same checks against torch.optim where installed."""
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
