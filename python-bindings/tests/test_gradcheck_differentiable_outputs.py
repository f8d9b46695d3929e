"""gradcheck as PyTorch's: only func's outputs that require grad are checked; with none, func's
numerical derivatives must be zero ("Numerical gradient for function expected to be zero"); the
flag combinations PyTorch refuses raise its AssertionError (docs/autograd.md)."""
import pytest

import glassgrad as gg
from glassgrad.autograd import gradcheck, gradgradcheck


def _x():
    return gg.tensor([1.0, 2.0], dtype=gg.float64, requires_grad=True)


def test_an_output_computed_without_gradients_is_not_checked():
    assert gradcheck(lambda x: (x ** 2, x.detach() * 3), (_x(),))


def test_no_output_requiring_grad_needs_zero_numerical_derivatives():
    with pytest.raises(RuntimeError) as e:
        gradcheck(lambda x: x.detach() * 2, (_x(),))
    assert str(e.value).splitlines()[0] == "Numerical gradient for function expected to be zero"
    assert gradcheck(lambda x: x.detach() * 2, (_x(),), raise_exception=False) is False
    assert gradcheck(lambda x: gg.ones(2, dtype=gg.float64), (_x(),))


_REFUSED = {
    "neither mode": (lambda: gradcheck(lambda x: x * 2, (_x(),), check_backward_ad=False),
                     "Expected at least one of check_forward_ad or check_backward_ad to be True"),
    "batched without backward": (lambda: gradcheck(lambda x: x * 2, (_x(),), check_backward_ad=False,
                                                   check_forward_ad=True, check_batched_grad=True),
                                 "Setting check_batched_grad=True requires check_backward_ad to be True"),
    "batched forward without forward": (lambda: gradcheck(lambda x: x * 2, (_x(),), check_batched_forward_grad=True),
                                        "Setting check_batched_forward_grad=True requires check_forward_ad to be "
                                        "True"),
    "gradgrad neither": (lambda: gradgradcheck(lambda x: x ** 3, (_x(),), check_rev_over_rev=False),
                         "Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True"),
    "gradgrad undefined without rev": (lambda: gradgradcheck(lambda x: x ** 3, (_x(),), check_rev_over_rev=False,
                                                             check_fwd_over_rev=True),
                                       "Setting check_undefined_grad=True requires check_rev_over_rev to be True"),
    "gradgrad batched without rev": (lambda: gradgradcheck(lambda x: x ** 3, (_x(),), check_rev_over_rev=False,
                                                           check_fwd_over_rev=True, check_undefined_grad=False,
                                                           check_batched_grad=True),
                                     "Setting check_batched_grad=True requires check_rev_over_rev to be True"),
}


@pytest.mark.parametrize("name", list(_REFUSED))
def test_refused_flag_combinations(name):
    call, message = _REFUSED[name]
    with pytest.raises(AssertionError) as e:
        call()
    assert str(e.value) == message


@pytest.mark.parametrize("name", list(_REFUSED))
def test_refused_flag_combinations_as_torch(name):
    torch = pytest.importorskip("torch")
    global gradcheck, gradgradcheck, _x
    saved = gradcheck, gradgradcheck, _x
    gradcheck, gradgradcheck = torch.autograd.gradcheck, torch.autograd.gradgradcheck
    _x = lambda: torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    try:
        call, message = _REFUSED[name]
        with pytest.raises(AssertionError) as e:
            call()
    finally:
        gradcheck, gradgradcheck, _x = saved
    assert str(e.value) == message


def test_outputs_as_torch():
    torch = pytest.importorskip("torch")

    def outcome(lib):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        rows = [lib.autograd.gradcheck(lambda t: (t ** 2, t.detach() * 3), (x,))]
        try:
            rows.append(lib.autograd.gradcheck(lambda t: t.detach() * 2, (x,)))
        except RuntimeError as e:
            rows.append(str(e).splitlines()[0])
        return rows

    assert outcome(gg) == outcome(torch)
