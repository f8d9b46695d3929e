"""Memory formats and layouts against PyTorch: the same calls give the same strides, values,
contiguity answers and errors (to, contiguous, clone, cpu, float, *_like, empty), gradients flow
through a channels-last copy, and the format objects behave as torch's (printing, pickling,
identity, no new instances)."""
import copy
import pickle

import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

X = np.random.default_rng(0).standard_normal((2, 3, 4, 5))
X5 = np.random.default_rng(1).standard_normal((2, 3, 4, 5, 3))
M = np.random.default_rng(2).standard_normal((3, 4))


def _cl(lib):
    return lib.channels_last


CALLS = {
    "to channels_last": lambda lib: lib.tensor(X).to(memory_format=lib.channels_last),
    "to dtype and channels_last": lambda lib: lib.tensor(X).to(lib.float32, memory_format=lib.channels_last),
    "to channels_last, to preserve": lambda lib: lib.tensor(X).to(memory_format=lib.channels_last)
    .to(memory_format=lib.preserve_format),
    "to contiguous of channels_last": lambda lib: lib.tensor(X).to(memory_format=lib.channels_last)
    .to(memory_format=lib.contiguous_format),
    "contiguous channels_last": lambda lib: lib.tensor(X).contiguous(memory_format=lib.channels_last),
    "contiguous channels_last of a permute": lambda lib: lib.tensor(X).permute(0, 2, 3, 1)
    .contiguous(memory_format=lib.channels_last),
    "contiguous() of channels_last": lambda lib: lib.tensor(X).to(memory_format=lib.channels_last).contiguous(),
    "contiguous preserve of contiguous": lambda lib: lib.tensor(X).contiguous(memory_format=lib.preserve_format),
    "contiguous preserve of a permute": lambda lib: lib.tensor(X).permute(0, 2, 3, 1)
    .contiguous(memory_format=lib.preserve_format),
    "contiguous channels_last_3d": lambda lib: lib.tensor(X5).contiguous(memory_format=lib.channels_last_3d),
    "channels_last_3d of 4-d": lambda lib: lib.tensor(X).contiguous(memory_format=lib.channels_last_3d),
    "channels_last of 2-d": lambda lib: lib.tensor(M).to(memory_format=lib.channels_last),
    "channels_last of 3-d": lambda lib: lib.tensor(X[0]).contiguous(memory_format=lib.channels_last),
    "a size-1 width": lambda lib: lib.tensor(X[..., :1]).contiguous(memory_format=lib.channels_last),
    "clone channels_last": lambda lib: lib.tensor(X).clone(memory_format=lib.channels_last),
    "clone of channels_last": lambda lib: lib.tensor(X).to(memory_format=lib.channels_last).clone(),
    "clone contiguous of channels_last": lambda lib: lib.tensor(X).to(memory_format=lib.channels_last)
    .clone(memory_format=lib.contiguous_format),
    "clone of a permute": lambda lib: lib.tensor(X).permute(0, 2, 3, 1).clone(),
    "clone of a transpose": lambda lib: lib.tensor(M).t().clone(),
    "clone of a slice": lambda lib: lib.tensor(X)[:, :, ::2].clone(),
    "clone of a channels_last slice": lambda lib: lib.tensor(X).to(memory_format=lib.channels_last)[:, :, ::2].clone(),
    "clone of a transposed slice": lambda lib: lib.tensor(M).t()[::2].clone(),
    "clone of an expand": lambda lib: lib.tensor(X[:, :1]).expand(2, 3, 4, 5).clone(),
    "clone of an expanded transpose": lambda lib: lib.tensor(M[:1]).expand(3, 4).t().clone(),
    "empty_like of an expand": lambda lib: lib.empty_like(lib.tensor(X[:, :1]).expand(2, 3, 4, 5)).zero_(),
    "repeat of an unsqueeze": lambda lib: lib.tensor(X).unsqueeze(1).repeat(1, 2, 1, 1, 1),
    "torch.clone channels_last": lambda lib: lib.clone(lib.tensor(X), memory_format=lib.channels_last),
    "clone channels_last of 2-d": lambda lib: lib.tensor(M).clone(memory_format=lib.channels_last),
    "cpu channels_last": lambda lib: lib.tensor(X).cpu(memory_format=lib.channels_last),
    "float channels_last": lambda lib: lib.tensor(X).float(memory_format=lib.channels_last),
    "double of channels_last": lambda lib: lib.tensor(X).float().to(memory_format=lib.channels_last).double(),
    "reshape of channels_last": lambda lib: lib.tensor(X).to(memory_format=lib.channels_last).reshape(2, -1),
    "zeros_like channels_last": lambda lib: lib.zeros_like(lib.tensor(X), memory_format=lib.channels_last),
    "ones_like of channels_last": lambda lib: lib.ones_like(lib.tensor(X).to(memory_format=lib.channels_last)),
    "full_like contiguous of channels_last": lambda lib: lib.full_like(
        lib.tensor(X).to(memory_format=lib.channels_last), 2.5, memory_format=lib.contiguous_format),
    "empty_like of a permute": lambda lib: lib.empty_like(lib.tensor(X).permute(0, 2, 3, 1)).zero_(),
    "zeros_like channels_last of 2-d": lambda lib: lib.zeros_like(lib.tensor(M), memory_format=lib.channels_last),
    "empty channels_last": lambda lib: lib.empty(2, 3, 4, 5, memory_format=lib.channels_last).zero_(),
    "empty channels_last_3d": lambda lib: lib.empty(2, 3, 4, 5, 6, memory_format=lib.channels_last_3d).zero_(),
    "empty preserve": lambda lib: lib.empty(2, 3, memory_format=lib.preserve_format),
    "empty channels_last 2-d": lambda lib: lib.empty(2, 3, memory_format=lib.channels_last),
}


def _outcome(lib, name):
    try:
        t = CALLS[name](lib)
    except (RuntimeError, ValueError, TypeError) as e:
        return ("error", type(e).__name__ if isinstance(e, TypeError) else "RuntimeError",
                str(e).splitlines()[0].split(" (got")[0])
    return (tuple(t.shape), t.stride(), str(t.dtype).split(".")[-1], np.asarray(t.detach().numpy()).copy())


@pytest.mark.parametrize("name", list(CALLS))
def test_strides_values_and_errors_are_pytorchs(name):
    ours, theirs = _outcome(gg, name), _outcome(torch, name)
    if theirs[0] == "error":
        assert ours[:2] == theirs[:2] and theirs[2] in ours[2], (ours, theirs)
        return
    assert ours[:3] == theirs[:3]
    np.testing.assert_array_equal(ours[3], theirs[3])


PREDICATES = {
    "contiguous": lambda lib, t: t.is_contiguous(),
    "contiguous_format": lambda lib, t: t.is_contiguous(memory_format=lib.contiguous_format),
    "channels_last": lambda lib, t: t.is_contiguous(memory_format=lib.channels_last),
    "channels_last_3d": lambda lib, t: t.is_contiguous(memory_format=lib.channels_last_3d),
    "preserve_format": lambda lib, t: t.is_contiguous(memory_format=lib.preserve_format),
}
TENSORS = {
    "nchw": lambda lib: lib.tensor(X),
    "nhwc": lambda lib: lib.tensor(X).to(memory_format=lib.channels_last),
    "permuted": lambda lib: lib.tensor(X).permute(0, 2, 3, 1),
    "one channel": lambda lib: lib.tensor(X[:, :1]),
    "1x1 spatial": lambda lib: lib.tensor(X[:, :, :1, :1]),
    "sliced nhwc": lambda lib: lib.tensor(X).to(memory_format=lib.channels_last)[:, :, 1:],
    "5-d": lambda lib: lib.tensor(X5),
    "5-d ndhwc": lambda lib: lib.tensor(X5).to(memory_format=lib.channels_last_3d),
    "2-d": lambda lib: lib.tensor(M),
}


@pytest.mark.parametrize("tensor", list(TENSORS))
def test_is_contiguous_answers_as_pytorch(tensor):
    ours = {k: p(gg, TENSORS[tensor](gg)) for k, p in PREDICATES.items()}
    theirs = {k: p(torch, TENSORS[tensor](torch)) for k, p in PREDICATES.items()}
    assert ours == theirs


def test_a_memory_format_must_be_one():
    for lib in (gg, torch):
        for bad in ("channels_last", 1):
            with pytest.raises(TypeError, match="argument 'memory_format' must be torch.memory_format"):
                lib.tensor(X).contiguous(memory_format=bad)


def test_gradients_flow_through_a_channels_last_copy():
    def grads(lib):
        x = lib.tensor(X, requires_grad=True)
        y = x.to(memory_format=lib.channels_last)
        (y.sin() * lib.tensor(X)).sum().backward()
        return x.grad.detach().numpy(), y.is_contiguous(memory_format=lib.channels_last)
    (g_ours, cl_ours), (g_theirs, cl_theirs) = grads(gg), grads(torch)
    np.testing.assert_allclose(g_ours, g_theirs, rtol=1e-12)
    assert cl_ours and cl_theirs


def test_a_channels_last_input_to_a_convolution_gives_pytorchs_values():
    ours = gg.nn.Conv2d(3, 4, 3, padding=1).double()
    theirs = torch.nn.Conv2d(3, 4, 3, padding=1).double()
    theirs.load_state_dict({k: torch.tensor(np.asarray(v)) for k, v in ours.state_dict().items()})
    ours.to(memory_format=gg.channels_last)
    theirs.to(memory_format=torch.channels_last)
    a = ours(gg.tensor(X).to(memory_format=gg.channels_last))
    b = theirs(torch.tensor(X).to(memory_format=torch.channels_last))
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12)


def test_module_to_checks_the_format():
    for lib in (gg, torch):
        with pytest.raises(TypeError):
            lib.nn.Linear(2, 2).to(memory_format="channels_last")


def test_the_format_and_layout_objects_behave_as_torchs():
    names = ["contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]
    for name in names:
        ours, theirs = getattr(gg, name), getattr(torch, name)
        assert repr(ours) == repr(theirs) == str(theirs) == f"torch.{name}"
        assert pickle.loads(pickle.dumps(ours)) is ours and copy.deepcopy(ours) is ours
        assert isinstance(ours, gg.memory_format)
    assert repr(gg.legacy_contiguous_format) == repr(torch.legacy_contiguous_format)
    assert repr(gg.strided) == repr(torch.strided) and type(gg.strided).__name__ == type(torch.strided).__name__
    assert gg.tensor(M).layout is gg.strided and isinstance(gg.sparse_coo, gg.layout)
    for lib, kind in ((gg, "memory_format"), (torch, "memory_format"), (gg, "layout"), (torch, "layout")):
        with pytest.raises(TypeError, match=f"cannot create 'torch.{kind}' instances"):
            getattr(lib, kind)()
    for lib in (gg, torch):
        assert pickle.loads(pickle.dumps(lib.strided)) is lib.strided
