"""type() of a tensor, a shape and a dtype shows their public names, as PyTorch's
`<class 'torch.Tensor'>`, `<class 'torch.Size'>` and `<class 'torch.dtype'>` (course notebooks
print `type(x)`); pickling still finds the classes by those names. So does torch.cuda.device."""
import pickle

import glassgrad as gg


def test_type_reprs_use_public_names():
    x = gg.ones(2, 3)
    assert repr(type(x)) == "<class 'glassgrad.Tensor'>"
    assert repr(type(x.shape)) == "<class 'glassgrad.Size'>"
    assert repr(type(gg.float32)) == "<class 'glassgrad.dtype'>"
    assert gg.Tensor.__module__ == gg.Size.__module__ == gg.dtype.__module__ == "glassgrad"


def test_pickle_round_trips_by_public_names():
    x = gg.arange(4.0)
    back = pickle.loads(pickle.dumps((x, x.shape, gg.int64)))
    assert type(back[0]) is gg.Tensor and back[0].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert type(back[1]) is gg.Size and back[1] == (4,)
    assert type(back[2]) is gg.dtype and back[2] == gg.int64


def test_cuda_device_context_shows_its_public_name():
    # PyTorch's repr: <torch.cuda.device object at 0x...>; making one needs no GPU
    assert repr(gg.cuda.device(0)).startswith("<glassgrad.cuda.device object at 0x")
    assert gg.cuda.device.__module__ == gg.cuda.device_of.__module__ == "glassgrad.cuda"
