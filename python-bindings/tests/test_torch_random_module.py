"""torch.random's module (`torch.random.manual_seed(seed=42)`, as mrdbourke/pytorch-deep-learning's
fundamentals notebook seeds it; `fork_rng`), against PyTorch's behaviour: reseeding repeats the
draws, and draws inside fork_rng leave the generator where it was."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.torch as gtorch

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("lib", [gtorch, torch], ids=["glassgrad", "torch"])
def test_random_manual_seed_repeats_the_draws(lib):
    lib.manual_seed(seed=42)
    c = lib.rand(3, 4)
    lib.random.manual_seed(seed=42)
    d = lib.rand(3, 4)
    assert bool((c == d).all())
    assert lib.random.initial_seed() == 42
    assert lib.random.default_generator is lib.default_generator


@pytest.mark.parametrize("lib", [gtorch, torch], ids=["glassgrad", "torch"])
def test_fork_rng_restores_the_generator(lib):
    lib.random.manual_seed(7)
    expected = lib.randn(5)
    lib.random.manual_seed(7)
    with lib.random.fork_rng():
        inside = lib.randn(5)
        lib.randn(11)
    after = lib.randn(5)
    assert bool((inside == expected).all()) and bool((after == expected).all())
    with lib.random.fork_rng(enabled=False):
        lib.randn(3)
    assert not bool((lib.randn(5) == expected).all())


def test_get_and_set_rng_state_round_trip():
    gg.random.manual_seed(3)
    state = gg.random.get_rng_state()
    a = gg.rand(4).numpy()
    gg.random.set_rng_state(state)
    np.testing.assert_array_equal(gg.rand(4).numpy(), a)
