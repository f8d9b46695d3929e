"""karpathy/llm.c's train_gpt2.py (the PyTorch reference of the C/CUDA trainer: GPT-2 with a
manual causal attention or --flash scaled_dot_product_attention, AdamW groups, gradient
accumulation, clip_grad_norm_, validation, top-k generation, and the bridge files the C code
reads: the model in float32 and in bfloat16 (written through `t.view(torch.int16)`), a debug
state with logits, loss and every gradient, and the tokenizer), ported on the fly from
$GLASSGRAD_SCRIPT_SOURCES/llm.c (script_sources.py; without it these tests skip) and run on
token files written in its dev/data format (a 256-int32 header: magic 20240520, version 1, the
token count; then uint16 tokens).

Changed beyond the imports (CHANGED): the "d12" configuration (the smallest from-scratch model:
12 layers, 768 features) becomes 2 layers, 32 features, context 64; the vocabulary stays GPT-2's
50257 (pad_vocab asserts it). The tokenizer is tiktoken's GPT-2 encoding, downloaded on first
use: a stand-in module in the run folder encodes bytes (its token 50256 is the end of text).
The pretrained models (--model gpt2, from_pretrained) need transformers and a download, and DDP
with ZeroRedundancyOptimizer (--zero_stage 1) needs CUDA: not run; nor is train_llama3.py, which
starts from Meta's or Hugging Face's LLaMA 3.1 weights and tokenizer (downloads).

Under PyTorch 2.14.1 the same run from the same initial weights (llm.c draws them from its own
torch.Generator) writes byte-identical model files and tokenizer, a debug state equal to
rounding, and prints the same losses (test_files_and_losses_match_pytorchs_from_the_same_weights,
where torch is installed)."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from script_sources import needs, port_script, source
from test_ported_scripts import _env
from tiny_gpt2_weights import tiny_gpt2_weights

REPO = "llm.c"
CHANGED = {
    '            "d12": GPTConfig(block_size=1024, vocab_size=50257, n_layer=12, n_head=12, n_embd=768),':
        ('            "d12": GPTConfig(block_size=64, vocab_size=50257, n_layer=2, n_head=2, n_embd=32),',
         "a tiny model"),
}
# the comparison with PyTorch starts both runs from the weights in init.npz (named_parameters order)
SAME_WEIGHTS = ("    model.to(device)", "    model.to(device); [p.data.copy_(torch.tensor(w)) for p, w in "
                                        "zip(model.parameters(), np.load('init.npz').values())]")
ARGS = ["--model", "d12", "--input_bin", "train.bin", "--input_val_bin", "val.bin", "--val_loss_every", "2",
        "--sample_every", "2", "--num_iterations", "4", "--batch_size", "2", "--sequence_length", "32",
        "--total_batch_size", "128", "--device", "cpu", "--output_dir", "out", "--val_max_steps", "4",
        "--overfit_single_batch", "0", "--learning_rate", "1e-3"]
TIKTOKEN = '''class _Bytes:
    eot_token = 50256
    max_token_value = 50256

    def encode(self, text):
        return list(text.encode("utf-8"))

    def decode_bytes(self, tokens):
        return bytes(t % 256 for t in tokens)

    def decode(self, tokens):
        return self.decode_bytes(tokens).decode("utf-8", errors="replace")


def get_encoding(name):
    return _Bytes()
'''
# float32 values in gpt2_d12.bin: the parameters, the embedding padded from 50257 to 50304 rows
PARAMETERS = 1_634_848 + 896 + (50304 - 50257) * 32


def _write_tokens(path, data):
    """dev/data's format: a 256-int32 header (magic, version, token count), then uint16 tokens."""
    tokens = np.frombuffer(data, dtype=np.uint8).astype(np.uint16)
    header = np.zeros(256, dtype=np.int32)
    header[:3] = [20240520, 1, len(tokens)]
    with open(path, "wb") as f:
        f.write(header.tobytes() + tokens.tobytes())


def _prepare(folder, ported, extra=None):
    changes = {old: new for old, (new, _) in CHANGED.items()}
    changes.update(extra or {})
    os.makedirs(folder)
    with open(source(REPO, "train_gpt2.py"), encoding="utf-8") as f:
        original = f.read()
    for old in changes:
        assert original.split("\n").count(old) == 1, f"train_gpt2.py has no single line {old!r}"
    text = port_script.port_text(original, changes)[0] if ported else "\n".join(
        changes.get(line, line) for line in original.split("\n"))
    for name, body in (("train_gpt2.py", text), ("tiktoken.py", TIKTOKEN)):
        with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
            f.write(body)
    corpus = b"the quick brown fox jumps over the lazy dog. " * 60
    _write_tokens(os.path.join(folder, "train.bin"), corpus[:2000])
    _write_tokens(os.path.join(folder, "val.bin"), corpus[:1200])


def _train(folder, env, *extra):
    proc = subprocess.run([sys.executable, "train_gpt2.py", *ARGS, *extra], cwd=folder, capture_output=True,
                          text=True, timeout=900, env=env)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    return proc.stdout


def _numbers(stdout):
    return ([float(v) for v in re.findall(r"train loss ([\d.]+)", stdout)],
            [float(v) for v in re.findall(r"\| norm ([\d.]+)", stdout)],
            [float(v) for v in re.findall(r"val loss ([\d.]+)", stdout)])


@needs(REPO)
@pytest.mark.parametrize("flash", ["0", "1"])
def test_train_gpt2_writes_the_bridge_files_trains_and_samples(tmp_path, flash):
    folder = str(tmp_path / "run")
    _prepare(folder, ported=True)
    stdout = _train(folder, _env(), "--flash", flash)
    train, norms, val = _numbers(stdout)
    assert len(train) == len(norms) == 4 and len(val) == 3 and train[-1] < train[0] and val[-1] < val[0], stdout
    assert stdout.count("---------------") == 6 and "padded vocab size from 50257 to 50304" in stdout
    sizes = {name: os.path.getsize(os.path.join(folder, name)) for name in
             ("gpt2_d12.bin", "gpt2_d12_bf16.bin", "gpt2_d12_debug_state.bin", "gpt2_tokenizer.bin")}
    assert sizes["gpt2_d12.bin"] == 1024 + 4 * PARAMETERS and sizes["gpt2_d12_bf16.bin"] == 1024 + 2 * PARAMETERS
    # header, x and y (B*T int32 each), logits (B*T*50257), loss, then the padded gradients
    assert sizes["gpt2_d12_debug_state.bin"] == 1024 + 4 * (2 * 64 + 64 * 50257 + 1 + PARAMETERS)
    assert sizes["gpt2_tokenizer.bin"] == 1024 + 50257 * 2
    header = np.fromfile(os.path.join(folder, "gpt2_d12.bin"), dtype=np.int32, count=8)
    assert header.tolist() == [20240326, 3, 64, 50257, 2, 2, 32, 50304]
    f32 = np.fromfile(os.path.join(folder, "gpt2_d12.bin"), dtype=np.float32, offset=1024)
    bf16 = np.fromfile(os.path.join(folder, "gpt2_d12_bf16.bin"), dtype=np.uint16, offset=1024)
    widened = (bf16.astype(np.uint32) << 16).view(np.float32)
    np.testing.assert_allclose(widened, f32, rtol=2 ** -8, atol=1e-30)  # the bfloat16 rounding of each weight
    log = open(os.path.join(folder, "out", "main.log")).read().splitlines()
    assert [line.split()[1].split(":")[0] for line in log] == ["tel", "trl", "trl", "tel", "trl", "trl", "tel"]


@needs(REPO)
def test_files_and_losses_match_pytorchs_from_the_same_weights(tmp_path):
    pytest.importorskip("torch")
    out = {}
    for ported in (True, False):
        folder = str(tmp_path / ("ours" if ported else "theirs"))
        _prepare(folder, ported, dict([SAME_WEIGHTS]))
        np.savez(os.path.join(folder, "init.npz"), **tiny_gpt2_weights(50257))
        stdout = _train(folder, _env() if ported else dict(os.environ, CUDA_VISIBLE_DEVICES=""))
        out[ported] = (folder, _numbers(stdout))
    (ours, our_numbers), (theirs, their_numbers) = out[True], out[False]
    for name in ("gpt2_d12.bin", "gpt2_d12_bf16.bin", "gpt2_tokenizer.bin"):
        with open(os.path.join(ours, name), "rb") as a, open(os.path.join(theirs, name), "rb") as b:
            assert a.read() == b.read(), name
    state = [np.fromfile(os.path.join(f, "gpt2_d12_debug_state.bin"), dtype=np.float32, offset=1024 + 4 * 128)
             for f in (ours, theirs)]
    np.testing.assert_allclose(state[0], state[1], rtol=1e-3, atol=2e-6)
    for a, b in zip(our_numbers, their_numbers):
        assert len(a) == len(b) > 0
        np.testing.assert_allclose(a, b, rtol=1e-3)  # float32 sums in another order, over 4 AdamW steps
