"""In-place ops, views and aliases (docs/inplace-and-views.md): every view and alias of a storage
sees a write, writes through views land in their base, PyTorch's errors (a leaf that requires
grad, a saved tensor modified since, a second backward, an impossible view, an expanded write),
gradients through in-place ops, and stored tensors written in their own buffers by the plan."""
import numpy as np
import pytest

import glassgrad as gg


def _x():
    return gg.tensor(np.arange(6.0))


def test_a_view_sees_a_later_write_of_its_base():
    x = _x()
    v = x[1:4]
    x.add_(1)
    np.testing.assert_array_equal(v.numpy(), [2, 3, 4])


def test_a_write_through_a_view_lands_in_the_base():
    x = _x()
    x[1:4].mul_(10)
    np.testing.assert_array_equal(x.numpy(), [0, 10, 20, 30, 4, 5])
    x.view(2, 3).T[0] = -1  # a view of a view: reshape, then transpose, then select
    np.testing.assert_array_equal(x.numpy(), [-1, 10, 20, -1, 4, 5])


def test_views_taken_from_views_share_one_storage():
    x = gg.tensor(np.zeros((3, 4)))
    a = x[1]
    b = x[:, 2]
    a.fill_(1)
    np.testing.assert_array_equal(b.numpy(), [0, 1, 0])
    b[2] = 7
    np.testing.assert_array_equal(x.numpy()[2], [0, 0, 7, 0])


def test_detach_and_data_share_storage_but_only_detach_counts_versions():
    x = _x()
    x.detach().zero_()
    np.testing.assert_array_equal(x.numpy(), np.zeros(6))
    assert x._version == 1
    x.data.fill_(2)
    np.testing.assert_array_equal(x.numpy(), np.full(6, 2.0))
    assert x._version == 1


def test_augmented_assignment_mutates_every_alias():
    x = _x()
    alias = x
    view = x[2:]
    x += 1
    x *= 2
    x -= 1
    x /= 2
    assert alias is x
    want = ((np.arange(6.0) + 1) * 2 - 1) / 2
    np.testing.assert_allclose(x.numpy(), want)
    np.testing.assert_allclose(view.numpy(), want[2:])


def test_setitem_with_scalars_masks_indices_and_broadcast_tensors():
    x = gg.tensor(np.zeros((3, 4)))
    x[0] = 5
    x[:, 1] = gg.tensor(np.array([1.0, 2.0, 3.0]))
    x[1:, 2:] = gg.tensor(np.array([9.0, 8.0]))  # broadcast over the rows
    x[x > 8.5] = -1
    x[[2, 2], [0, 3]] = gg.tensor(np.array([4.0, 6.0]))
    x[..., ::-2] += 100
    want = np.zeros((3, 4))
    want[0] = 5
    want[:, 1] = [1, 2, 3]
    want[1:, 2:] = [9, 8]
    want[want > 8.5] = -1
    want[[2, 2], [0, 3]] = [4, 6]
    want[..., ::-2] += 100
    np.testing.assert_array_equal(x.numpy(), want)


def test_reshape_that_copies_is_not_an_alias_and_contiguous_returns_self():
    x = gg.tensor(np.arange(6.0).reshape(2, 3))
    flat = x.T.reshape(-1)  # not expressible over x's strides: a copy
    flat.zero_()
    np.testing.assert_array_equal(x.numpy(), np.arange(6.0).reshape(2, 3))
    assert x.contiguous() is x
    assert not x.T.is_contiguous() and x.T.stride() == (1, 3)


def test_in_place_results_keep_shape_and_dtype_rules():
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"):
        gg.zeros(3).add_(gg.zeros(2, 3))
    x = gg.tensor(np.zeros(3, np.int64))
    to_float_ = gg._inplace.in_place(lambda t: t.float() + 0.5, "to_float_")  # a float result for a long tensor
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        to_float_(x)
    x.copy_(gg.tensor(np.array([1.7, -2.2, 3.9])))  # copy_ converts any dtype
    np.testing.assert_array_equal(x.numpy(), [1, -2, 3])


def test_in_place_on_a_leaf_that_requires_grad_is_refused_outside_no_grad():
    w = gg.tensor(np.ones(3), requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        w.add_(1)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        w[0] = 2
    with gg.no_grad():
        w.add_(1)
        w[0] = 5
    assert w.is_leaf and w.requires_grad
    np.testing.assert_array_equal(w.detach().numpy(), [5, 2, 2])
    w.detach().mul_(2)  # detach() is no view for autograd: allowed
    np.testing.assert_array_equal(w.detach().numpy(), [10, 4, 4])


def test_gradient_survives_an_update_under_no_grad():
    w = gg.tensor(np.ones(2), requires_grad=True)
    (w * 3).sum().backward()
    with gg.no_grad():
        w.sub_(w.grad, alpha=0.5)
    np.testing.assert_array_equal(w.grad.numpy(), [3, 3])
    np.testing.assert_array_equal(w.detach().numpy(), [-0.5, -0.5])


def test_a_saved_tensor_modified_in_place_fails_backward_naming_the_ops():
    a = gg.tensor(np.array([0.5, -1.0, 2.0]), requires_grad=True)
    s = (a * 2).sigmoid()
    s.mul_(2)
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation: \[glassgrad.DoubleTensor \[3\]\], which "
                                           r"is output 0 of Sigmoid, is at version 1; expected version 0") as e:
        s.sum().backward()
    assert "modified by mul_" in str(e.value)


def test_an_in_place_op_may_read_the_version_it_overwrites_in_its_own_gradient():
    q = gg.tensor(np.array([1.0, 2.0, 3.0]), requires_grad=True)
    z = q * 1.0
    z.mul_(q)           # d(q*q)/dq = 2q, through the old version of z
    z.pow_(2)           # and z^2: 4 q^3
    z[1:].add_(q[1:])   # a write through a view
    z.sum().backward()
    np.testing.assert_allclose(q.grad.numpy(), 4 * np.array([1.0, 2, 3]) ** 3 + [0, 1, 1])


def test_setitem_routes_gradients_to_the_value_and_around_the_overwritten_elements():
    x = gg.tensor(np.ones(4), requires_grad=True)
    w = gg.tensor(np.array([2.0]), requires_grad=True)
    y = x * 3
    y[1:2] = w * 5
    (y * gg.tensor(np.arange(1.0, 5.0))).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3, 0, 9, 12])
    np.testing.assert_array_equal(w.grad.numpy(), [10])


def test_writing_a_tensors_own_elements_back_records_nothing_but_counts_as_a_write():
    """x[a, b] += 1 ends with x[a, b] = x[a, b] (Python's augmented assignment on an item): with
    no gradient tracked the second write changes nothing, so it adds no steps, while _version
    counts it as PyTorch's does (2 for x[a, b] += 1)."""
    from glassgrad import debug
    x = gg.zeros((4, 5), dtype=gg.int32)
    x.tolist()
    x[1, 2] += 1
    assert x._version == 2
    x[3] = x[3]
    x[:, 4] = x[:, 4]
    assert x._version == 4
    x._raw()
    ops = [s["op"] for s in debug.last_plan().steps]
    # x[1, 2] += 1 went into x's buffer at once (a realized CPU tensor with nothing pending:
    # docs/inplace-and-views.md, "Writes done at once") and the writes of x's own elements add none
    assert "SliceScatter" not in ops and "Assign" not in ops, ops
    want = np.zeros((4, 5), np.int32)
    want[1, 2] = 1
    np.testing.assert_array_equal(x.numpy(), want)
    # Another view of the same elements (not the one read) is the same elements too; a copy is not.
    y = gg.tensor(np.arange(6.0))
    y[2:4] = y[2:4].clone() * 0 + 7
    y[0:2] = y.view(2, 3)[0, :2]
    np.testing.assert_array_equal(y.numpy(), [0, 1, 7, 7, 4, 5])


def test_writing_a_tensors_own_elements_back_with_gradients_still_records_the_copy():
    x = gg.tensor(np.arange(1.0, 5.0), requires_grad=True)
    y = x * 2
    y[1:3] = y[1:3]
    assert type(y.grad_fn).__name__ == "CopySlices"
    (y * y).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 8 * np.arange(1.0, 5.0))


def test_second_backward_needs_retain_graph_when_values_were_saved():
    a = gg.tensor(np.array([1.0, 2.0]), requires_grad=True)
    c = a * a
    c.sum().backward(retain_graph=True)
    c.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        c.sum().backward()
    d = a + 1  # saves nothing: PyTorch allows it again
    d.sum().backward()
    d.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [6, 10])


def test_backward_after_the_optimizer_overwrote_a_saved_parameter_is_pytorchs_error():
    lin = gg.Linear(3, 2)
    opt = gg.SGD(lin.parameters(), lr=0.1)
    x = gg.tensor(np.ones((4, 3), np.float32), requires_grad=True)
    first = lin(x).sum()
    lin(x).sum().backward()
    opt.step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        first.backward()


def test_impossible_views_and_expanded_writes_raise_pytorchs_errors():
    with pytest.raises(RuntimeError, match="view size is not compatible with input tensor's size and stride"):
        gg.zeros(3, 4).T.view(12)
    assert tuple(gg.zeros(3, 4).T.reshape(12).shape) == (12,)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor refers to a single"):
        gg.zeros(3).expand(2, 3).add_(1)
    with pytest.raises(RuntimeError, match="Can't detach views in-place"):
        gg.zeros(3)[1:].detach_()


def test_detach_in_place_makes_a_leaf():
    a = gg.tensor(np.ones(2), requires_grad=True)
    b = a * 2
    b.detach_()
    assert b.is_leaf and not b.requires_grad


def test_detach_in_place_of_a_detached_tensor_runs_as_it_is_no_view():
    # PyTorch's detach() (and .data, and detach() of a view) is no view: _is_view() is False and
    # its detach_() runs; a view of it refuses (a CAM library's cleanup detaches its saved
    # activations, taken as output.cpu().detach(), in place)
    a = gg.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    d = b.detach()
    assert not d._is_view() and d.detach_() is d
    assert not d.requires_grad and d.is_leaf
    d.add_(1)  # still b's storage
    np.testing.assert_array_equal(b.detach().numpy(), [3, 5])
    assert b.requires_grad
    for t in (a[1:].detach(), a.data, a.detach()[1:].detach()):
        t.detach_()
        assert not t.requires_grad and t.is_leaf
    for view in (a.detach()[1:], b.detach().view(2, 1)):
        with pytest.raises(RuntimeError, match="Can't detach views in-place"):
            view.detach_()


def test_detach_in_place_of_a_detached_tensor_made_to_require_grad():
    a = gg.tensor([1.0, 2.0], requires_grad=True)
    d = a.detach()
    d.requires_grad_()
    d.detach_()
    assert not d.requires_grad and d.is_leaf and a.requires_grad


def test_detach_in_place_cuts_a_write_with_gradients_into_a_detached_alias():
    x = gg.zeros(2)
    d = x.detach()
    w = gg.tensor([3.0, 4.0], requires_grad=True)
    d.add_(w * 2)
    assert d.requires_grad and d.grad_fn is not None
    d.detach_()
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None
    np.testing.assert_array_equal(d.numpy(), [6, 8])
    np.testing.assert_array_equal(x.numpy(), [6, 8])
    d.mul_(2)  # builds on the storage's values, with no gradient
    assert not d.requires_grad
    np.testing.assert_array_equal(x.numpy(), [12, 16])
    x.add_(1)
    np.testing.assert_array_equal(d.numpy(), [13, 17])


def test_grad_is_one_storage_zeroed_in_place():
    w = gg.tensor(np.ones(3), requires_grad=True)
    (w * 2).sum().backward()
    g = w.grad
    w.grad.mul_(0.5)
    np.testing.assert_array_equal(g.numpy(), [1, 1, 1])
    opt = gg.SGD([w], lr=1.0)
    opt.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(g.numpy(), [0, 0, 0])
    np.testing.assert_array_equal(w.grad.numpy(), [0, 0, 0])


def test_fill_zero_and_random_fills():
    x = gg.zeros(2, 3)
    x.fill_(4)
    np.testing.assert_array_equal(x.numpy(), np.full((2, 3), 4.0))
    x[0].zero_()
    np.testing.assert_array_equal(x.numpy()[0], np.zeros(3))
    gg.manual_seed(0)
    u = gg.zeros(1000).uniform_(2, 3).numpy()
    assert 2 <= u.min() and u.max() < 3
    n = gg.zeros(4000).normal_(1.0, 0.5).numpy()
    assert abs(n.mean() - 1.0) < 0.05 and abs(n.std() - 0.5) < 0.05


def test_writing_a_stored_tensor_reuses_its_buffer_without_a_copy():
    lin = gg.Linear(4, 3)
    x, y = gg.tensor(np.ones((5, 4), np.float32)), gg.tensor(np.zeros(5, np.int64))
    before = lin.weight._raw().storage_ptr
    for _ in range(2):
        gg.cross_entropy(lin(x), y).backward()
        with gg.no_grad():
            for p in lin.parameters():
                p -= 0.1 * p.grad
                p.grad = None
    lin.weight.detach().numpy()
    assert lin.weight._raw().storage_ptr == before
    plan = gg._C.last_plan()
    ops = [line.split()[1] for line in str(plan).splitlines() if line.strip().startswith("#")]
    assert "Assign" not in ops  # each update's kernel writes the parameter's buffer itself


def test_in_place_view_ops_change_this_tensor_only():
    x = gg.tensor(np.arange(6.0).reshape(2, 3))
    alias = x[0]
    assert x.unsqueeze_(0) is x and tuple(x.shape) == (1, 2, 3)
    x.transpose_(1, 2).squeeze_(0)
    assert tuple(x.shape) == (3, 2) and not x.is_contiguous()
    x[0] = -1  # still a view of the storage
    np.testing.assert_array_equal(alias.numpy(), [-1, 1, 2])
    w = gg.tensor(np.zeros(3), requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        w.unsqueeze_(0)
    with gg.no_grad():
        w.unsqueeze_(0)  # a leaf stays a leaf, of the new shape
    (w * 2).sum().backward()
    assert w.is_leaf and tuple(w.grad.shape) == (1, 3)


def test_random_fills_draw_from_a_generator_and_check_dtypes():
    g = gg.Generator().manual_seed(7)
    first = gg.zeros(5).uniform_(-1, 1, generator=g).numpy()
    g.manual_seed(7)
    np.testing.assert_array_equal(gg.zeros(5).uniform_(-1, 1, generator=g).numpy(), first)
    g.manual_seed(7)
    a = gg.zeros(5).normal_(generator=g).numpy()
    g.manual_seed(7)
    np.testing.assert_array_equal(gg.zeros(5).normal_(generator=g).numpy(), a)
    r = gg.zeros(400, dtype="int64").random_(3, 7).numpy()
    assert r.dtype == np.int64 and set(r) == {3, 4, 5, 6}
    assert set(gg.zeros(400, dtype="int64").random_(2).numpy()) == {0, 1}
    f = gg.zeros(400).random_().numpy()
    assert f.min() >= 0 and f.max() <= 2 ** 24 and np.all(f == np.round(f))
    b = gg.zeros(2000).bernoulli_(0.25).numpy()
    assert set(b) == {0.0, 1.0} and abs(b.mean() - 0.25) < 0.05
    e = gg.zeros(4000, dtype="float64").exponential_(2.0).numpy()
    assert e.min() >= 0 and abs(e.mean() - 0.5) < 0.05
    assert gg.zeros(100).geometric_(0.5).numpy().min() >= 1
    assert gg.zeros(100).log_normal_().numpy().min() > 0
    assert gg.zeros(100).cauchy_().numpy().shape == (100,)
    with pytest.raises(gg.DTypeError, match="exponential_.*floating point"):
        gg.zeros(3, dtype="int64").exponential_()
    with pytest.raises(gg.InvalidArgumentError, match="random_ expects 'from' to be less than 'to'"):
        gg.zeros(3).random_(5, 2)
    with pytest.raises(gg.InvalidArgumentError, match="bernoulli_ expects p to be in"):
        gg.zeros(3).bernoulli_(1.5)


@pytest.mark.parametrize("write", [
    lambda x: x.fill_(3.0), lambda x: x.zero_(), lambda x: x.t().fill_(3.0), lambda x: x.view(-1).zero_(),
    lambda x: x.__setitem__(Ellipsis, 7.0), lambda x: x.copy_(gg.ones(3, 4)),
])
def test_overwriting_a_computed_tensor_keeps_it_requiring_gradients(write):
    # PyTorch: x.zero_() on a computed x leaves x.requires_grad True; its inputs get zero gradients
    leaf = gg.tensor(np.random.default_rng(0).standard_normal((3, 4)), requires_grad=True)
    x = leaf * 1.0
    write(x)
    assert x.requires_grad
    (x * 2).sum().backward()
    np.testing.assert_array_equal(leaf.grad.numpy(), np.zeros((3, 4)))
    x = leaf * np.nan
    x.fill_(1.0)
    assert np.isfinite(x.detach().numpy()).all()          # the join sends no NaN into the values


def test_a_write_done_at_once_keeps_what_was_computed_before_it_and_shows_in_views():
    """x[i, j] = v on a realized CPU tensor is written into its buffer at once; a result recorded
    before it (still pending) keeps the old elements, a view of x sees the new ones, and _version
    counts the write, as in PyTorch."""
    x = gg.tensor(np.arange(6.0).reshape(2, 3))
    row = x[1]
    before = x * 2  # pending while x is written
    x[1, 2] = 50.0
    x[0, 0] += 3
    assert x._version == 3
    np.testing.assert_array_equal(before.numpy(), np.arange(6.0).reshape(2, 3) * 2)
    np.testing.assert_array_equal(row.numpy(), [3, 4, 50])
    np.testing.assert_array_equal(x.numpy(), [[3, 1, 2], [3, 4, 50]])


def test_a_write_into_a_tensor_saved_for_backward_is_refused_as_in_pytorch():
    """A tensor a gradient rule saved, written in place before backward(): PyTorch's error, whether
    the write is recorded or done at once."""
    w = gg.ones(3, requires_grad=True)
    c = gg.tensor([1.0, 2.0, 3.0])
    loss = (w * c).sum()
    loss.item()
    c[0] = 10.0
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_a_pending_clone_of_a_view_keeps_the_elements_it_was_taken_with():
    """A view of a realized tensor is taken at once and a clone of it reads the buffer through
    that view, not through the storage's value: a later write is recorded after the clone, not
    done at once under it (PyTorch: the clone holds the old elements)."""
    x = gg.tensor(np.arange(4.0))
    v = x.view(2, 2)
    snapshot = v.clone()
    x[0] = 100.0
    v[1, 1] = -100.0
    np.testing.assert_array_equal(snapshot.numpy(), [[0, 1], [2, 3]])
    np.testing.assert_array_equal(x.numpy(), [100, 1, 2, -100])


@pytest.mark.parametrize("op", ["cumsum_", "cumprod_"])
def test_bool_cumulative_in_place_is_pytorchs_missing_kernel(op):
    # PyTorch's CPU kernel has no bool form: its NotImplementedError, not the cast check's error
    x = gg.tensor([True, False, True])
    with pytest.raises(NotImplementedError, match=f'"{op[:-1]}_out_cpu" not implemented for \'Bool\''):
        getattr(x, op)(0)
    assert x.tolist() == [True, False, True]
    assert getattr(gg.tensor([1, 2, 3], dtype=gg.int32), op)(0).tolist() == ([1, 3, 6] if op == "cumsum_"
                                                                              else [1, 2, 6])
