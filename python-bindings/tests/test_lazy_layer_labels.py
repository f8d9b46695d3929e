"""Lazy layers: initialize_parameters takes the forward's input, as PyTorch's
initialize_parameters(input) does (an int input size too), and a constructor argument refused
before the input size is known names the lazy layer the script built ('LazyConv2d(4, 3): Invalid
padding string ...'), not the plain layer built with a stand-in size ('Conv2d(1, 4, 3)') (docs/lazy.md)."""
import pytest

import glassgrad as gg
from glassgrad import nn


@pytest.mark.parametrize("make,input,shape", [
    (lambda: nn.LazyLinear(3), gg.ones(2, 4), (3, 4)),
    (lambda: nn.LazyConv2d(4, 3), gg.ones(1, 2, 5, 5), (4, 2, 3, 3)),
    (lambda: nn.LazyConv1d(4, 3), gg.ones(2, 5), (4, 2, 3)),  # unbatched: channels are dim 0
    (lambda: nn.LazyConvTranspose2d(4, 3), gg.ones(1, 2, 5, 5), (2, 4, 3, 3)),
    (lambda: nn.LazyBatchNorm2d(), gg.ones(2, 3, 2, 2), (3,)),
])
def test_initialize_parameters_from_an_input(make, input, shape):
    m = make()
    m.initialize_parameters(input)
    assert tuple(m.weight.shape) == shape
    m(input)  # the forward of the initialized layer


def test_initialize_parameters_from_a_size():
    m = nn.LazyLinear(3)
    m.initialize_parameters(4)
    assert tuple(m.weight.shape) == (3, 4) and tuple(m(gg.ones(2, 4)).shape) == (2, 3)


@pytest.mark.parametrize("make,label,kind", [
    (lambda: nn.LazyConv2d(4, 3, padding="full"), "LazyConv2d(4, 3): ", ValueError),
    (lambda: nn.LazyConv2d(3, 3, groups=2), "LazyConv2d(3, 3, groups=2): ", ValueError),
    (lambda: nn.LazyConvTranspose2d(4, 3, padding_mode="reflect"), "LazyConvTranspose2d(4, 3): ", ValueError),
    (lambda: nn.LazyLinear(2.5), "LazyLinear(2.5): ", TypeError),
    (lambda: nn.LazyBatchNorm2d(eps=-1), "LazyBatchNorm2d(): ", ValueError),
    (lambda: nn.LazyInstanceNorm1d(momentum="x"), "LazyInstanceNorm1d(): ", TypeError),
])
def test_a_constructor_refusal_names_the_lazy_layer(make, label, kind):
    with pytest.raises(kind) as e:
        make()
    assert str(e.value).startswith(label), str(e.value)


def test_torch_initializes_from_an_input():
    torch = pytest.importorskip("torch")
    m = torch.nn.LazyLinear(3)
    m.initialize_parameters(torch.ones(2, 4))
    assert tuple(m.weight.shape) == (3, 4)
