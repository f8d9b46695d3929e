"""nn.utils.prune against torch.nn.utils.prune (the pruning tutorial): the parameters, buffers,
state_dict keys and pre-hook a pruning leaves, the masks of the deterministic methods (l1,
ln-structured, global l1, custom masks, identity), pruning again among the unpruned entries,
the number pruned by the random methods, the forward with the mask, remove(), is_pruned and
the amount errors. Skipped when torch is not importable."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.utils.prune as gprune

torch = pytest.importorskip("torch")
tprune = pytest.importorskip("torch.nn.utils.prune")

_SIGNS = np.random.default_rng(3).choice([-1.0, 1.0], 54)
W = ((np.random.default_rng(0).permutation(54) + 1) * _SIGNS / 10).reshape(6, 1, 3, 3).astype(np.float32)  # distinct |w|
B = np.array([0.5, -0.1, 0.3, -0.7, 0.2, 0.9], np.float32)
X = np.random.default_rng(1).standard_normal((2, 1, 5, 5)).astype(np.float32)


def _pair():
    ours, theirs = gg.nn.Conv2d(1, 6, 3), torch.nn.Conv2d(1, 6, 3)
    ours.load_state_dict({"weight": W, "bias": B})
    theirs.load_state_dict({"weight": torch.tensor(W), "bias": torch.tensor(B)})
    return ours, theirs


def _same(ours, theirs):
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for name, _ in theirs.named_buffers():
        np.testing.assert_array_equal(getattr(ours, name).numpy(), getattr(theirs, name).numpy())
    np.testing.assert_allclose(ours(gg.tensor(X)).detach().numpy(), theirs(torch.tensor(X)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


STEPS = {
    "l1 weight": lambda p, m: p.l1_unstructured(m, "weight", amount=0.3),
    "l1 bias by count": lambda p, m: p.l1_unstructured(m, "bias", amount=3),
    "l1 twice": lambda p, m: (p.l1_unstructured(m, "weight", amount=0.3), p.l1_unstructured(m, "weight", 0.5)),
    "ln structured": lambda p, m: p.ln_structured(m, "weight", amount=0.5, n=2, dim=0),
    "l1 then ln structured": lambda p, m: (p.l1_unstructured(m, "weight", amount=9),
                                           p.ln_structured(m, "weight", amount=2, n=1, dim=0)),
    "ln inf structured": lambda p, m: p.ln_structured(m, "weight", amount=1, n=float("inf"), dim=0),
    "identity": lambda p, m: p.identity(m, "weight"),
    "custom mask": lambda p, m: p.custom_from_mask(m, "bias", mask=(gg if p is gprune else torch).tensor(
        [0, 1, 1, 0, 1, 1])),
    "l1 and remove": lambda p, m: (p.l1_unstructured(m, "weight", amount=0.4), p.remove(m, "weight")),
}


@pytest.mark.parametrize("name", list(STEPS))
def test_pruning_matches_torch(name):
    ours, theirs = _pair()
    STEPS[name](gprune, ours)
    STEPS[name](tprune, theirs)
    _same(ours, theirs)
    assert gprune.is_pruned(ours) == tprune.is_pruned(theirs)


def test_global_l1_over_two_layers_matches_torch():
    built = []
    for fw, p in ((gg, gprune), (torch, tprune)):
        a, b = fw.nn.Linear(4, 3), fw.nn.Linear(3, 2)
        rng = np.random.default_rng(2)
        order = rng.permutation(18) + 1.0  # distinct magnitudes over both layers
        wa, wb = (order[:12] * _SIGNS[:12]).reshape(3, 4).astype(np.float32), (order[12:] * _SIGNS[12:18]).reshape(
            2, 3).astype(np.float32)
        a.load_state_dict({"weight": fw.tensor(wa), "bias": fw.zeros(3)})
        b.load_state_dict({"weight": fw.tensor(wb), "bias": fw.zeros(2)})
        p.global_unstructured([(a, "weight"), (b, "weight")], pruning_method=p.L1Unstructured, amount=0.4)
        built.append((a.weight_mask.numpy(), b.weight_mask.numpy()))
    for ours, theirs in zip(*built):
        np.testing.assert_array_equal(ours, theirs)


def test_random_methods_prune_as_many_as_torch():
    ours, theirs = _pair()
    gprune.random_unstructured(ours, "weight", amount=0.3)
    tprune.random_unstructured(theirs, "weight", amount=0.3)
    assert (ours.weight_mask.numpy() == 0).sum() == (theirs.weight_mask.numpy() == 0).sum() == 16
    gprune.random_structured(ours, "bias", amount=2, dim=0)
    assert (ours.bias_mask.numpy() == 0).sum() == 2
    repr(ours._forward_pre_hooks)  # an OrderedDict of the methods, as torch's


def test_remove_keeps_the_parameter_object_and_errors():
    ours, _ = _pair()
    gprune.l1_unstructured(ours, "weight", amount=0.5)
    orig = ours.weight_orig
    gprune.remove(ours, "weight")
    assert ours.weight is orig and not gprune.is_pruned(ours)
    with pytest.raises(ValueError, match="has to be pruned before pruning can be removed"):
        gprune.remove(ours, "weight")
    with pytest.raises(ValueError, match="should be smaller than the number of parameters to prune"):
        gprune.l1_unstructured(ours, "bias", amount=7)
    with pytest.raises(ValueError, match="in the range"):
        gprune.l1_unstructured(ours, "bias", amount=1.5)


def test_pruning_twice_leaves_a_container_of_the_methods_as_torch():
    history = []
    for p, (m, _) in ((gprune, _pair()), (tprune, _pair()[::-1])):
        p.l1_unstructured(m, "weight", amount=0.2)
        p.ln_structured(m, "weight", amount=0.5, n=2, dim=0)
        hook = next(h for h in m._forward_pre_hooks.values() if h._tensor_name == "weight")
        history.append((type(hook).__name__, [type(x).__name__ for x in hook], len(hook)))
    assert history[0] == history[1] == ("PruningContainer", ["L1Unstructured", "LnStructured"], 2)


def test_a_second_structured_pruning_is_refused_with_a_fix():
    ours, _ = _pair()
    gprune.ln_structured(ours, "weight", amount=1, n=2, dim=0)
    gprune.l1_unstructured(ours, "weight", amount=3)
    with pytest.raises(gg.UnsupportedError, match="prune.remove"):
        gprune.random_structured(ours, "weight", amount=1, dim=0)


def test_a_method_of_ones_own_gets_tensors_as_in_torch():
    """The tutorial's FooBarPruningMethod: every other entry, with tensor ops on the mask."""
    masks = []
    for fw, p in ((gg, gprune), (torch, tprune)):
        class FooBar(p.BasePruningMethod):
            PRUNING_TYPE = "unstructured"

            def compute_mask(self, t, default_mask):
                mask = default_mask.clone()
                mask.view(-1)[::2] = 0
                return mask
        m = fw.nn.Linear(3, 10)
        FooBar.apply(m, "bias")
        masks.append(m.bias_mask.numpy())
    np.testing.assert_array_equal(masks[0], masks[1])
