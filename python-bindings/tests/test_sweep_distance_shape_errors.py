"""PyTorch's dtype rule of cosine_similarity and its argument errors of meshgrid and permute,
torch-free with values from PyTorch's documented behaviour, and against PyTorch where it is
installed."""
import numpy as np
import pytest

import glassgrad as gg


def test_cosine_similarity_converts_to_the_common_floating_dtype():
    a = gg.tensor([[1.0, 2.0], [3.0, 0.0]])
    got = gg.nn.functional.cosine_similarity(a, a.int())
    assert got.dtype == gg.float32
    np.testing.assert_allclose(got.numpy(), [1.0, 1.0], rtol=1e-6)
    mixed = gg.cosine_similarity(gg.tensor([[1.0, 2.0]]).half(), gg.tensor([[1.0, 2.0]]))
    assert mixed.dtype == gg.float32
    got64 = gg.cosine_similarity(gg.tensor([[3.0, 4.0]]), gg.tensor([[4.0, 3.0]], dtype=gg.float64))
    assert got64.dtype == gg.float64 and abs(got64.item() - 24 / 25) < 1e-12
    with pytest.raises(RuntimeError, match="expected common dtype to be floating point, yet common dtype is Long"):
        gg.cosine_similarity(gg.tensor([[1, 2]]), gg.tensor([[1, 2]]))


def test_meshgrid_needs_tensors_of_at_most_one_dim():
    with pytest.raises(RuntimeError, match="meshgrid expects a non-empty TensorList"):
        gg.meshgrid(indexing="ij")
    with pytest.raises(RuntimeError, match="Expected 0D or 1D tensor"):
        gg.meshgrid(gg.ones(2, 2), indexing="ij")
    a, b = gg.meshgrid(gg.tensor(1), gg.arange(3), indexing="ij")
    assert a.shape == (1, 3) and b.tolist() == [[0, 1, 2]]


def test_permute_needs_dims():
    with pytest.raises(TypeError, match="dims"):
        gg.zeros(2, 3).permute()
    with pytest.raises(TypeError):
        gg.tensor(1.0).permute()
    assert gg.tensor(1.0).permute(()).shape == () and gg.tensor(1.0).permute([]).shape == ()
    assert gg.zeros(2, 3).permute(dims=(1, 0)).shape == (3, 2)


@pytest.mark.parametrize("expr", ["torch.cosine_similarity(a, a.int())", "torch.cosine_similarity(a.half(), a)",
                                  "torch.cosine_similarity(a.long(), a.long())", "torch.meshgrid(indexing='ij')",
                                  "torch.meshgrid(torch.ones(2, 2), indexing='ij')", "a.permute()",
                                  "torch.tensor(1.).permute()", "torch.tensor(1.).permute(())"])
def test_as_torch(expr):
    torch = pytest.importorskip("torch")

    def outcome(lib):
        try:
            r = eval(expr, {"torch": lib, "a": lib.tensor([[1.0, 2.0], [3.0, -1.0]])})
        except (TypeError, RuntimeError) as e:
            return {k for k in (TypeError, RuntimeError) if isinstance(e, k)}
        return str(r.dtype).split(".")[-1], np.asarray(r.float().tolist())
    got, want = outcome(gg), outcome(torch)
    if isinstance(want, set):  # glassgrad's dtype errors are both TypeError and RuntimeError
        assert isinstance(got, set) and want <= got
    else:
        assert got[0] == want[0]
        np.testing.assert_allclose(got[1], want[1], rtol=2e-3)  # PyTorch's half norms round


def test_a_tensor_without_elements_is_contiguous():
    assert gg.zeros(0, 3).t().is_contiguous()
    assert gg.zeros(2, 0, 3).permute(2, 0, 1).is_contiguous()
    assert not gg.zeros(2, 3).t().is_contiguous()
    assert gg.zeros(0, 3).t().contiguous().is_contiguous()


def test_pad_crops_that_leave_too_little():
    F = gg.nn.functional
    # constant: PyTorch crops first, so a crop past the dim's size is refused even where the pad refills it
    with pytest.raises(RuntimeError, match="narrow\\(\\): length must be non-negative"):
        F.pad(gg.ones(2, 2), (3, -3))
    with pytest.raises(RuntimeError, match="narrow"):
        F.pad(gg.ones(2, 2), (1, 0, -3, 1))
    assert F.pad(gg.ones(2, 2), (-2, 0)).shape == (2, 0)
    assert F.pad(gg.ones(2, 2), (-1, 2)).tolist() == [[1.0, 0.0, 0.0]] * 2
    # replicate needs an element in every padded dim; reflect (1-d, 2-d) in one of them
    with pytest.raises(RuntimeError, match="too small"):
        F.pad(gg.ones(2, 2), (0, -2), mode="replicate")
    with pytest.raises(RuntimeError, match="too small"):
        F.pad(gg.ones(1, 4, 1, 1), (2, 2, 2, -3), mode="replicate")
    with pytest.raises(RuntimeError, match="too small"):
        F.pad(gg.ones(3, 4), (-2, -2), mode="reflect")
    assert F.pad(gg.ones(3, 4, 4), (-3, 1, -2, -2), mode="reflect").shape == (3, 0, 2)


@pytest.mark.parametrize("shape,pad,mode", [((2, 2), (3, -3), "constant"), ((1, 3), (2, -1, -2, 1), "constant"),
                                            ((2, 2), (0, -2), "replicate"), ((3, 4), (-2, -2), "reflect"),
                                            ((3, 4, 4), (-3, 1, -2, -2), "reflect"), ((2, 2), (-2, 1), "constant")])
def test_pad_as_torch(shape, pad, mode):
    torch = pytest.importorskip("torch")

    def outcome(lib):
        try:
            return tuple(lib.nn.functional.pad(lib.ones(*shape), pad, mode=mode).shape)
        except RuntimeError:
            return "RuntimeError"
    assert outcome(gg) == outcome(torch)
