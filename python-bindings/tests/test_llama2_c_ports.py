"""karpathy/llama2.c's PyTorch half (model.py, train.py, sample.py, export.py, tinystories.py),
ported on the fly with its imports changed only from $GLASSGRAD_SCRIPT_SOURCES/llama2.c
(script_sources.py; without it these tests skip). No line of the repository is changed.

train.py runs as its README says, with its configurator's --key=value overrides making it small
(dim 32, two layers, grouped-query attention with 2 key/value heads for 4 heads, sequences of
32, two micro-steps of batches of 4) on two pretokenized shards written as tinystories.py's
`pretokenize` leaves them (uint16 token files under data/TinyStories_all_data): from scratch,
then resumed from its checkpoint with torch.compile, dropout and the float16 GradScaler;
sample.py then reads the checkpoint and the repository's Llama 2 tokenizer.model (needs
sentencepiece). export.py writes the llama2.c .bin files of versions 0, 1 (float32) and 2 (Q8_0
quantized) from that checkpoint, compared with what the repository's export.py writes from it
under PyTorch; the model's logits and greedy generation from the same weights are PyTorch's.
`tinystories.py download` and `train_vocab` download TinyStories and are not run."""
import os
import shutil
import struct
import subprocess
import sys

import numpy as np
import pytest

from script_sources import importing_from, needs, port_script, source
from test_ported_scripts import _env

REPO = "llama2.c"
SMALL = ["--device=cpu", "--dtype=float32", "--batch_size=4", "--max_seq_len=32", "--dim=32", "--n_layers=2",
         "--n_heads=4", "--n_kv_heads=2", "--multiple_of=16", "--eval_interval=2", "--eval_iters=2",
         "--gradient_accumulation_steps=2", "--warmup_iters=1"]


def _python(folder, *args, env=None):
    proc = subprocess.run([sys.executable, *args], cwd=folder, env=env or _env(), capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, f"{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """The ported tree, trained from scratch for 4 steps, then resumed to 6: (folder, outputs)."""
    pytest.importorskip("sentencepiece")
    folder = tmp_path_factory.mktemp("llama2c") / "run"
    report = port_script.port_tree(source(REPO, "."), str(folder))
    assert all(old.startswith(("import torch", "from torch")) for lines in report.values() for _, old, _ in lines)
    shards = folder / "data" / "TinyStories_all_data"
    shards.mkdir(parents=True)
    rng = np.random.default_rng(0)
    for i in range(2):  # shard 0 is the val split, the others train
        rng.integers(0, 32000, 3000, dtype=np.uint16).tofile(shards / f"data{i:02d}.bin")
    first = _python(folder, "train.py", *SMALL, "--compile=False", "--max_iters=4")
    resumed = _python(folder, "train.py", *SMALL, "--compile=True", "--max_iters=6", "--init_from=resume",
                      "--dropout=0.1", "--dtype=float16")
    return folder, first, resumed


def _losses(out, prefix):
    return [float(line.split(prefix)[1].split()[0].rstrip(",")) for line in out.splitlines() if prefix in line]


@needs(REPO)
def test_train_from_scratch_then_resume_with_compile(trained):
    folder, first, resumed = trained
    assert "tokens per iteration will be: 256" in first and "Initializing a new model from scratch" in first
    assert "num decayed parameter tensors: 15, with 1,048,576 parameters" in first
    assert "num non-decayed parameter tensors: 5, with 160 parameters" in first
    assert [line.split(" |")[0] for line in first.splitlines() if " | loss " in line] == ["0", "1", "2", "3", "4"]
    # a checkpoint and its model.bin at each evaluation after step 0 whose val loss is the best yet
    assert first.count("saving checkpoint to out") == first.count("wrote out/model.bin") >= 1
    val = _losses(first, "val loss ")
    assert len(val) == 3 and all(9.5 < v < 11 for v in val)  # about ln(32000) = 10.37 on random tokens
    assert "Resuming training from out" in resumed and "compiling the model" in resumed
    # the resumed run starts at the checkpoint's iteration: steps 4, 5, 6
    assert [line.split(" |")[0] for line in resumed.splitlines() if " | loss " in line] == ["4", "5", "6"]
    # train.py's model.bin is export version 0: 7 int32s, then the float32 embedding, two layers of
    # 12288 weights and 2 x 32 norm weights, the final norm and the rotary table's cos and sin
    weights = 32000 * 32 + 2 * 12288 + 2 * 2 * 32 + 32 + 2 * 32 * 4
    assert os.path.getsize(folder / "out" / "model.bin") == 7 * 4 + weights * 4


@needs(REPO)
def test_sample_reads_the_checkpoint_and_the_llama2_tokenizer(trained):
    folder, _, _ = trained
    out = _python(folder, "sample.py", "--checkpoint=out/ckpt.pt", "--device=cpu", "--max_new_tokens=12",
                  "--num_samples=2", "--top_k=50")
    samples = out.split("---------------\n")
    assert len(samples) == 3 and samples[2] == ""
    assert all(s.strip() for s in samples[:2])


def _pytorch_copy(tmp_path):
    """The repository's model.py and export.py, unported, in a folder of their own."""
    ref = tmp_path / "pytorch"
    ref.mkdir()
    for name in ("model.py", "export.py"):
        shutil.copy(source(REPO, name), ref / name)
    return ref


@needs(REPO)
@pytest.mark.parametrize("version", [0, 1, 2])
def test_export_writes_the_bins_pytorch_writes(trained, tmp_path, version):
    pytest.importorskip("torch")
    folder, _, _ = trained
    ckpt = str(folder / "out" / "ckpt.pt")
    ours, theirs = str(tmp_path / "ours.bin"), str(tmp_path / "theirs.bin")
    _python(folder, "export.py", ours, "--version", str(version), "--checkpoint", ckpt)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    _python(_pytorch_copy(tmp_path), "export.py", theirs, "--version", str(version), "--checkpoint", ckpt, env=env)
    with open(ours, "rb") as f:
        a = f.read()
    with open(theirs, "rb") as f:
        b = f.read()
    assert len(a) == len(b)
    if version:
        assert a == b
        return
    # version 0: a header of 7 int32 (dim, hidden, layers, heads, kv heads, vocab, seq len), then
    # float32s; the rotary table's cos and sin (after the final norm) may differ in the last bit
    # with the platform's cos/sin
    assert struct.unpack("7i", a[:28]) == struct.unpack("7i", b[:28]) == (32, 96, 2, 4, 2, 32000, 32)
    x, y = np.frombuffer(a[28:], np.float32), np.frombuffer(b[28:], np.float32)
    rope = 2 * 32 * 4
    assert np.array_equal(x[:-rope], y[:-rope])
    np.testing.assert_allclose(x[-rope:], y[-rope:], rtol=0, atol=1e-6)


@needs(REPO)
def test_logits_and_greedy_generation_are_pytorchs(trained, tmp_path):
    torch = pytest.importorskip("torch")
    import glassgrad.torch as gtorch
    folder, _, _ = trained
    ckpt = torch.load(str(folder / "out" / "ckpt.pt"), map_location="cpu", weights_only=False)
    ids = np.random.default_rng(1).integers(0, 32000, (2, 9))
    results = []
    for fw, where in ((torch, str(_pytorch_copy(tmp_path))), (gtorch, str(folder))):
        with importing_from(where, "model"):
            from model import ModelArgs, Transformer
            model = Transformer(ModelArgs(**ckpt["model_args"]))
        # the resumed run compiled the model, whose state_dict keys start with "_orig_mod." under
        # PyTorch too; sample.py strips the prefix
        state = {k.removeprefix("_orig_mod."): fw.from_numpy(v.numpy().copy()) for k, v in ckpt["model"].items()}
        model.load_state_dict(state)
        model.eval()
        with fw.no_grad():
            x = fw.from_numpy(ids)
            logits = model(x, x).numpy()  # with targets: logits at every position
            loss = model.last_loss.item()
            tokens = model.generate(x[:, :3], 6, temperature=0.0).numpy()
        results.append((logits, loss, tokens))
    (lt, st, tt), (lg, sg, tg) = results
    np.testing.assert_allclose(lg, lt, rtol=1e-4, atol=1e-5)
    assert abs(sg - st) < 1e-4 and np.array_equal(tg, tt)
