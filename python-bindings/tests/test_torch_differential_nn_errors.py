"""glassgrad.nn against torch.nn where PyTorch documents a refusal: the same call raises in both
libraries, an instance of PyTorch's exception class (glassgrad's errors subclass it). An input
of another dtype than a recurrent layer's or PReLU's weights (neither promotes), an interpolate
mode that needs another rank (NotImplementedError), binary_cross_entropy of inputs or targets
outside [0, 1] or of a target of another dtype. Next to each refusal, the accepted neighbour runs in both. Skipped when torch is not
importable."""
import warnings

import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

X = np.random.default_rng(0).uniform(0.1, 0.9, (5, 2, 3))


def _both(call, error=None, match=None):
    """call(lib) raises error (matching match) for torch and glassgrad alike, or runs in both and
    gives the same shapes."""
    if error is None:
        shapes = [tuple(call(lib).shape) for lib in (torch, gg)]
        assert shapes[0] == shapes[1]
        return
    for lib in (torch, gg):
        with pytest.raises(error, match=match):
            call(lib)


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_recurrent_layers_refuse_an_input_of_another_dtype_with_a_value_error(name, batch_first):
    def run(dtype, double=False):
        def call(lib):
            layer = getattr(lib.nn, name)(3, 4, batch_first=batch_first)
            layer = layer.double() if double else layer
            return layer(lib.tensor(X, dtype=getattr(lib, dtype)))[0]
        return call
    match = "input dtype .*does not match weight dtype"
    _both(run("float64"), ValueError, match)
    _both(run("float32", double=True), ValueError, match)
    _both(run("int64"), ValueError, match)
    _both(run("float64", double=True))
    _both(lambda lib: getattr(lib.nn, name)(3, 4)(lib.tensor(X[0], dtype=lib.float64))[0], ValueError, match)   # unbatched


@pytest.mark.parametrize("num_parameters", [1, 2])
def test_prelu_refuses_to_promote_as_torch(num_parameters):
    x = X[:, :, :2]
    _both(lambda lib: lib.nn.PReLU(num_parameters)(lib.tensor(x, dtype=lib.float64)), RuntimeError, "Type promoting")
    _both(lambda lib: lib.nn.PReLU(num_parameters).double()(lib.tensor(x, dtype=lib.float32)), RuntimeError,
          "Type promoting")
    _both(lambda lib: lib.nn.functional.prelu(lib.tensor(x), lib.tensor(np.full(num_parameters, 0.2), dtype=lib.float32)),
          RuntimeError, "Type promoting")
    _both(lambda lib: lib.nn.PReLU(num_parameters).double()(lib.tensor(x, dtype=lib.float64)))


@pytest.mark.parametrize("shape,mode", [((2, 3, 4), "bilinear"), ((2, 3, 4), "bicubic"), ((2, 3, 4), "trilinear"),
                                        ((2, 3, 4, 4), "linear"), ((2, 3, 4, 4), "trilinear"), ((1, 2, 3, 4, 4), "bilinear")])
def test_interpolate_modes_of_another_rank_raise_not_implemented_as_torch(shape, mode):
    x = np.random.default_rng(1).standard_normal(shape)
    _both(lambda lib: lib.nn.functional.interpolate(lib.tensor(x), scale_factor=2, mode=mode), NotImplementedError,
          "D input")
    _both(lambda lib: lib.nn.Upsample(scale_factor=2, mode=mode)(lib.tensor(x)), NotImplementedError, "D input")


@pytest.mark.parametrize("bad", [1.5, -0.25, float("nan")])
def test_binary_cross_entropy_refuses_values_outside_0_1_as_torch(bad):
    p = np.array([0.2, bad, 0.7])
    t = np.array([0.0, 1.0, 1.0])
    _both(lambda lib: lib.nn.functional.binary_cross_entropy(lib.tensor(p), lib.tensor(t)), RuntimeError,
          "between 0 and 1")
    _both(lambda lib: lib.nn.BCELoss(reduction="none")(lib.tensor(p, requires_grad=True), lib.tensor(t)), RuntimeError,
          "between 0 and 1")


@pytest.mark.parametrize("bad", [1.5, -0.25, float("nan")])
def test_binary_cross_entropy_refuses_targets_outside_0_1_as_torch(bad):
    p = np.array([0.2, 0.5, 0.7])
    t = np.array([0.0, bad, 1.0])
    _both(lambda lib: lib.nn.functional.binary_cross_entropy(lib.tensor(p), lib.tensor(t)), RuntimeError,
          "all elements of target should be between 0 and 1")


@pytest.mark.parametrize("target_dtype", ["float64", "float16", "int64"])
def test_binary_cross_entropy_refuses_a_target_of_another_dtype_as_torch(target_dtype):
    p = np.array([0.2, 0.5, 0.7], np.float32)
    t = np.array([0, 1, 1]).astype(target_dtype)
    _both(lambda lib: lib.nn.BCELoss()(lib.tensor(p), lib.tensor(t)), RuntimeError, "Found dtype .* but expected Float")


def test_cross_entropy_probabilities_with_ignore_index_and_margin_ranking_ranks_as_torch():
    x, p = np.zeros((2, 3)), np.full((2, 3), 1 / 3)
    _both(lambda lib: lib.nn.functional.cross_entropy(lib.tensor(x), lib.tensor(p), ignore_index=2), RuntimeError,
          "ignore_index is not supported for floating point target")
    _both(lambda lib: lib.nn.functional.cross_entropy(lib.tensor(x), lib.tensor(p)))
    _both(lambda lib: lib.nn.functional.margin_ranking_loss(lib.tensor(x[0]), lib.tensor(p[0]), lib.tensor(1.0)),
          RuntimeError, "same dimension")
    _both(lambda lib: lib.nn.functional.margin_ranking_loss(lib.tensor(x), lib.tensor(p), lib.tensor([[1.0, -1.0, 1.0]])))


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "kl_div",
                                  "binary_cross_entropy", "binary_cross_entropy_with_logits", "soft_margin_loss"])
def test_the_mean_of_an_empty_loss_is_torchs(name):
    values = []
    for lib in (torch, gg):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            values.append(getattr(lib.nn.functional, name)(lib.zeros(0), lib.zeros(0)).item())
    assert np.isnan(values[0]) and np.isnan(values[1])


def test_binary_cross_entropy_accepts_the_bounds_as_torch():
    p, t = np.array([0.0, 1.0, 0.5]), np.array([0.0, 1.0, 1.0])
    values = [lib.nn.functional.binary_cross_entropy(lib.tensor(p), lib.tensor(t), reduction="none").numpy()
              for lib in (torch, gg)]
    np.testing.assert_allclose(values[1], values[0], rtol=1e-12)
