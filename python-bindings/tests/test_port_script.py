"""tools/port_script.py on small inputs written here: every import rule, indentation, trailing
spaces, the lines it must leave alone, extra changes, a file, a tree and the command line."""
import os
import subprocess
import sys

import pytest

from script_sources import ROOT, port_script

TOOL = os.path.join(ROOT, "tools", "port_script.py")


@pytest.mark.parametrize("line, want", [
    ("import torch", "import glassgrad.torch as torch"),
    ("import torch  ", "import glassgrad.torch as torch"),  # a trailing space goes with the rewrite
    ("import torchvision", "import glassgrad.vision as torchvision"),
    # rasbt's machine-learning-book writes `import torchvision ` (a trailing space)
    ("import torchvision ", "import glassgrad.vision as torchvision"),
    ("import torch # <1>", "import glassgrad.torch as torch # <1>"),  # a book's numbered line
    ("import torch  # tensors", "import glassgrad.torch as torch  # tensors"),
    ("import torchvision  # images", "import glassgrad.vision as torchvision  # images"),
    ("import torchvision.transforms as T", "import glassgrad.vision.transforms as T"),
    ("import torchvision.utils as vutils", "import glassgrad.vision.utils as vutils"),
    ("import torch.nn as nn", "import glassgrad.nn as nn"),
    ("import torch.nn.functional as F", "import glassgrad.nn.functional as F"),
    ("import torch.multiprocessing as mp", "import glassgrad.multiprocessing as mp"),
    # with no alias, `import torch.optim` binds torch (`import torchvision.models`, torchvision)
    ("import torch.optim", "import glassgrad.optim, glassgrad.torch as torch"),
    ("import torch.utils.data  # loaders", "import glassgrad.utils.data, glassgrad.torch as torch  # loaders"),
    ("import torchvision.models", "import glassgrad.vision.models, glassgrad.vision as torchvision"),
    ("from torchvision import datasets, transforms", "from glassgrad.vision import datasets, transforms"),
    ("from torchvision.datasets import MNIST", "from glassgrad.vision.datasets import MNIST"),
    ("from torch import nn", "from glassgrad import nn"),
    ("from torch.nn import functional as F", "from glassgrad.nn import functional as F"),
    ("from torch.utils.data import DataLoader, Dataset", "from glassgrad.utils.data import DataLoader, Dataset"),
    ("from torch.optim.lr_scheduler import StepLR", "from glassgrad.optim.lr_scheduler import StepLR"),
    ("from torch.utils.data import (", "from glassgrad.utils.data import ("),
    # several spaces where Python allows them (a notebook's `import  torch`): one is written
    ("import  torch", "import glassgrad.torch as torch"),
    # an alias keeps its name
    ("import torch as t", "import glassgrad.torch as t"),
    ("import torch as T  # short", "import glassgrad.torch as T  # short"),
    ("import torchvision as tv", "import glassgrad.vision as tv"),
    ("import  torchvision", "import glassgrad.vision as torchvision"),
    ("import   torch.nn as nn", "import glassgrad.nn as nn"),
    ("from  torch  import  nn", "from glassgrad import nn"),
    ("from  torchvision.datasets  import MNIST", "from glassgrad.vision.datasets import MNIST"),
    # tensorboardX's SummaryWriter refuses glassgrad's tensors: glassgrad.utils.tensorboard's is taken
    ("from tensorboardX import SummaryWriter", "from glassgrad.utils.tensorboard import SummaryWriter"),
    ("import tensorboardX", "import glassgrad.utils.tensorboard as tensorboardX"),
    ("import tensorboardX as tbx  # logs", "import glassgrad.utils.tensorboard as tbx  # logs"),
    # einops.layers.torch's layers are PyTorch modules: glassgrad.einops_layers' are glassgrad's
    ("from einops.layers.torch import Rearrange", "from glassgrad.einops_layers import Rearrange"),
    ("from einops.layers.torch import Rearrange, Reduce", "from glassgrad.einops_layers import Rearrange, Reduce"),
    ("from einops.layers.torch import EinMix as Mix", "from glassgrad.einops_layers import EinMix as Mix"),
    ("import einops.layers.torch as EL", "import glassgrad.einops_layers as EL"),
])
def test_each_rule_rewrites_its_import(line, want):
    assert port_script.port_line(line) == want
    # indentation (an import inside a function or an if) is kept, spaces or tabs
    for indent in ("    ", "        ", "\t"):
        assert port_script.port_line(indent + line) == indent + want


@pytest.mark.parametrize("line", [
    "",
    "x = torch.zeros(3)",
    "# import torch",
    "import numpy as np",
    "import torchaudio",
    "import torchtext.data as data",
    "from torchaudio import transforms",
    "import torchx  # not torch",
    "import  torchx",
    "from  torchaudio  import transforms",
    "print('import torch')",
    "s = 'from torch import nn'",
    "import os, sys",  # several modules, none of them torch's
    "from tensorboardX.summary import hparams",  # a tensorboardX module glassgrad has no copy of
    "import tensorboardXtra",
    # einops' functions take glassgrad tensors as they are; its other frameworks' layers stay theirs
    "from einops import rearrange, repeat",
    "from einops.layers.flax import Rearrange",
    "import einops",
])
def test_other_lines_are_left_alone(line):
    assert port_script.port_line(line) == line


@pytest.mark.parametrize("line, want", [
    ("import torch, torch.nn as nn", "import glassgrad.torch as torch, glassgrad.nn as nn"),
    ("import os, torch", "import os, glassgrad.torch as torch"),
    ("import torch as T, os", "import glassgrad.torch as T, os"),  # an alias keeps its name here too
    ("import numpy as np, torch  # arrays", "import numpy as np, glassgrad.torch as torch  # arrays"),
    # the single-module rule would port the first name only
    ("import torch.nn as nn, torch.optim as optim", "import glassgrad.nn as nn, glassgrad.optim as optim"),
    ("import torch,torchvision", "import glassgrad.torch as torch, glassgrad.vision as torchvision"),
    ("import torch, tensorboardX", "import glassgrad.torch as torch, glassgrad.utils.tensorboard as tensorboardX"),
])
def test_a_line_importing_several_modules_ports_each(line, want):
    assert port_script.port_line(line) == want
    assert port_script.port_line("    " + line) == "    " + want


def test_trailing_spaces_stay_on_other_rewritten_lines_and_on_untouched_ones():
    assert port_script.port_line("from torch import nn  ") == "from glassgrad import nn  "
    assert port_script.port_line("x = 1   ") == "x = 1   "
    assert (port_script.port_line("from torchvision.transforms import ToTensor  # note")
            == "from glassgrad.vision.transforms import ToTensor  # note")


def test_port_text_reports_changed_lines_and_applies_extra_changes():
    text = "import torch\nimport torch.nn as nn\n\nEPOCHS = 200\nimport extra\nprint(EPOCHS)\n"
    out, changed = port_script.port_text(text, {"EPOCHS = 200": "EPOCHS = 1", "import extra": None})
    assert out == "import glassgrad.torch as torch\nimport glassgrad.nn as nn\n\nEPOCHS = 1\nprint(EPOCHS)\n"
    assert changed == [(1, "import torch", "import glassgrad.torch as torch"),
                       (2, "import torch.nn as nn", "import glassgrad.nn as nn"),
                       (4, "EPOCHS = 200", "EPOCHS = 1"), (5, "import extra", None)]
    # the line count and everything else are kept exactly, with no changes
    same, none = port_script.port_text("a = 1\r\nb = 2\n\n")
    assert same == "a = 1\r\nb = 2\n\n" and none == []


def test_a_change_naming_a_line_the_script_lacks_is_an_error():
    with pytest.raises(ValueError, match=r"port_text: the script has no line 'EPOCHS = 3' to change; fix: name"):
        port_script.port_text("EPOCHS = 2\n", {"EPOCHS = 3": "EPOCHS = 1"})


def test_a_tree_is_copied_with_its_python_files_ported(tmp_path):
    src = tmp_path / "repo"
    (src / "models").mkdir(parents=True)
    (src / ".git").mkdir()
    (src / "main.py").write_text("import torch\nfrom models import Net\n")
    (src / "models" / "__init__.py").write_text("from .net import Net\n")
    (src / "models" / "net.py").write_text("from torch import nn\n\nclass Net(nn.Module):\n    pass\n")
    (src / "README.md").write_text("import torch\n")  # not Python: copied as it is
    (src / ".git" / "HEAD").write_text("ref\n")
    report = port_script.port_tree(str(src), str(tmp_path / "out"))
    out = tmp_path / "out"
    assert (out / "main.py").read_text() == "import glassgrad.torch as torch\nfrom models import Net\n"
    assert (out / "models" / "net.py").read_text() == "from glassgrad import nn\n\nclass Net(nn.Module):\n    pass\n"
    assert (out / "README.md").read_text() == "import torch\n" and not (out / ".git").exists()
    assert report == {"main.py": [(1, "import torch", "import glassgrad.torch as torch")],
                      os.path.join("models", "__init__.py"): [],
                      os.path.join("models", "net.py"): [(1, "from torch import nn", "from glassgrad import nn")]}


def test_the_command_line_ports_a_file_and_says_what_changed(tmp_path):
    (tmp_path / "train.py").write_text("import torch\nimport torch.optim as optim\nprint(1)\n")
    done = subprocess.run([sys.executable, TOOL, str(tmp_path / "train.py"), str(tmp_path / "out" / "train.py")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ("train.py:1: import torch -> import glassgrad.torch as torch\n"
                           "train.py:2: import torch.optim as optim -> import glassgrad.optim as optim\n")
    assert (tmp_path / "out" / "train.py").read_text() == (
        "import glassgrad.torch as torch\nimport glassgrad.optim as optim\nprint(1)\n")
    missing = subprocess.run([sys.executable, TOOL, str(tmp_path / "nothing"), str(tmp_path / "x")],
                             capture_output=True, text=True)
    assert missing.returncode == 2 and "is neither a file nor a folder; fix:" in missing.stderr
    usage = subprocess.run([sys.executable, TOOL], capture_output=True, text=True)
    assert usage.returncode == 2 and "port_script.py SRC DST" in usage.stderr
