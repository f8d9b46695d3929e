"""nn.utils as PyTorch 2.x documents and runs them: the total norm of clip_grad_norm_ /
get_total_norm is the norm of the per-tensor norms (norm_type=0 counts the tensors holding a
nonzero), vector_to_parameters reads a longer vector's head, and the fusion helpers' assertion
texts."""
import numpy as np
import pytest

import glassgrad.torch as torch
from glassgrad.torch import nn


def test_zero_norm_counts_the_tensors_holding_a_nonzero():
    grads = [torch.tensor([0.0, 2.0, 3.0]), torch.zeros(4), torch.tensor([[1.0, 0.0]])]
    assert nn.utils.get_total_norm(grads, norm_type=0).item() == 2.0
    params = [nn.Parameter(torch.zeros(g.shape)) for g in grads]
    for p, g in zip(params, grads):
        p.grad = g.clone()
    assert nn.utils.clip_grad_norm_(params, 1.0, norm_type=0).item() == 2.0
    np.testing.assert_allclose(params[0].grad.numpy(), np.array([0.0, 2.0, 3.0]) * (1.0 / (2.0 + 1e-6)), rtol=1e-6)


def test_vector_to_parameters_reads_the_head_of_a_longer_vector():
    a, b = nn.Parameter(torch.zeros(2)), nn.Parameter(torch.zeros(1, 2))
    nn.utils.vector_to_parameters(torch.arange(6.0), [a, b])
    assert a.tolist() == [0.0, 1.0] and b.tolist() == [[2.0, 3.0]]
    with pytest.raises(RuntimeError, match="the parameters hold 4 elements"):
        nn.utils.vector_to_parameters(torch.arange(3.0), [a, b])


def test_fusion_assertions_say_what_pytorch_says():
    with pytest.raises(AssertionError, match="bn.running_mean and bn.running_var must not be None"):
        nn.utils.fuse_conv_bn_eval(nn.Conv2d(2, 3, 1).eval(), nn.BatchNorm2d(3, track_running_stats=False).eval())
    with pytest.raises(AssertionError, match="got linear.out_features=4 and bn.num_features=3"):
        nn.utils.fuse_linear_bn_eval(nn.Linear(3, 4).eval(), nn.BatchNorm1d(3).eval())


def test_parametrized_weight_norm_loads_the_older_weight_norms_state_dict():
    import warnings
    from glassgrad.torch.nn.utils import parametrizations
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # the older form's deprecation, as PyTorch's
        old = nn.utils.weight_norm(nn.Linear(3, 4))
    new = parametrizations.weight_norm(nn.Linear(3, 4))
    sd = old.state_dict()
    assert list(sd) == ["bias", "weight_g", "weight_v"]
    assert repr(new.load_state_dict(sd)) == "<All keys matched successfully>"
    np.testing.assert_allclose(new.weight.detach().numpy(), old.weight.detach().numpy(), rtol=1e-6)
    assert list(sd) == ["bias", "weight_g", "weight_v"]  # the caller's dict is not edited


def test_private_load_pre_hook_of_a_picklable_function_keeps_the_model_picklable():
    import pickle
    m = nn.Linear(1, 1)
    m._register_load_state_dict_pre_hook(print)
    assert isinstance(pickle.loads(pickle.dumps(m)), nn.Linear)


def test_init_constant_fills_take_every_dtype_and_random_fills_refuse_integers():
    t = torch.empty(2, 2, dtype=torch.int64)
    assert nn.init.constant_(t, 3.7).tolist() == [[3, 3], [3, 3]]  # converted as PyTorch's fill_
    assert nn.init.eye_(torch.empty(2, 2, dtype=torch.bool)).tolist() == [[True, False], [False, True]]
    assert nn.init.zeros_(t).tolist() == [[0, 0], [0, 0]] and nn.init.ones_(t).tolist() == [[1, 1], [1, 1]]
    assert nn.init.dirac_(torch.empty(2, 2, 3, dtype=torch.int64)).flatten().tolist() == [0, 1, 0, 0, 0, 0,
                                                                                          0, 0, 0, 0, 1, 0]
    for fill in (nn.init.uniform_, nn.init.normal_, nn.init.xavier_uniform_, nn.init.kaiming_normal_):
        with pytest.raises(NotImplementedError):
            fill(torch.empty(2, 2, dtype=torch.int64))


def test_init_uniform_refuses_a_reversed_range():
    with pytest.raises(RuntimeError, match=r"uniform_ expects to return a \[from, to\) range, but found from=2 > to=1"):
        nn.init.uniform_(torch.empty(3), a=2, b=1)
    assert nn.init.uniform_(torch.empty(3), a=1.5, b=1.5).tolist() == [1.5, 1.5, 1.5]
