"""optimizer.state[p]["step"] and the other 0-d state entries have PyTorch's dtype: float32
(torch.optim's _get_scalar_dtype), float64 while the default dtype is float64. Printed, a step
reads tensor(1.) as PyTorch's does; a loaded state keeps its step's dtype and counts on in it."""
import numpy as np
import pytest

import glassgrad as gg

# Optimizers whose state counts steps in a 0-d tensor, with the 0-d entries besides "step".
WITH_STEP = {"Adam": (), "AdamW": (), "Adamax": (), "NAdam": ("mu_product",), "RAdam": (), "RMSprop": (),
             "Adadelta": (), "Adagrad": (), "Rprop": (), "ASGD": ("eta", "mu"), "Adafactor": ()}


@pytest.fixture
def default_float64():
    gg.set_default_dtype(gg.float64)
    try:
        yield
    finally:
        gg.set_default_dtype(gg.float32)


def _one_step(name, dtype=gg.float32, **kw):
    # On the CPU, as PyTorch's tensors here: on a GPU (glassgrad's default device where one is
    # usable) the state lives on the parameter's device and its repr names it.
    p = gg.nn.Parameter(gg.ones(2, 3, dtype=dtype, device="cpu"))
    opt = getattr(gg.optim, name)([p], lr=0.1, **kw)
    p.grad = gg.full((2, 3), 0.5, dtype=dtype, device="cpu")
    opt.step()
    return p, opt


@pytest.mark.parametrize("name", sorted(WITH_STEP))
def test_step_and_scalar_state_are_float32(name):
    p, opt = _one_step(name, dtype=gg.float64)  # float32 whatever the parameter's dtype
    st = opt.state[p]
    assert st["step"].dtype == gg.float32 and st["step"].shape == ()
    assert repr(st["step"]) == "tensor(1.)"
    for key in WITH_STEP[name]:
        assert st[key].dtype == gg.float32 and st[key].shape == ()
    opt.step()
    assert float(st["step"]) == 2.0 and st["step"].dtype == gg.float32
    assert opt.state_dict()["state"][0]["step"].dtype == gg.float32


@pytest.mark.parametrize("name", sorted(WITH_STEP))
def test_scalar_state_is_float64_under_a_float64_default_dtype(name, default_float64):
    p, opt = _one_step(name)
    st = opt.state[p]
    assert st["step"].dtype == gg.float64 and repr(st["step"]) == "tensor(1.)"  # the default dtype: not named
    for key in WITH_STEP[name]:
        assert st[key].dtype == gg.float64


def test_adam_counts_a_loaded_float64_step_in_float64():
    p, opt = _one_step("Adam", amsgrad=True)
    sd = opt.state_dict()
    sd["state"][0]["step"] = gg.tensor(41.0, dtype=gg.float64)
    q = gg.nn.Parameter(gg.ones(2, 3))
    opt2 = gg.optim.Adam([q], lr=0.1, amsgrad=True)
    opt2.load_state_dict(sd)
    assert opt2.state[q]["step"].dtype == gg.float64
    q.grad = gg.full((2, 3), 0.5)
    opt2.step()
    assert opt2.state[q]["step"].dtype == gg.float64 and float(opt2.state[q]["step"]) == 42.0


def test_an_int_step_of_an_older_checkpoint_loads_as_a_float32_count():
    _, opt = _one_step("Adam")
    sd = opt.state_dict()
    sd["state"][0]["step"] = np.array(5, np.int64)
    q = gg.nn.Parameter(gg.ones(2, 3))
    opt2 = gg.optim.Adam([q], lr=0.1)
    opt2.load_state_dict(sd)
    assert opt2.state[q]["step"].dtype == gg.float32 and float(opt2.state[q]["step"]) == 5.0


def test_nadam_mu_product_in_float64_gives_the_float64_update(default_float64):
    # PyTorch's first NAdam step with a float64 mu_product (no float32 rounding of mu):
    # mu = b1 (1 - 0.5 * 0.96^(t * decay)), mu_next the same at t + 1, mu_product = mu;
    # p -= lr (1 - mu) / (1 - mu_product) g / denom + lr mu_next / (1 - mu_product mu_next) m / denom.
    lr, b1, b2, eps, decay, g = 0.1, 0.9, 0.999, 1e-8, 4e-3, 0.5
    mu = b1 * (1 - 0.5 * 0.96 ** decay)
    mu_next = b1 * (1 - 0.5 * 0.96 ** (2 * decay))
    m, v = (1 - b1) * g, (1 - b2) * g * g
    denom = np.sqrt(v / (1 - b2)) + eps
    expected = 1.0 - lr * (1 - mu) / (1 - mu) * g / denom - lr * mu_next / (1 - mu * mu_next) * m / denom
    p, opt = _one_step("NAdam", dtype=gg.float64)
    assert float(opt.state[p]["mu_product"]) == mu
    np.testing.assert_allclose(p.detach().numpy(), np.full((2, 3), expected), rtol=0, atol=1e-15)


def test_asgd_eta_in_float64(default_float64):
    # eta after step t: lr / (1 + lambd lr t)^alpha, kept unrounded in float64.
    p, opt = _one_step("ASGD", dtype=gg.float64)
    assert float(opt.state[p]["eta"]) == 0.1 / (1 + 1e-4 * 0.1 * 1) ** 0.75


@pytest.mark.parametrize("name", sorted(WITH_STEP))
@pytest.mark.parametrize("default", ["float32", "float64"])
def test_state_dtypes_as_torch(name, default):
    torch = pytest.importorskip("torch")
    torch.set_default_dtype(getattr(torch, default))
    gg.set_default_dtype(getattr(gg, default))
    try:
        theirs = {}
        tp = torch.nn.Parameter(torch.ones(2, 3, dtype=torch.float64))
        topt = getattr(torch.optim, name)([tp], lr=0.1)
        tp.grad = torch.full((2, 3), 0.5, dtype=torch.float64)
        topt.step()
        topt.step()
        theirs = {k: (str(v.dtype).split(".")[1], repr(v).replace("torch", "glassgrad"), float(v))
                  for k, v in topt.state[tp].items() if v.dim() == 0}
        p, opt = _one_step(name, dtype=gg.float64)
        opt.step()
        ours = {k: (str(v.dtype).split(".")[1], repr(v), float(v)) for k, v in opt.state[p].items() if v.ndim == 0}
        assert ours.keys() == theirs.keys()
        for k in ours:
            assert ours[k][:2] == theirs[k][:2], k
            assert ours[k][2] == pytest.approx(theirs[k][2], rel=1e-6), k
    finally:
        torch.set_default_dtype(torch.float32)
        gg.set_default_dtype(gg.float32)
