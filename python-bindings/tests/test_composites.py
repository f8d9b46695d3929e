"""The composites' table (composite_specs.py): each Python-level composite equals its NumPy
reference, and its gradient (through the ops it is made of) matches float64 finite differences."""
import numpy as np
import pytest

import glassgrad as gg
from composite_specs import COMPOSITES
from glassgrad.debug import gradcheck

IDS = [c.name for c in COMPOSITES]


@pytest.mark.parametrize("c", COMPOSITES, ids=IDS)
def test_composite_equals_its_numpy_reference(c):
    arrays = c.inputs(np.random.default_rng(0))
    got = c.fn(*[gg.tensor(a, dtype="float64") for a in arrays]).numpy()
    np.testing.assert_allclose(got, c.ref(*arrays), rtol=1e-10, atol=1e-12, err_msg=c.name)


@pytest.mark.parametrize("c", COMPOSITES, ids=IDS)
def test_composite_gradient_matches_finite_differences(c):
    assert gradcheck(c.fn, c.inputs(np.random.default_rng(1)))


def test_names_are_unique():
    assert len(set(IDS)) == len(IDS)
