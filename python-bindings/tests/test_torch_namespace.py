"""glassgrad.torch, the module a port gets for `import torch` (docs/porting.md): glassgrad's own
objects under PyTorch's top-level defaults, where glassgrad's deliberately differ (flatten), while
glassgrad's top level keeps the seed's behaviour."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.torch as torch_like
from glassgrad.utils.data import DataLoader, TensorDataset
from glassgrad.vision.transforms import Compose, Lambda, Normalize, ToTensor


pytestmark = pytest.mark.usefixtures("on_the_cpu")


@pytest.mark.parametrize("args", [(), (0,), (1,), (1, 2), (0, -2), (-2,)])
def test_flatten_is_torchs_and_gg_flatten_keeps_the_batch_axis(args):
    x = gg.tensor(np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5))
    want = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)
    start, end = (list(args) + [0, -1][len(args):])[:2]
    start, end = start % 4, end % 4
    expected = want.reshape(want.shape[:start] + (-1,) + want.shape[end + 1:])
    try:
        import torch
        np.testing.assert_array_equal(torch.flatten(torch.from_numpy(want), *args).numpy(), expected)
    except ImportError:
        pass  # PyTorch is not a test dependency: the reference above is its documented rule
    got = torch_like.flatten(x, *args)
    assert tuple(got.shape) == expected.shape
    np.testing.assert_array_equal(got.numpy(), expected)
    assert tuple(gg.flatten(x).shape) == (2, 60)  # the seed's gg.flatten: start_dim=1


def test_every_other_name_is_glassgrads_own_object():
    for name in ("nn", "optim", "utils", "cuda", "Tensor", "tensor", "manual_seed", "device", "no_grad", "cat",
                 "float32", "save", "multiprocessing", "backends"):
        assert getattr(torch_like, name) is getattr(gg, name), name
    assert torch_like.xpu.is_available() is False and torch_like.xpu.device_count() == 0
    assert "flatten" in dir(torch_like) and "nn" in dir(torch_like)


def test_a_missing_name_says_so_with_where_to_look():
    with pytest.raises(AttributeError, match=r"no attribute 'not_a_torch_name'[\s\S]*fix: see docs/porting.md"):
        torch_like.not_a_torch_name


def test_a_flattening_transform_gives_rows_of_pixels_as_in_pytorch():
    """The forward-forward MNIST example's pipeline: ToTensor, Normalize, then torch.flatten on each
    image, so a batch is [N, 784]."""
    images = np.random.default_rng(0).integers(0, 256, (6, 28, 28), dtype=np.uint8)
    transform = Compose([ToTensor(), Normalize((0.1307,), (0.3081,)), Lambda(lambda x: torch_like.flatten(x))])

    class Images:
        def __len__(self):
            return len(images)

        def __getitem__(self, i):
            return transform(images[i]), i
    x, y = next(iter(DataLoader(Images(), batch_size=4)))
    assert tuple(x.shape) == (4, 784) and y.numpy().tolist() == [0, 1, 2, 3]
    np.testing.assert_allclose(x.numpy()[1], ((images[1] / 255.0 - 0.1307) / 0.3081).reshape(-1), rtol=1e-5)
    ds = TensorDataset(x)
    assert tuple(ds[0][0].shape) == (784,)


def test_modules_imported_under_glassgrad_torch_are_glassgrads_own():
    """`import glassgrad.torch.nn.functional as F`, `from glassgrad.torch.autograd import Variable`:
    the same module objects as glassgrad's (one Tensor class), not a second copy of the files."""
    import subprocess
    import sys
    code = (
        "import sys\n"
        "import glassgrad, glassgrad.torch as torch\n"
        "from glassgrad.torch.autograd import Variable\n"
        "import glassgrad.torch.nn.functional as F\n"
        "from glassgrad.torch.utils.data import DataLoader, TensorDataset\n"
        "import glassgrad.torch.nn as nn\n"
        "assert F is glassgrad.nn.functional and nn is torch.nn is glassgrad.nn\n"
        "assert DataLoader is glassgrad.utils.data.DataLoader\n"
        "v = Variable(torch.zeros(3))\n"
        "assert type(v) is glassgrad.Tensor and F.relu(v).shape == (3,)\n"
        "assert [m for m in sys.modules if m.endswith('._tensor')] == ['glassgrad._tensor']\n"
        "assert F.__spec__.name == 'glassgrad.nn.functional'\n"
        "try:\n"
        "    import glassgrad.torch.no_such_module\n"
        "except ModuleNotFoundError:\n"
        "    pass\n"
        "else:\n"
        "    raise AssertionError('imported a module that does not exist')\n"
        "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
