"""Models written from scratch, ported on the fly with their imports changed only from
$GLASSGRAD_SCRIPT_SOURCES (script_sources.py; without a checkout its tests skip):
johnma2006/mamba-minimal (Mamba's selective scan with einops), explainingai-code/DDPM-Pytorch (a
DDPM UNet trained and sampled on MNIST-style PNG folders), karpathy/micrograd (its tests compare
micrograd's gradients with the framework's) and hkproj/pytorch-llama (LLaMA 2 with rotary
embeddings held as complex numbers and a KV cache).

Nothing downloads: a stand-in for the transformers package gives mamba-minimal's demo a
character tokenizer and the weights the test writes; a stand-in SentencePieceProcessor does as
much for pytorch-llama. Each run also ran under PyTorch 2.14.1 (a driver outside the repository),
printing the same lines; losses and samples differ with the frameworks' random streams."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from notebook_cells import ported_cells
from script_sources import needs, port_script, source
from test_ported_scripts import _env

MAMBA = "mamba-minimal"
DDPM = "DDPM-Pytorch"
MICROGRAD = "micrograd"
LLAMA = "pytorch-llama"


def _python(folder, *args, timeout=900):
    proc = subprocess.run([sys.executable, *args], cwd=folder, env=_env(), capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, f"{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def _port_tree(repo, folder):
    report = port_script.port_tree(source(repo, "."), str(folder))
    changed = [old for lines in report.values() for _, old, _ in lines]
    assert changed and all(old.startswith(("import torch", "from torch")) for old in changed), changed
    return folder


MAMBA_TRAIN = """
import glassgrad.torch as torch
import glassgrad.nn.functional as F
from model import Mamba, ModelArgs
torch.manual_seed(0)
args = ModelArgs(d_model=16, n_layer=2, vocab_size=50)
model = Mamba(args)
print(args.vocab_size, args.dt_rank, sum(p.numel() for p in model.parameters()))
assert model.lm_head.weight is model.embedding.weight
ids = torch.randint(0, 50, (2, 7))
losses = []
opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
for step in range(5):
    logits = model(ids[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))
    opt.zero_grad(); loss.backward(); opt.step()
    losses.append(loss.item())
print(tuple(logits.shape), logits.dtype, losses[-1] < losses[0])
"""

TRANSFORMERS = {
    "__init__.py": """
import sys
class _Encoded:
    def __init__(self, ids):
        self.input_ids = ids
class _CharTokenizer:
    def __call__(self, text, return_tensors='pt'):
        torch = sys.modules['glassgrad.torch']
        return _Encoded(torch.tensor([[ord(c) % 50 for c in text]]))
    def decode(self, ids):
        return ''.join(chr(97 + i % 26) for i in ids)
class AutoTokenizer:
    @staticmethod
    def from_pretrained(name):
        return _CharTokenizer()
""",
    "utils/__init__.py": "WEIGHTS_NAME = 'pytorch_model.bin'\nCONFIG_NAME = 'config.json'\n",
    "utils/hub.py": """
import os
def cached_file(name, filename, _raise_exceptions_for_missing_entries=True):
    return os.path.join('hub', name, filename)
""",
}


def _mamba_folder(tmp_path):
    pytest.importorskip("einops")
    folder = tmp_path / "run"
    folder.mkdir()
    changed = port_script.port_file(source(MAMBA, "model.py"), str(folder / "model.py"))
    assert [old for _, old, _ in changed] == ["import torch", "import torch.nn as nn", "import torch.nn.functional as F"]
    return folder


@needs(MAMBA)
def test_mamba_trains_with_its_einops_selective_scan(tmp_path):
    folder = _mamba_folder(tmp_path)
    (folder / "train.py").write_text(MAMBA_TRAIN)
    # 50 padded to 56; dt_rank ceil(16 / 16); the lm_head tied to the embedding, counted once
    assert _python(folder, "train.py").split("\n")[:2] == ["56 1 7664", "(2, 6, 56) glassgrad.float32 True"]


@needs(MAMBA)
def test_mamba_demo_loads_pretrained_weights_and_generates(tmp_path):
    import glassgrad as gg
    folder = _mamba_folder(tmp_path)
    for rel, text in TRANSFORMERS.items():
        os.makedirs(folder / "transformers" / os.path.dirname(rel), exist_ok=True)
        (folder / "transformers" / rel).write_text(text)
    hub = folder / "hub" / "state-spaces" / "mamba-370m"
    hub.mkdir(parents=True)
    (hub / "config.json").write_text(json.dumps({"d_model": 16, "n_layer": 2, "vocab_size": 50}))
    sys.path.insert(0, str(folder))
    try:
        from model import Mamba, ModelArgs
        gg.manual_seed(0)
        model = Mamba(ModelArgs(d_model=16, n_layer=2, vocab_size=50))
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop("model", None)
    # the checkpoint's keys as Hugging Face stores them, under "backbone."
    gg.save({"backbone." + k: v for k, v in model.state_dict().items()}, str(hub / "pytorch_model.bin"))
    cells = ported_cells(source(MAMBA, "demo.ipynb"))
    (folder / "demo.py").write_text("\n\n".join(cells))
    out = _python(folder, "demo.py").split("\n")
    prompts = ["Mamba is the", "John: Hi!\nSally:", "The meaning of life is ", "def reverse_string("]
    completions = [line for line in out if line]
    assert len(completions) == 4
    for prompt, completion in zip(prompts, completions):  # the prompt's tokens, then 50 sampled
        assert len(completion) == len(prompt) + 50
        assert completion.startswith("".join(chr(97 + ord(c) % 50 % 26) for c in prompt))


DDPM_SMALL = [("num_timesteps : 1000", "num_timesteps : 3"), ("[32, 64, 128, 256]", "[8, 16, 16, 32]"),
              ("[256, 256, 128]", "[32, 32, 16]"), ("time_emb_dim : 128", "time_emb_dim : 16"),
              ("batch_size: 64", "batch_size: 4"), ("num_epochs: 40", "num_epochs: 2"),
              ("num_samples : 100", "num_samples : 4"), ("num_grid_rows : 10", "num_grid_rows : 2"),
              ("num_heads : 4", "num_heads : 2")]


@needs(DDPM)
def test_ddpm_trains_resumes_and_samples_a_grid_per_step(tmp_path):
    pil = pytest.importorskip("PIL.Image")
    pytest.importorskip("yaml")
    pytest.importorskip("tqdm")
    folder = _port_tree(DDPM, tmp_path / "run")
    rng = np.random.default_rng(0)
    for digit in range(3):
        os.makedirs(folder / "data" / "train" / "images" / str(digit))
        for k in range(4):
            pil.fromarray(rng.integers(0, 256, (28, 28), dtype=np.uint8)).save(
                folder / "data" / "train" / "images" / str(digit) / f"{k}.png")
    config = (folder / "config" / "default.yaml").read_text()
    for old, new in DDPM_SMALL:
        assert old in config
        config = config.replace(old, new)
    (folder / "config" / "small.yaml").write_text(config)
    out = _python(folder, "-m", "tools.train_ddpm", "--config", "config/small.yaml")
    assert "Found 12 images for split train" in out and "Finished epoch:2 | Loss :" in out
    assert "Done Training ..." in out and "Loading checkpoint" not in out
    assert "Loading checkpoint as found one" in _python(folder, "-m", "tools.train_ddpm", "--config", "config/small.yaml")
    _python(folder, "-m", "tools.sample_ddpm", "--config", "config/small.yaml")
    samples = sorted(os.listdir(folder / "default" / "samples"))
    assert samples == ["x0_0.png", "x0_1.png", "x0_2.png"]
    with pil.open(folder / "default" / "samples" / "x0_0.png") as image:  # 2 x 2 grid, padding 2
        assert image.size == (62, 62) and image.mode == "RGB"


@needs(MICROGRAD)
def test_micrograd_tests_agree_with_the_framework(tmp_path):
    folder = tmp_path / "run"
    report = port_script.port_tree(source(MICROGRAD, "."), str(folder))
    assert [old for lines in report.values() for _, old, _ in lines] == ["import torch"]
    out = _python(folder, "-m", "pytest", "-p", "no:cacheprovider", "-q", "test")
    assert "2 passed" in out


LLAMA_BUILD = """
from model import ModelArgs, Transformer
Transformer(ModelArgs(dim=32, n_layers=2, n_heads=4, n_kv_heads=2, multiple_of=16, vocab_size=61,
                      max_seq_len=16, max_batch_size=2, device='cpu'))
"""


@needs(LLAMA)
def test_llama_stops_at_its_complex_rotary_embeddings(tmp_path):
    # precompute_theta_pos_frequencies holds the rotations as complex numbers (torch.polar,
    # view_as_complex): glassgrad has no complex dtypes (docs/porting.md), and says so
    folder = _port_tree(LLAMA, tmp_path / "run")
    (folder / "build.py").write_text(LLAMA_BUILD)
    proc = subprocess.run([sys.executable, "build.py"], cwd=folder, env=_env(), capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 1 and "torch.polar(" in proc.stderr
    assert "has no attribute 'polar': glassgrad has no complex dtypes" in proc.stderr, proc.stderr[-3000:]

