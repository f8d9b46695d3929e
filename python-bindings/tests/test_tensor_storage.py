"""Tensor.storage() and untyped_storage() as PyTorch's present them to scripts (what dlwpt-code's
chapter 3 shows): sizes, elements, printing, data_ptr, and writes that reach the tensor and its
views; checked against the installed torch."""
import warnings

import numpy as np
import pytest

import glassgrad as gg

POINTS = [[4.0, 1.0], [5.0, 3.0], [2.0, 1.0]]


def _storage(t):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # TypedStorage is deprecated (both warn)
        return t.storage()


def test_storage_of_a_tensor_and_its_views_matches_torch(torch):
    for make in (lambda lib: lib.tensor(POINTS, device="cpu"), lambda lib: lib.tensor(POINTS, device="cpu")[1],
                 lambda lib: lib.tensor(POINTS, device="cpu").t(),
                 lambda lib: lib.arange(24, dtype=lib.int16, device="cpu").reshape(2, 3, 4)[:, 1:, ::2]):
        ours, theirs = _storage(make(gg)), _storage(make(torch))
        assert (ours.size(), len(ours), ours.tolist(), list(ours)) == (theirs.size(), len(theirs), theirs.tolist(),
                                                                        list(theirs))
        assert (ours.element_size(), ours.nbytes()) == (theirs.element_size(), theirs.nbytes())
        assert [ours[i] for i in (0, 1, -1)] == [theirs[i] for i in (0, 1, -1)]
        assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1] and str(ours.device) == "cpu"
        assert repr(ours).split("[")[0] == repr(theirs).split("[")[0]  # the elements, one a line
        assert repr(ours).endswith(f"(dtype={ours.dtype}, device=cpu) of size {ours.size()}]")
        u, tu = make(gg).untyped_storage(), make(torch).untyped_storage()
        assert (u.size(), u.nbytes(), u.tolist()) == (tu.size(), tu.nbytes(), tu.tolist())


def test_storage_writes_reach_the_tensor_and_every_view(torch):
    ours, theirs = gg.tensor(POINTS, device="cpu"), torch.tensor(POINTS)
    for t in (ours, theirs):
        _storage(t)[0] = 2.0
        _storage(t.t())[3] = -1.0  # element 3 of the shared storage is t[1, 1]
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    row = ours[2]
    _storage(row)[5] = 9.0
    assert ours[2, 1].item() == 9.0 and _storage(row).data_ptr() == ours.data_ptr()
    _storage(row)[0] = 1.0  # not reachable through the row: written into the buffer, as PyTorch's
    assert ours[0, 0].item() == 1.0 and row.tolist() == [2.0, 9.0]
    w = gg.nn.Linear(2, 2).weight  # a parameter: written without recording gradients
    _storage(w)[0] = 0.5
    assert w[0, 0].item() == 0.5 and w.requires_grad and w.is_leaf


def test_storage_errors_and_predicates():
    s = _storage(gg.tensor(POINTS))
    with pytest.raises(IndexError, match="out of range"):
        s[6]
    with pytest.raises(TypeError, match="slices are only supported in UntypedStorage"):
        s[1:3]
    assert gg.is_storage(s) and gg.is_storage(gg.ones(2).untyped_storage()) and not gg.is_storage(gg.ones(2))
    assert _storage(gg.tensor([1.5], dtype=gg.bfloat16)).tolist() == [1.5]


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "int64", "int16", "bool"])
def test_a_storage_write_no_view_reaches_reaches_the_base_and_its_other_views_as_torch(torch, dtype):
    """points[1].storage()[0] = v (dlwpt-code's chapter 3): the element lies outside the row, in
    the base's first row. PyTorch writes the buffer: the base, a column view and a later
    computation see it, and no tensor's in-place version changes. The base here is computed
    (pending work, then written) as well as made from data."""
    results = []
    for lib in (torch, gg):
        dt = getattr(lib, dtype)
        values = [[True, False], [True, True], [False, True]] if dtype == "bool" else \
            [[4, 1], [5, 3], [2, 1]] if dtype.startswith("int") else POINTS
        points = lib.tensor(values, dtype=dt, device="cpu")
        computed = lib.tensor(values, dtype=dt, device="cpu").clone()
        if dtype != "bool":
            computed = computed * 2
        column = points[:, 1]
        row = points[1]
        version = points._version
        new = True if dtype == "bool" else 7
        _storage(row)[0] = new
        _storage(computed[2])[1] = new
        seen = [points.tolist(), column.tolist(), row.tolist(), computed.tolist(), points._version == version]
        if dtype != "bool":
            seen.append((points.double() * 3).sum().item())
        results.append(seen)
    assert results[1] == results[0]


def test_a_storage_write_outside_the_view_refuses_a_non_number():
    row = gg.tensor(POINTS)[1]
    with pytest.raises(TypeError, match="must be a number"):
        _storage(row)[0] = "seven"
