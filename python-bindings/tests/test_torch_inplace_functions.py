"""torch's top-level in-place functions (torch.sin_(a) in the tensors tutorial, torch.clamp_,
torch.zero_, ...): the tensor itself changes and comes back, with torch's values. Skipped when
torch is not importable."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.torch as gtorch
from glassgrad._inplace_functions import _METHODS

torch = pytest.importorskip("torch")

ARGS = {"clamp_": (-0.3, 0.4), "clip_": (-0.3, 0.4), "clamp_min_": (0.1,), "clamp_max_": (0.2,), "fill_": (2.5,),
        "xlogy_": (2.0,), "logit_": (1e-3,)}
# names whose arguments are other tensors or a resize: covered by their methods' own tests
SPECIAL = {"addmv_", "index_put_", "resize_as_", "detach_"}
UNIT = {"acos_", "arccos_", "asin_", "arcsin_", "atanh_", "arctanh_", "logit_", "erf_", "erfc_"}  # inputs in (0, 1)


@pytest.mark.parametrize("name", [n for n in _METHODS if n not in SPECIAL])
def test_top_level_in_place_functions_match_torch(name):
    rng = np.random.default_rng(0)
    x = rng.uniform(0.05, 0.95, (2, 3)) if name in UNIT else rng.uniform(1.1, 3.0, (2, 3))
    x = x.astype(np.float32)
    a, b = gg.tensor(x), torch.tensor(x)
    got = getattr(gtorch, name)(a, *ARGS.get(name, ()))
    want = getattr(torch, name)(b, *ARGS.get(name, ()))
    assert got is a and want is b
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


def test_the_tutorial_line_and_the_special_ones():
    import math
    a = gtorch.tensor([0, math.pi / 4, math.pi / 2, 3 * math.pi / 4])
    assert gtorch.sin_(a) is a
    np.testing.assert_allclose(a.numpy(), np.sin([0, math.pi / 4, math.pi / 2, 3 * math.pi / 4]), atol=1e-6)
    x = gg.ones(2, 2)
    assert gg.detach_(x) is x and gg.resize_as_(x, gg.ones(4)) is x and tuple(x.shape) == (4,)
