"""The generator used to initialize parameters: glassgrad.manual_seed(s) makes runs repeatable."""
import json
import secrets

import numpy as np

_U64 = 1 << 64
_seed = secrets.randbits(63)  # until manual_seed: from the operating system, as PyTorch's
_rng = np.random.default_rng(_seed)


def manual_seed(seed: int):
    """Seeds glassgrad's generator, which initializes parameters and draws rand, randn, dropout
    masks, ... (torch.manual_seed); returns it (glassgrad.default_generator)."""
    global _rng, _seed
    _seed = int(seed) % _U64  # a negative seed wraps to its unsigned value, as PyTorch's
    _rng = np.random.default_rng(_seed)
    return default_generator


def seed() -> int:
    """Reseeds glassgrad's generator from the operating system; returns the seed (torch.seed)."""
    manual_seed(secrets.randbits(63))
    return _seed


def initial_seed() -> int:
    """The seed glassgrad's generator was last seeded with (torch.initial_seed)."""
    return _seed


def get_rng_state():
    """glassgrad's generator state as a uint8 tensor (torch.get_rng_state): opaque bytes that
    set_rng_state takes back (the NumPy bit generator's state, JSON-encoded)."""
    from ._tensor import tensor
    raw = json.dumps({"seed": _seed, "state": _rng.bit_generator.state}).encode()
    return tensor(np.frombuffer(raw, dtype=np.uint8).copy(), device="cpu")


def set_rng_state(new_state) -> None:
    """Restores a state get_rng_state returned (torch.set_rng_state)."""
    global _seed
    try:
        got = json.loads(bytes(np.asarray(new_state.numpy() if hasattr(new_state, "numpy") else new_state,
                                          dtype=np.uint8)).decode())
        _rng.bit_generator.state = got["state"]
        _seed = int(got["seed"])
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as e:
        raise ValueError(f"set_rng_state: not a state glassgrad.get_rng_state() returned ({e})\n"
                         "  fix: pass the uint8 tensor get_rng_state() gave (saved and loaded unchanged)") from None


def generator() -> np.random.Generator:
    """glassgrad's NumPy generator (glassgrad.manual_seed seeds it)."""
    return _rng


def dropout_seed(device: str, what: str):
    """A fresh seed (an int64 scalar tensor) for a counter-based dropout mask (the Dropout op,
    scaled_dot_product_attention's dropout), drawn from the generator above and redrawn at every
    replay of a compiled step: a new mask each call, repeatable under manual_seed."""
    from . import _C
    from ._tensor import _wrap
    from .compile import random_input

    def draw() -> "_C.Tensor":
        value = np.asarray(_rng.integers(0, 2**63 - 1), dtype=np.int64)
        return _C.Tensor.from_numpy(value, device, what)

    return random_input(_wrap(_C.lazy_leaf(draw(), "input", False, "")), draw)



def _make_default_generator():
    import copy

    from ._generator import Generator
    from ._device import device as _device

    class DefaultGenerator(Generator):
        """torch.default_generator: the Generator view of glassgrad's own generator (the one
        manual_seed seeds); every method acts on that generator."""

        def __init__(self):  # no seeding of its own: the module's state is the state
            self.device = _device("cpu")

        def manual_seed(self, seed) -> "Generator":
            manual_seed(seed)
            return self

        def seed(self) -> int:
            return seed()

        def initial_seed(self) -> int:
            return _seed

        def get_state(self) -> dict:
            return dict(copy.deepcopy(_rng.bit_generator.state))

        def set_state(self, new_state: dict) -> "Generator":
            _rng.bit_generator.state = copy.deepcopy(new_state)
            return self

        def numpy_generator(self) -> np.random.Generator:
            return _rng

    return DefaultGenerator()


default_generator = _make_default_generator()
