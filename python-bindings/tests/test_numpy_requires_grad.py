"""Tensor.numpy() as PyTorch documents it: a tensor that requires grad is refused with its
RuntimeError ("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy()
instead."), unless numpy(force=True); np.asarray(t) goes through numpy() and is refused too.
item(), tolist() and printing read such a tensor as PyTorch's do."""
import copy

import numpy as np
import pytest

import glassgrad as gg

_REFUSED = "(?s)Can't call numpy\\(\\) on Tensor that requires grad. Use tensor.detach\\(\\).numpy\\(\\) instead.*fix"


def test_numpy_of_a_leaf_that_requires_grad_raises_runtime_error():
    w = gg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=_REFUSED):
        w.numpy()
    with pytest.raises(RuntimeError, match=_REFUSED):
        np.asarray(w)
    np.testing.assert_array_equal(w.detach().numpy(), np.ones(3, np.float32))
    np.testing.assert_array_equal(w.numpy(force=True), np.ones(3, np.float32))


def test_numpy_of_a_computed_tensor_follows_requires_grad():
    w = gg.ones(2, requires_grad=True)
    y = w * 3
    with pytest.raises(RuntimeError, match=_REFUSED):
        y.numpy()
    with gg.no_grad():
        z = w * 3
    np.testing.assert_array_equal(z.numpy(), [3.0, 3.0])  # made without a graph: no grad required
    np.testing.assert_array_equal(y.detach().numpy(), [3.0, 3.0])
    assert w.grad is None  # detach().numpy() records nothing for backward


def test_parameters_are_refused_and_read_through_detach():
    lin = gg.nn.Linear(2, 3)
    with pytest.raises(RuntimeError, match=_REFUSED):
        lin.weight.numpy()
    assert lin.weight.detach().numpy().shape == (3, 2)
    lin.weight.requires_grad_(False)
    assert lin.weight.numpy().shape == (3, 2)


def test_item_tolist_repr_and_copies_of_a_tensor_that_requires_grad_still_work():
    w = gg.tensor([1.5, -2.0], requires_grad=True)
    assert w.tolist() == [1.5, -2.0] and w.sum().item() == -0.5 and float(w[0]) == 1.5
    # on a machine whose default device is a GPU, repr names it (device='cuda:0') as PyTorch's does
    assert repr(w).startswith("tensor([ 1.5000, -2.0000]") and repr(w).endswith("requires_grad=True)")
    c = copy.deepcopy(w)
    assert c.requires_grad and c.tolist() == [1.5, -2.0]
    m = copy.deepcopy(gg.nn.Linear(2, 2))
    assert m.weight.requires_grad and m.weight.shape == (2, 2)
    assert gg.unique(gg.tensor([2.0, 1.0, 2.0], requires_grad=True)).tolist() == [1.0, 2.0]


def test_state_dict_of_parameters_saves_and_loads(tmp_path):
    lin = gg.nn.Linear(2, 2)
    gg.save(lin.state_dict(), tmp_path / "m.pt")
    back = gg.nn.Linear(2, 2)
    back.load_state_dict(gg.load(tmp_path / "m.pt"))
    np.testing.assert_array_equal(back.weight.detach().numpy(), lin.weight.detach().numpy())


def test_force_must_be_given_by_keyword():
    with pytest.raises(TypeError):
        gg.ones(2).numpy(True)


def test_inside_no_grad_a_tensor_that_requires_grad_converts_as_in_torch():
    # PyTorch refuses only while gradients are recorded (GradMode enabled).
    w = gg.tensor([1.5, -2.0], requires_grad=True)
    with gg.no_grad():
        np.testing.assert_array_equal(w.numpy(), [1.5, -2.0])
        np.testing.assert_array_equal(np.asarray(w), [1.5, -2.0])
    with gg.inference_mode():
        np.testing.assert_array_equal(w.numpy(), [1.5, -2.0])
    with pytest.raises(RuntimeError, match=_REFUSED):
        w.numpy()


def test_inside_no_grad_matches_torch():
    torch = pytest.importorskip("torch")
    theirs = torch.tensor([0.5, 4.0], requires_grad=True)
    ours = gg.tensor([0.5, 4.0], requires_grad=True)
    with torch.no_grad(), gg.no_grad():
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    with pytest.raises(RuntimeError, match="Can't call numpy"):
        theirs.numpy()
    with pytest.raises(RuntimeError, match="Can't call numpy"):
        ours.numpy()


class _OnTheGpu(gg.Tensor):
    """A CPU tensor that reports a GPU device: what numpy() checks (no GPU is needed to test it)."""

    __slots__ = ()

    @property
    def device(self):
        return gg.device("cuda:0")

    def cpu(self, memory_format=None):
        # Tensor.to("cpu") answers a tensor already on the CPU (by its storage) with itself: the
        # copy a real GPU tensor would get is made here.
        return gg.tensor(self.numpy(force=True))


def _on_the_gpu(t):
    t.__class__ = _OnTheGpu
    return t


def test_numpy_of_a_gpu_tensor_raises_torchs_type_error_and_force_copies(monkeypatch):
    from glassgrad import _device
    t = _on_the_gpu(gg.tensor([1.0, 2.0]))
    t.numpy(force=True)  # computed before the default changes
    # cuda:0 off the default device (where a GPU is usable it is the default, and converts:
    # test_a_tensor_on_the_default_gpu_converts)
    monkeypatch.setattr(_device, "default_device", lambda: "cpu")
    want = ("can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory "
            "first.")
    with pytest.raises(TypeError) as caught:
        t.numpy()
    assert str(caught.value).startswith(want) and "fix: x.cpu().numpy()" in str(caught.value)
    np.testing.assert_array_equal(t.numpy(force=True), [1.0, 2.0])
    # the device is checked before requires_grad, as in PyTorch
    w = _on_the_gpu(gg.tensor([3.0], requires_grad=True))
    with pytest.raises(TypeError, match="can't convert cuda:0"):
        w.numpy()
    np.testing.assert_array_equal(w.numpy(force=True), [3.0])
    np.testing.assert_array_equal(np.asarray(t), [1.0, 2.0])  # np.asarray copies from any device


def test_a_tensor_on_the_default_gpu_converts(monkeypatch):
    # glassgrad's default device is the GPU when one is usable: tensors a script never moved
    # convert, as a PyTorch script's CPU tensors do
    from glassgrad import _device
    t = _on_the_gpu(gg.tensor([1.0, 2.0]))
    t.numpy(force=True)  # computed before the default changes
    monkeypatch.setattr(_device, "default_device", lambda: "cuda:0")
    np.testing.assert_array_equal(t.numpy(), [1.0, 2.0])
    monkeypatch.setattr(_device, "default_device", lambda: "cuda:1")
    with pytest.raises(TypeError, match="can't convert cuda:0"):
        t.numpy()
