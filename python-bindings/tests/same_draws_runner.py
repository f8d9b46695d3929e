"""Runs a script as __main__ under PyTorch or glassgrad with the random numbers it would draw from
the framework's generator drawn from one seeded NumPy generator instead, in the same order under
both, so that two runs of one script can be compared number for number:

    python3 same_draws_runner.py torch|glassgrad.torch SCRIPT [ARGS...]     (in the script's folder)

glassgrad's generator is not PyTorch's (docs/porting.md), so without this the two runs start from
other weights. Drawn from NumPy here: nn.Linear's initial weights and biases (PyTorch's
U(-1/sqrt(in_features), 1/sqrt(in_features))), nn.init.orthogonal_ (PyTorch's QR of a normal
matrix, signs fixed by R's diagonal), nn.init.xavier_uniform_ and normal_, torch.normal(mean, std), torch.randn_like, and the samples of
distributions.Normal (loc + scale * N(0, 1), reparameterized) and distributions.Categorical (the
first index whose cumulative probability passes a uniform draw). Everything else (forward passes,
log_prob, entropy, losses, gradients, optimizers) is the framework's own. Python's `random` is
seeded too (scripts that shuffle with it unseeded)."""
import importlib
import random
import runpy
import sys

import numpy as np

torch = importlib.import_module(sys.argv[1])
nn = torch.nn
draws = np.random.RandomState(12345)


def _set(tensor, values):
    with torch.no_grad():
        tensor.copy_(torch.tensor(np.asarray(values, dtype=np.float32)))
    return tensor


_linear_init = nn.Linear.__init__


def _linear(self, *args, **kwargs):
    _linear_init(self, *args, **kwargs)
    bound = 1.0 / np.sqrt(self.in_features)
    _set(self.weight, draws.uniform(-bound, bound, tuple(self.weight.shape)))
    if self.bias is not None:
        _set(self.bias, draws.uniform(-bound, bound, tuple(self.bias.shape)))


def _orthogonal(tensor, gain=1.0, generator=None):
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = draws.standard_normal((rows, cols))
    q, r = np.linalg.qr(flat.T if rows < cols else flat)
    q = q * np.sign(np.diag(r))
    return _set(tensor, gain * (q.T if rows < cols else q).reshape(tuple(tensor.shape)))


def _xavier_uniform(tensor, gain=1.0, generator=None):
    fan_out, fan_in = tensor.shape[0], tensor.shape[1]
    receptive = tensor.numel() // (fan_out * fan_in)
    bound = gain * np.sqrt(6.0 / (fan_in * receptive + fan_out * receptive))
    return _set(tensor, draws.uniform(-bound, bound, tuple(tensor.shape)))


def _normal_init(tensor, mean=0.0, std=1.0, generator=None):
    return _set(tensor, mean + std * draws.standard_normal(tuple(tensor.shape)))


def _standard_normal(shape):
    return torch.tensor(draws.standard_normal(tuple(shape)).astype(np.float32))


def _normal(mean, std, *args, **kwargs):
    shape = torch.broadcast_shapes(*[tuple(x.shape) for x in (mean, std) if isinstance(x, torch.Tensor)])
    return mean + std * _standard_normal(shape)


def _normal_rsample(self, sample_shape=()):
    return self.loc + self.scale * _standard_normal(tuple(sample_shape) + tuple(self.batch_shape))


def _normal_sample(self, sample_shape=()):
    with torch.no_grad():
        return _normal_rsample(self, sample_shape)


def _categorical_sample(self, sample_shape=()):
    assert tuple(sample_shape) == (), "same_draws_runner: Categorical.sample() without a sample_shape"
    cumulative = np.cumsum(self.probs.detach().numpy().astype(np.float64), axis=-1)
    u = draws.uniform(size=cumulative.shape[:-1] + (1,)) * cumulative[..., -1:]
    picked = np.minimum((cumulative < u).sum(-1), cumulative.shape[-1] - 1)
    return torch.tensor(picked.astype(np.int64))


def _from_scripts(original, replacement):
    """replacement for the script's calls; the framework's own calls (PyTorch's Embedding calls
    init.normal_ when built, glassgrad's does not) keep the original, so both draw alike."""
    def call(*args, **kwargs):
        caller = sys._getframe(1).f_globals.get("__name__", "")
        return (original if caller.split(".")[0] in ("torch", "glassgrad") else replacement)(*args, **kwargs)
    return call


nn.Linear.__init__ = _linear
nn.init.orthogonal_ = _from_scripts(nn.init.orthogonal_, _orthogonal)
nn.init.xavier_uniform_ = _from_scripts(nn.init.xavier_uniform_, _xavier_uniform)
nn.init.normal_ = _from_scripts(nn.init.normal_, _normal_init)
torch.normal = _from_scripts(torch.normal, _normal)
torch.randn_like = _from_scripts(torch.randn_like, lambda input, **kwargs: _standard_normal(input.shape))
torch.distributions.Normal.rsample = _normal_rsample
torch.distributions.Normal.sample = _normal_sample
torch.distributions.Categorical.sample = _categorical_sample

random.seed(0)
sys.argv = sys.argv[2:]
sys.path.insert(0, ".")
runpy.run_path(sys.argv[0], run_name="__main__")
