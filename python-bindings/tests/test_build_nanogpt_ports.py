"""karpathy/build-nanogpt's train_gpt2.py (the GPT-2 training script of the video: AdamW with
decayed and undecayed groups, gradient accumulation, clip_grad_norm_, torch.autocast(bfloat16) on
the CPU, a validation loss, the HellaSwag evaluation, top-k sampling with a seeded Generator and a
checkpoint), ported on the fly from $GLASSGRAD_SCRIPT_SOURCES/build-nanogpt (script_sources.py;
without it these tests skip) and run on token shards written as its fineweb.py writes them
(uint16 .npy files named edufineweb_{train,val}_NNNNNN.npy under edu_fineweb10B/).

Changed beyond the imports (CHANGED): the model's size (2 layers, 32 features, 320 token ids,
context 64), the batch (B=2, T=32, 128 tokens a step: 2 accumulation steps) and the schedule (4
steps, 2 warmup steps). The script imports two modules that need the network, which stand-ins in
the run folder replace: tiktoken (its GPT-2 encoding is downloaded; the stand-in encodes bytes)
and the repository's hellaswag.py (downloads the HellaSwag validation set and imports
transformers; the stand-in yields four examples of random tokens).

Under PyTorch 2.14.1 the same run, from the same initial weights, prints the same losses to
within bfloat16 rounding (test_losses_match_pytorchs_from_the_same_weights, where torch is
installed)."""
import os
import re
import subprocess
import sys
import zipfile

import numpy as np
import pytest

from script_sources import needs, port_script, source
from test_ported_scripts import _env
from tiny_gpt2_weights import tiny_gpt2_weights

REPO = "build-nanogpt"
# original line -> (replacement, why)
CHANGED = {
    "total_batch_size = 524288 # 2**19, ~0.5M, in number of tokens": ("total_batch_size = 128", "tokens a step"),
    "B = 64 # micro batch size": ("B = 2", "micro batch"),
    "T = 1024 # sequence length": ("T = 32", "sequence length"),
    "warmup_steps = 715": ("warmup_steps = 2", "schedule cut"),
    "max_steps = 19073 # 19,073 steps is ~1 epoch, if data is 10B tokens and batch size 0.5M tokens":
        ("max_steps = 4", "schedule cut"),
    "model = GPT(GPTConfig(vocab_size=50304))":
        ("model = GPT(GPTConfig(block_size=64, vocab_size=320, n_layer=2, n_head=2, n_embd=32))", "a tiny model"),
}
# the comparison with PyTorch starts both runs from the weights in init.npz (named_parameters order)
SAME_WEIGHTS = ("model.to(device)", "model.to(device); [p.data.copy_(torch.tensor(w)) for p, w in "
                                    "zip(model.parameters(), np.load('init.npz').values())]")

TIKTOKEN = '''class _Bytes:
    def encode(self, text):
        return list(text.encode("utf-8"))

    def decode(self, tokens):
        return bytes(t % 256 for t in tokens).decode("utf-8", errors="replace")


def get_encoding(name):
    return _Bytes()
'''
HELLASWAG = '''import numpy as np
import torch


def iterate_examples(split):
    for i in range(4):
        yield {"label": i % 4, "seed": i}


def render_example(example):
    tokens = torch.tensor(np.random.default_rng(example["seed"]).integers(0, 256, (4, 12)))
    mask = torch.zeros((4, 12), dtype=torch.long)
    mask[:, 6:] = 1
    return None, tokens, mask, example["label"]
'''


def _write_shards(folder):
    """fineweb.py's layout: uint16 token ids, one .npy file a shard, the split in the name."""
    os.makedirs(folder)
    text = b"the quick brown fox jumps over the lazy dog. " * 80
    for name, n in (("edufineweb_val_000000.npy", 3000), ("edufineweb_train_000001.npy", 2000),
                    ("edufineweb_train_000002.npy", 2000)):
        np.save(os.path.join(folder, name), np.frombuffer(text[:n], dtype=np.uint8).astype(np.uint16))


def _prepare(folder, ported, extra=None):
    changes = {old: new for old, (new, _) in CHANGED.items()}
    changes.update(extra or {})
    os.makedirs(folder)
    with open(source(REPO, "train_gpt2.py"), encoding="utf-8") as f:
        original = f.read()
    for old in changes:
        assert old in original.split("\n"), f"train_gpt2.py has no line {old!r}"
    text, _ = port_script.port_text(original, changes) if ported else (original, None)
    if not ported:
        for old, new in changes.items():
            text = text.replace("\n" + old + "\n", "\n" + new + "\n")
    stand_in = port_script.port_text(HELLASWAG)[0] if ported else HELLASWAG
    for name, body in (("train_gpt2.py", text), ("tiktoken.py", TIKTOKEN), ("hellaswag.py", stand_in)):
        with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
            f.write(body)
    _write_shards(os.path.join(folder, "edu_fineweb10B"))


def _train(folder, env):
    proc = subprocess.run([sys.executable, "train_gpt2.py"], cwd=folder, capture_output=True, text=True,
                          timeout=900, env=env)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    return proc.stdout


def _numbers(stdout):
    steps = [float(v) for v in re.findall(r"\| loss: ([\d.]+)", stdout)]
    norms = [float(v) for v in re.findall(r"\| norm: ([\d.]+)", stdout)]
    val = [float(v) for v in re.findall(r"validation loss: ([\d.]+)", stdout)]
    return steps, norms, val


@needs(REPO)
def test_train_gpt2_trains_evaluates_samples_and_checkpoints(tmp_path):
    folder = str(tmp_path / "run")
    _prepare(folder, ported=True)
    stdout = _train(folder, _env())
    steps, norms, val = _numbers(stdout)
    assert len(steps) == 4 and len(norms) == 4 and len(val) == 2, stdout
    assert steps[-1] < steps[0] and val[1] < val[0], stdout
    assert "=> calculated gradient accumulation steps: 2" in stdout
    assert "num decayed parameter tensors: 10, with 36,864 parameters" in stdout
    assert "num non-decayed parameter tensors: 18, with 896 parameters" in stdout
    assert stdout.count("HellaSwag accuracy: ") == 2 and "/4=" in stdout
    samples = re.findall(r"rank 0 sample \d: (.*)", stdout)
    assert len(samples) == 4 and all(s.startswith("Hello, I'm a language model,") for s in samples), stdout
    log = open(os.path.join(folder, "log", "log.txt")).read().split("\n")
    assert [line.split()[1] for line in log if line][:3] == ["val", "hella", "train"]
    # {'model': state_dict, 'config': GPTConfig (a dataclass of the script), ...}: glassgrad.load
    # constructs no script class (docs/porting.md, deliberate differences), so the file is read as
    # an archive here
    with zipfile.ZipFile(os.path.join(folder, "log", "model_00003.pt")) as archive:
        assert any(name.endswith("data.pkl") for name in archive.namelist())


@needs(REPO)
def test_losses_match_pytorchs_from_the_same_weights(tmp_path):
    pytest.importorskip("torch")
    runs = {}
    for ported in (True, False):
        folder = str(tmp_path / ("ours" if ported else "theirs"))
        _prepare(folder, ported, dict([SAME_WEIGHTS]))
        np.savez(os.path.join(folder, "init.npz"), **tiny_gpt2_weights(320))
        runs[ported] = _numbers(_train(folder, _env() if ported else dict(os.environ, CUDA_VISIBLE_DEVICES="")))
    for ours, theirs in zip(runs[True], runs[False]):
        assert len(ours) == len(theirs) > 0
        np.testing.assert_allclose(ours, theirs, rtol=2e-3)
