"""load_state_dict between lazy layers before their first forward, as PyTorch's: an entry saved
before the forward loaded into a layer that has not run either leaves both uninitialized (all
keys match); the first forward then sizes the layer."""
import numpy as np
import pytest

import glassgrad as torch
from glassgrad import nn
from glassgrad.nn.parameter import UninitializedBuffer, UninitializedParameter


def _model():
    return nn.Sequential(nn.LazyLinear(4), nn.LazyBatchNorm1d())


def test_an_uninitialized_state_loads_into_an_uninitialized_model():
    saved, model = _model(), _model()
    result = model.load_state_dict(saved.state_dict())
    assert repr(result) == "<All keys matched successfully>"
    assert isinstance(model[0].weight, UninitializedParameter) and isinstance(model[1].running_mean, UninitializedBuffer)
    assert repr(model[0]) == "LazyLinear(in_features=0, out_features=4, bias=True)"
    y = model(torch.ones(2, 3))
    assert tuple(y.shape) == (2, 4) and tuple(model[0].weight.shape) == (4, 3)
    assert type(model[0]) is nn.Linear and type(model[1]) is nn.BatchNorm1d


def test_an_initialized_state_sizes_the_lazy_model_and_an_uninitialized_one_is_refused_by_a_sized_model():
    sized = nn.Linear(3, 4)
    lazy = nn.LazyLinear(4)
    lazy.load_state_dict(sized.state_dict())
    np.testing.assert_array_equal(lazy.weight.detach().numpy(), sized.weight.detach().numpy())
    with pytest.raises(RuntimeError, match="uninitialized parameter"):
        nn.Linear(3, 4).load_state_dict(nn.LazyLinear(4).state_dict())
