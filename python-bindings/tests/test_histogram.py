"""torch.histogram against NumPy's histogram, which PyTorch documents it as following: bins as a
count over the data's span or `range`, or as increasing edges; the last bin closed on the right;
weights and density; the results in the input's dtype; and its errors."""
import numpy as np
import pytest

import glassgrad as gg

A = np.array([0.5, 1.0, 1.0, 2.25, 3.0, 3.0, -1.0, 7.5], np.float32)


def test_a_bin_count_spans_the_data_and_closes_the_last_bin():
    hist, edges = gg.histogram(gg.tensor(A), 4)
    want_h, want_e = np.histogram(A.astype(np.float64), 4)
    np.testing.assert_allclose(hist.numpy(), want_h)
    np.testing.assert_allclose(edges.numpy(), want_e, rtol=1e-6)
    assert hist.dtype == gg.float32 and edges.dtype == gg.float32 and edges.shape == (5,)
    assert hist.sum().item() == A.size  # 7.5, the largest, lands in the last bin
    r = gg.histogram(gg.tensor(A), bins=4)
    assert r.hist.tolist() == hist.tolist() and r.bin_edges.tolist() == edges.tolist()


def test_range_leaves_out_what_is_outside_and_edges_tensors_count_as_given():
    x = gg.tensor(A.astype(np.float64))
    hist, edges = gg.histogram(x, bins=3, range=(0.0, 3.0))
    np.testing.assert_array_equal(hist.numpy(), np.histogram(A, 3, range=(0, 3))[0])
    np.testing.assert_allclose(edges.numpy(), [0, 1, 2, 3])
    assert hist.dtype == gg.float64
    given = np.array([-2.0, 0.0, 1.0, 4.0], np.float64)
    hist, edges = x.histogram(gg.tensor(given))
    np.testing.assert_array_equal(hist.numpy(), np.histogram(A, given)[0])  # [1, 1, 5]: 1.0 opens bin 2
    np.testing.assert_array_equal(edges.numpy(), given)


def test_weights_and_density_as_numpy_computes_them():
    rng = np.random.default_rng(3)
    a = rng.standard_normal(200)
    w = rng.random(200)
    hist, edges = gg.histogram(gg.tensor(a), 7, weight=gg.tensor(w), density=True)
    want, want_e = np.histogram(a, 7, weights=w, density=True)
    np.testing.assert_allclose(hist.numpy(), want, rtol=1e-10)
    np.testing.assert_allclose(edges.numpy(), want_e, rtol=1e-12)
    assert (hist.numpy() * np.diff(edges.numpy())).sum() == pytest.approx(1.0)


def test_a_constant_input_gets_a_unit_span_around_its_value():
    hist, edges = gg.histogram(gg.full((5,), 2.0), 2)
    np.testing.assert_allclose(edges.numpy(), [1.5, 2.0, 2.5])
    np.testing.assert_array_equal(hist.numpy(), [0, 5])


def test_errors_name_the_argument_and_the_fix():
    with pytest.raises(gg.DTypeError, match="floating point"):
        gg.histogram(gg.tensor([1, 2, 3]), 2)
    with pytest.raises(gg.InvalidArgumentError, match="bins must be > 0"):
        gg.histogram(gg.tensor(A), 0)
    with pytest.raises(gg.InvalidArgumentError, match="min should not exceed max"):
        gg.histogram(gg.tensor(A), 2, range=(3.0, 1.0))
    with pytest.raises(gg.DTypeError, match="same dtype"):
        gg.histogram(gg.tensor(A), gg.tensor([0.0, 1.0], dtype=gg.float64))
    with pytest.raises(gg.ShapeError, match="weight should have the same shape"):
        gg.histogram(gg.tensor(A), 2, weight=gg.ones(3))


def test_float32_bin_edges_have_pytorchs_last_bits():
    # What PyTorch 2.x prints for torch.linspace(-1.0, 7.5, 8) and torch.linspace(0.1, 0.7, 6)
    # (float32, each value one fused multiply-add from start or end); histogram's edges are that
    # linspace over the data's span.
    want = [-1.0, 0.2142857313156128, 1.4285714626312256, 2.642857074737549, 3.857142925262451,
            5.071428298950195, 6.285714149475098, 7.5]
    assert gg.linspace(-1.0, 7.5, 8).tolist() == want
    assert gg.histogram(gg.tensor([-1.0, 7.5, 0.3]), 7).bin_edges.tolist() == want
    assert gg.linspace(0.1, 0.7, 6).tolist() == [0.10000000149011612, 0.2199999988079071, 0.3399999737739563,
                                                  0.46000000834465027, 0.5799999833106995, 0.699999988079071]


def test_the_result_is_a_return_types_named_tuple_printed_as_pytorchs():
    import pickle
    r = gg.histogram(gg.tensor([0.0, 1.0, 2.0, 3.0]), 2)
    assert type(r).__module__ == "glassgrad._return_types" and type(r).__name__ == "histogram"
    assert repr(r).startswith("glassgrad.return_types.histogram(\nhist=tensor([2., 2.]),\nbin_edges=")
    assert pickle.loads(pickle.dumps(r)).hist.tolist() == [2.0, 2.0]
