"""rasbt/LLMs-from-scratch's main chapter code for chapters 2-5 (tokenizing and a sliding-window
data loader, attention (causal, multi-head), GPTModel with generate_text_simple, pretraining with
temperature and top-k sampling, saving and loading model and optimizer state), ported on the fly
with their imports changed only from $GLASSGRAD_SCRIPT_SOURCES/LLMs-from-scratch (script_sources.py;
without it these tests skip); notebooks run cell by cell (notebook_cells.py).

The chapters tokenize with tiktoken's "gpt2" encoding, which tiktoken downloads on first use: these
runs put tiktoken_stand_in.py beside them as tiktoken.py (a word-level encoding with tiktoken's
interface and GPT-2's vocabulary size), so the token ids, not glassgrad, differ from the book's.
Cells that look up installed versions (importlib.metadata.version("tiktoken")) raise
PackageNotFoundError where a package is not installed, and are left out of the comparison; the
other cells raise where PyTorch 2.14's run of the original raises."""
import os
import re
import shutil
import subprocess
import sys

import pytest

from notebook_cells import IMPORT, assert_raised, run_cells
from script_sources import checkout, needs, port_script
from test_ported_scripts import _env

REPO = "LLMs-from-scratch"
HERE = os.path.dirname(os.path.abspath(__file__))
LEFT_OUT = ("tensorflow",)  # ch05's OpenAI weights loader: not glassgrad's


def _chapter(n):
    return os.path.join(checkout(REPO) or "", f"ch0{n}", "01_main-chapter-code")


def _setup(folder, n):
    """The chapter's .py files ported into folder, its texts, the stand-in tokenizer and the
    short story (ch02's, which ch05 downloads)."""
    for name in os.listdir(_chapter(n)):
        if name.endswith(".txt"):
            shutil.copy(os.path.join(_chapter(n), name), folder / name)
        if name.endswith(".py"):
            changed = port_script.port_file(os.path.join(_chapter(n), name), str(folder / name))
            assert all(IMPORT.match(old) for _, old, _ in changed), changed
    shutil.copy(os.path.join(HERE, "tiktoken_stand_in.py"), folder / "tiktoken.py")
    shutil.copy(os.path.join(_chapter(2), "the-verdict.txt"), folder / "the-verdict.txt")


def _run(folder, n, notebook, raises=None, timeout=900):
    pytest.importorskip("matplotlib")  # the chapters plot (GELU, temperatures, losses)
    _setup(folder, n)
    raised, out, err = run_cells(str(folder), os.path.join(_chapter(n), notebook), hide=LEFT_OUT, timeout=timeout)
    raised = {k: v for k, v in raised.items() if not v.startswith("PackageNotFoundError")}
    raises = raises or {}
    assert_raised(raised, raises, out, err)
    return out


def _ok(folder, *args, timeout=900):
    proc = subprocess.run([sys.executable, *args], cwd=folder, env=_env(MPLBACKEND="Agg"), capture_output=True,
                          text=True, timeout=timeout)
    assert proc.returncode == 0, f"{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


@needs(REPO)
def test_ch02_tokenizers_and_sliding_window_loader(tmp_path):
    # cell 16: SimpleTokenizerV1 on a word outside its vocabulary, the KeyError the chapter shows
    out = _run(tmp_path, 2, "ch02.ipynb", {16: "KeyError: 'Hello'"})
    assert "glassgrad.Size([8, 4, 256])" in out  # token plus absolute position embeddings


@needs(REPO)
def test_ch02_dataloader_summary(tmp_path):
    assert "glassgrad.Size([8, 4, 256])" in _run(tmp_path, 2, "dataloader.ipynb")


@needs(REPO)
@pytest.mark.parametrize("notebook, shows", [
    ("ch03.ipynb", "context_vecs.shape: glassgrad.Size([2, 6, 4])"),  # two causal heads stacked
    ("multihead-attention.ipynb", "context_vecs.shape: glassgrad.Size([8, 4, 256])"),
])
def test_ch03_attention_mechanisms(tmp_path, notebook, shows):
    out = _run(tmp_path, 3, notebook)
    assert shows in out, out[-2000:]


@needs(REPO)
def test_ch04_gpt_model_notebook(tmp_path):
    out = _run(tmp_path, 4, "ch04.ipynb")
    assert "Total number of parameters: 163,009,536" in out, out[-3000:]


@needs(REPO)
def test_ch04_gpt_script_generates(tmp_path):
    _setup(tmp_path, 4)
    out = _ok(tmp_path, "gpt.py")
    assert "encoded_tensor.shape: glassgrad.Size([1, 4])" in out and "Output length: 14" in out, out


# ch05's gpt_train.main with the chapter's own test configuration (ch05/tests.py: context 12,
# width 32, 2 layers, 1 epoch); its __main__ trains the 124M model for 10 epochs
TRAIN = """import glassgrad.torch as torch
from gpt_train import main
config = {"vocab_size": 50257, "context_length": 12, "emb_dim": 32, "n_heads": 4, "n_layers": 2, "drop_rate": 0.1,
          "qkv_bias": False}
settings = {"learning_rate": 5e-4, "num_epochs": 1, "batch_size": 2, "weight_decay": 0.1}
train_losses, val_losses, tokens_seen, model = main(config, settings)
print("losses", len(train_losses), train_losses[0], train_losses[-1])
torch.save(model.state_dict(), "model.pth")
"""


@needs(REPO)
def test_ch05_gpt_train_main(tmp_path):
    pytest.importorskip("requests")  # gpt_train.py imports it to download the story (here already)
    pytest.importorskip("matplotlib")
    _setup(tmp_path, 5)
    (tmp_path / "train.py").write_text(TRAIN, encoding="utf-8")
    out = _ok(tmp_path, "train.py")
    n, first, last = re.search(r"losses (\d+) ([\d.]+) ([\d.]+)", out).groups()
    assert int(n) > 10 and float(last) < float(first), out[-2000:]
    assert "Every effort moves you" in out
