"""The examples in examples-and-tutorials/ run as users run them (python script.py --options, in a
fresh process), with small settings, and produce what they promise: CIFAR-10 training on tiny
files written in the real pickle format, style transfer PNGs with a falling style loss, an
attention model well above chance on scikit-learn's digits, and a resumed run with exactly the
losses of an uninterrupted one."""
import importlib.util
import os
import pickle
import re
import subprocess
import sys
import zlib

import numpy as np
import pytest

import glassgrad as gg

pytestmark = pytest.mark.slow  # end-to-end runs: `pytest -m 'not slow'` leaves them out

EXAMPLES = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "examples-and-tutorials"))


def example_env():
    """The environment for a child interpreter: the CPU, and the glassgrad this test imported
    (the installed package in CI, the working tree with PYTHONPATH in development)."""
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(gg.__file__)))
    path = os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH", "")) if p)
    return dict(os.environ, GLASSGRAD_DEVICE="cpu", PYTHONPATH=path)


def run_example(name, *args, cwd, timeout=300):
    """Runs examples-and-tutorials/<name> in a new interpreter on the CPU; returns its stdout."""
    env = example_env()
    proc = subprocess.run([sys.executable, os.path.join(EXAMPLES, name), *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{name} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def load_example_module(name):
    spec = importlib.util.spec_from_file_location(name[:-3], os.path.join(EXAMPLES, name))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# ---- CIFAR-10 -------------------------------------------------------------------------------
CLASSES = [b"airplane", b"automobile", b"bird", b"cat", b"deer", b"dog", b"frog", b"horse", b"ship", b"truck"]


def write_cifar10(root, per_batch, seed=0):
    """cifar-10-batches-py exactly as the python version stores it: pickled dicts (protocol 2, bytes
    keys) with b'data' uint8 [n, 3072] (R, G, B planes of 32x32), b'labels', b'batch_label',
    b'filenames'; batches.meta with b'label_names'. Each class gets its own mean color."""
    d = root / "cifar-10-batches-py"
    d.mkdir()
    rng = np.random.default_rng(seed)
    colors = rng.integers(40, 216, (10, 3))
    for name in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        labels = rng.integers(0, 10, per_batch)
        images = colors[labels][:, :, None, None] + rng.integers(-40, 40, (per_batch, 3, 32, 32))
        batch = {b"batch_label": name.encode(), b"labels": [int(v) for v in labels],
                 b"data": np.clip(images, 0, 255).astype(np.uint8).reshape(per_batch, 3072),
                 b"filenames": [f"{name}_{i}.png".encode() for i in range(per_batch)]}
        with open(d / name, "wb") as f:
            pickle.dump(batch, f, protocol=2)
    with open(d / "batches.meta", "wb") as f:
        pickle.dump({b"label_names": CLASSES, b"num_cases_per_batch": per_batch, b"num_vis": 3072}, f, protocol=2)
    return d


def test_train_cifar10_trains_resnet18_on_cifar_format_files_saves_and_resumes(tmp_path):
    write_cifar10(tmp_path, per_batch=32)
    ckpt = tmp_path / "cifar.ckpt"
    common = ["--data", tmp_path, "--limit", 96, "--test-limit", 32, "--width", 4, "--no-progress",
              "--checkpoint", ckpt]
    out = run_example("train_cifar10.py", *common, "--epochs", 1, cwd=tmp_path)
    assert "ResNet-18 width 4" in out and "96 training / 32 test images, batch 32" in out
    m = re.search(r"epoch 1/1: loss ([0-9.]+), train accuracy ([0-9.]+), test accuracy ([0-9.]+)", out)
    assert m and np.isfinite(float(m.group(1))), out
    saved = gg.load(ckpt)
    assert saved["epoch"] == 1
    model = gg.models.ResNet18(width=4)
    model.load_state_dict(saved["model"])  # every name and shape of the CIFAR ResNet-18 is there
    assert len(saved["optimizer"]["state"]) == len(list(model.parameters()))  # momentum buffers

    out = run_example("train_cifar10.py", *common, "--epochs", 2, "--resume", "--compile", cwd=tmp_path)
    assert f"resumed from {ckpt} after epoch 1" in out
    assert "epoch 1/2" not in out and re.search(r"epoch 2/2: loss [0-9.]+", out), out
    assert gg.load(ckpt)["epoch"] == 2


def test_train_cifar10_and_mnist_run_data_parallel_over_2_mpi_ranks_with_one_flag(tmp_path):
    pytest.importorskip("mpi4py", reason="--distributed on the CPU needs mpi4py: pip install 'glassgrad[distributed]'")
    write_cifar10(tmp_path, per_batch=32)
    from test_data_idx import make_mnist_dir
    (tmp_path / "mnist").mkdir()
    make_mnist_dir(tmp_path / "mnist", n_train=128, n_test=32)  # in the IDX format; no dataset needed
    launcher = [sys.executable, "-m", "glassgrad.distributed.run", "--backend", "mpi", "--nproc-per-node", "2"]
    runs = [
        [os.path.join(EXAMPLES, "train_cifar10.py"), "--data", str(tmp_path), "--limit", "64", "--test-limit", "16",
         "--width", "4", "--epochs", "1", "--batch-size", "8", "--no-progress", "--distributed", "--sync-bn",
         "--checkpoint", str(tmp_path / "ckpt.gg")],
        [os.path.join(EXAMPLES, "train_mnist.py"), "--data", str(tmp_path / "mnist"), "--epochs", "1", "--limit", "128",
         "--no-progress", "--distributed"],
    ]
    for args in runs:
        proc = subprocess.run(launcher + args, cwd=tmp_path, env=example_env(), capture_output=True, text=True,
                              timeout=300)
        assert proc.returncode == 0, f"{args[0]} failed:\n{proc.stdout}\n{proc.stderr}"
        assert proc.stdout.count(f"glassgrad {gg.__version__}") == 1, proc.stdout  # rank 0 reports, once
    assert os.path.exists(tmp_path / "ckpt.gg")


def test_train_cifar10_without_data_says_how_to_get_it(tmp_path):
    proc = subprocess.run([sys.executable, os.path.join(EXAMPLES, "train_cifar10.py"), "--data",
                           str(tmp_path / "missing")], capture_output=True, text=True, env=example_env(), timeout=120)
    assert proc.returncode != 0
    assert "cifar-10-python.tar.gz" in proc.stderr and "Traceback" not in proc.stderr


# ---- style transfer -------------------------------------------------------------------------
def read_png_rgb(path):
    """A minimal PNG reader for what write_png writes (8-bit RGB, filter 0): checks the chunk
    CRCs and returns the pixels [H, W, 3] uint8."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, {}
    while pos < len(data):
        n = int.from_bytes(data[pos:pos + 4], "big")
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        assert int.from_bytes(data[pos + 8 + n:pos + 12 + n], "big") == zlib.crc32(kind + body)
        chunks[kind] = chunks.get(kind, b"") + body
        pos += 12 + n
    w, h = int.from_bytes(chunks[b"IHDR"][:4], "big"), int.from_bytes(chunks[b"IHDR"][4:8], "big")
    assert chunks[b"IHDR"][8:10] == b"\x08\x02" and b"IEND" in chunks
    rows = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8).reshape(h, 1 + 3 * w)
    assert (rows[:, 0] == 0).all()
    return rows[:, 1:].reshape(h, w, 3)


def test_write_png_round_trips_pixels_and_other_readers_agree(tmp_path):
    write_png = load_example_module("style_transfer.py").write_png
    img = np.random.default_rng(0).random((5, 7, 3)).astype(np.float32)
    write_png(tmp_path / "a.png", img)
    pixels = read_png_rgb(tmp_path / "a.png")
    np.testing.assert_array_equal(pixels, (img * 255 + 0.5).astype(np.uint8))
    plt_image = pytest.importorskip("matplotlib.image")
    np.testing.assert_array_equal((plt_image.imread(tmp_path / "a.png")[..., :3] * 255).round(), pixels)


def test_adam_optimizes_a_plain_leaf_tensor_like_the_style_transfer_image():
    """What style transfer relies on: an input tensor (not a Parameter) with requires_grad=True,
    updated in place by Adam, following PyTorch's update rule step by step."""
    target = np.array([[1.0, -2.0, 3.0]], np.float32)
    image = gg.tensor(np.zeros((1, 3), np.float32), requires_grad=True)
    opt = gg.Adam([image], lr=0.1)
    m = v = np.zeros(3)
    p = np.zeros(3)
    for t in range(1, 6):
        loss = ((image - gg.tensor(target)) ** 2).sum()
        loss.backward()
        opt.step()
        opt.zero_grad()
        g = 2 * (p - target[0])
        m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g * g
        p = p - 0.1 * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
        np.testing.assert_allclose(image.detach().numpy()[0], p, rtol=1e-5, atol=1e-6)
    assert image.is_leaf and image.requires_grad


def test_style_transfer_optimizes_the_input_image_and_writes_pngs(tmp_path):
    pytest.importorskip("sklearn")
    pytest.importorskip("PIL")
    out = run_example("style_transfer.py", "--size", 32, "--steps", 15, "--width", 8, "--out", tmp_path / "st",
                      cwd=tmp_path)
    m = re.search(r"style loss ([0-9.e-]+) -> ([0-9.e-]+)", out)
    assert m, out
    first, last = float(m.group(1)), float(m.group(2))
    assert last < 0.5 * first, out  # the pixels moved towards the style's Gram matrices
    content = read_png_rgb(tmp_path / "st" / "content.png")
    result = read_png_rgb(tmp_path / "st" / "result.png")
    assert content.shape == result.shape == (32, 32, 3)
    assert read_png_rgb(tmp_path / "st" / "style.png").shape == (32, 32, 3)
    assert np.abs(result.astype(int) - content.astype(int)).mean() > 1  # the image itself changed


# ---- character-level GPT -----------------------------------------------------------------------
@pytest.mark.skipif(not os.path.isdir("/usr/share/games/fortunes"),
                    reason="Debian's fortunes package is not installed (bash tools/setup.sh installs it)")
def test_char_gpt_example_learns_the_fortunes_and_samples(tmp_path):
    """char_gpt.py --tiny (2 layers, context 32, 60 steps) on Debian's fortune cookies: the
    validation loss falls, below uniform guessing, and a sample of text is printed."""
    out = run_example("char_gpt.py", "--tiny", cwd=tmp_path, timeout=600)
    m = re.search(r"validation loss ([\d.]+) -> ([\d.]+) \(uniform guessing: ([\d.]+)\)", out)
    assert m, out
    first, last, uniform = map(float, m.groups())
    assert last < first and last < uniform, out
    assert "sample:\n" in out and len(out.split("sample:\n")[1]) > 40, out


# ---- LSTM language model -----------------------------------------------------------------------
@pytest.mark.skipif(not os.path.isdir("/usr/share/games/fortunes"),
                    reason="Debian's fortunes package is not installed (bash tools/setup.sh installs it)")
def test_lstm_lm_example_learns_the_fortunes_words_and_samples(tmp_path):
    """lstm_lm.py --tiny (2 x 32 LSTM, one fortune file, 2 epochs of truncated BPTT): the
    validation perplexity falls far below the vocabulary's size, and words are sampled."""
    out = run_example("lstm_lm.py", "--tiny", cwd=tmp_path, timeout=600)
    m = re.search(r"validation perplexity ([\d.]+) -> ([\d.]+) \(vocabulary (\d+)\)", out)
    assert m, out
    first, best, vocab = float(m.group(1)), float(m.group(2)), int(m.group(3))
    assert best < first and best < vocab / 4, out
    assert "End of training" in out and len(out.split("sample:\n")[1].split()) >= 10, out


def test_lstm_lm_model_is_word_language_model_s_and_loads_torch_weights(torch):
    """The example's RNNModel has word_language_model's parameter names and shapes, and computes
    what the same layers in PyTorch compute with the same weights."""
    ex = load_example_module("lstm_lm.py")
    gg.manual_seed(0)
    ours = ex.RNNModel(50, 8, 12, 2, dropout=0.0).double()
    enc, rnn, dec = torch.nn.Embedding(50, 8), torch.nn.LSTM(8, 12, 2), torch.nn.Linear(12, 50)
    theirs = {"encoder": enc, "rnn": rnn, "decoder": dec}
    for name, layer in theirs.items():
        layer.double().load_state_dict({k.split(".", 1)[1]: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()
                                        if k.startswith(name + ".")})
    assert sorted(ours.state_dict()) == sorted(f"{n}.{k}" for n, l in theirs.items() for k in l.state_dict())
    x = np.random.default_rng(0).integers(0, 50, (7, 3))
    out, (h, c) = ours(gg.tensor(x), tuple(gg.zeros(2, 3, 12, dtype="float64") for _ in range(2)))
    y, (th, tc) = rnn(enc(torch.tensor(x)))
    want = torch.log_softmax(dec(y).reshape(-1, 50), dim=1)
    np.testing.assert_allclose(out.detach().numpy(), want.detach().numpy(), rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(c.detach().numpy(), tc.detach().numpy(), rtol=1e-9, atol=1e-10)
    tied = ex.RNNModel(50, 8, 8, 1, tie_weights=True)
    assert tied.decoder.weight is tied.encoder.weight


# ---- attention ------------------------------------------------------------------------------
def test_attention_example_learns_digits_well_above_chance(tmp_path):
    pytest.importorskip("sklearn")
    out = run_example("attention.py", "--epochs", 8, "--dim", 16, "--heads", 2, "--layers", 1, cwd=tmp_path)
    m = re.search(r"test accuracy ([0-9.]+) \(chance: 0.1\)", out)
    assert m, out
    assert float(m.group(1)) > 0.6, out


def test_multi_head_attention_rows_are_softmax_weights_over_the_tokens():
    """The layer by hand in NumPy: same weights, same output."""
    att = load_example_module("attention.py")
    gg.manual_seed(0)
    layer = att.MultiHeadSelfAttention(dim=8, heads=2)
    x = np.random.default_rng(0).standard_normal((3, 5, 8)).astype(np.float32)
    got = layer(gg.tensor(x)).detach().numpy()
    wqkv, bqkv = layer.qkv.weight.detach().numpy(), layer.qkv.bias.detach().numpy()
    wo, bo = layer.out.weight.detach().numpy(), layer.out.bias.detach().numpy()
    qkv = x @ wqkv.T + bqkv
    q, k, v = (qkv[..., i * 8:(i + 1) * 8].reshape(3, 5, 2, 4).transpose(0, 2, 1, 3) for i in range(3))
    s = q @ k.transpose(0, 1, 3, 2) / 2.0
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    want = (p @ v).transpose(0, 2, 1, 3).reshape(3, 5, 8) @ wo.T + bo
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


# ---- save and resume ------------------------------------------------------------------------
def test_resume_training_reaches_exactly_the_uninterrupted_loss_in_one_process_and_across_two(tmp_path):
    pytest.importorskip("sklearn")
    common = ["--steps", 24, "--optimizer", "adam", "--lr", 0.01, "--checkpoint", tmp_path / "ck.gg"]
    both = run_example("resume_training.py", *common, cwd=tmp_path)  # uninterrupted, then stop + resume
    assert "identical losses at every step" in both, both
    m = re.search(r"uninterrupted run, loss after step 24: (\S+)", both)
    assert m, both
    # The same, in two fresh processes: stop after 9 steps (an npz checkpoint), then resume.
    run_example("resume_training.py", *common, "--stop-after", 9, "--format", "npz", cwd=tmp_path)
    resumed = run_example("resume_training.py", *common, "--resume", tmp_path / "ck.gg", cwd=tmp_path)
    r = re.search(r"resumed at step 9; final loss (\S+) after step 24", resumed)
    assert r, resumed
    assert float(r.group(1)) == float(m.group(1))  # printed with repr(): equal floats, bit for bit


# ---- DCGAN ----------------------------------------------------------------------------------
def test_dcgan_trains_on_idx_files_saves_image_grids_and_replays_compiled_identically(tmp_path):
    """dcgan.py on tiny MNIST-format files: the losses print, the grids are PNGs of 8 columns of
    64x64 images, and --compile gives the same losses as the plain loop."""
    from PIL import Image

    from test_data_idx import make_mnist_dir
    (tmp_path / "mnist").mkdir()
    make_mnist_dir(tmp_path / "mnist", n_train=96, n_test=16)
    common = ["--data", tmp_path / "mnist", "--epochs", 2, "--batch-size", 16, "--ngf", 4, "--ndf", 4]
    plain = run_example("dcgan.py", *common, "--out", tmp_path / "plain", cwd=tmp_path)
    compiled = run_example("dcgan.py", *common, "--out", tmp_path / "compiled", "--compile", cwd=tmp_path)
    losses = [line for line in plain.splitlines() if line.startswith("[")]
    assert len(losses) == 4 and all("Loss_D" in line and "D(G(z))" in line for line in losses), plain
    assert losses == [line for line in compiled.splitlines() if line.startswith("[")]
    for name in ("real_samples.png", "fake_samples_epoch_000.png", "fake_samples_epoch_001.png"):
        image = Image.open(tmp_path / "plain" / name)
        assert image.size == (8 * 66 + 2, 2 * 66 + 2), (name, image.size)  # 16 images, 8 a row, 2-pixel borders
    fake = np.asarray(Image.open(tmp_path / "plain" / "fake_samples_epoch_001.png"), dtype=np.float64)
    assert fake.std() > 1.0  # the generator's images are not blank


def test_dcgan_models_are_pytorch_s_and_load_torch_weights(torch):
    """The example's generator and discriminator, built from the same layer lists with torch.nn,
    have the same state_dict keys and shapes, and compute the same with the same weights."""
    ex = load_example_module("dcgan.py")
    gg.manual_seed(0)
    net = ex.Generator(100, 8, 1).double()
    theirs = torch.nn.Sequential(*ex.generator_layers(torch.nn, 100, 8, 1)).double()
    assert [k.split("main.", 1)[1] for k in net.state_dict()] == list(theirs.state_dict())
    theirs.load_state_dict({k.split("main.", 1)[1]: torch.tensor(v.numpy()) for k, v in net.state_dict().items()})
    z = np.random.default_rng(0).standard_normal((4, 100, 1, 1))
    np.testing.assert_allclose(net(gg.tensor(z)).detach().numpy(), theirs(torch.tensor(z)).detach().numpy(), rtol=1e-9,
                               atol=1e-10)


# ---- porting from PyTorch -------------------------------------------------------------------
def _body(name):
    """A script's lines after its imports (the `[end:imports]` marker)."""
    with open(os.path.join(EXAMPLES, name), encoding="utf-8") as f:
        return f.read().split("# --8<-- [end:imports]\n", 1)[1].splitlines()


def test_port_cifar_is_the_pytorch_script_with_its_imports_changed():
    """What docs/porting.md claims: below the imports, port_cifar.py is port_cifar_pytorch.py with
    `torch.` written `gg.`, plus lines marked as glassgrad's own reporting."""
    ported = [line for line in _body("port_cifar.py") if not line.endswith("# glassgrad only")]
    original = [line.replace("torch.", "gg.") for line in _body("port_cifar_pytorch.py")]
    assert ported == original
    assert len(ported) > 100


def _port_cifar(*args):
    gg.clear_plan_cache()  # each run compiles its plans afresh
    return load_example_module("port_cifar.py").main(
        ["--synthetic", "192", "--batch-size", "32", "--width", "4", "--epochs", "2", "--device", "cpu", *args])


def test_port_cifar_compiled_changes_lr_every_step_and_never_retraces_or_recompiles():
    """OneCycleLR moves lr (and AdamW's beta1) after every step; the compiled step is traced twice
    (warm-up, capture) and replayed for every other step with each new lr (the same numbers as the
    plain loop), and no plan is compiled after the first step."""
    plain = _port_cifar()
    compiled = _port_cifar("--compile")
    lrs, steps = compiled["lrs"], len(compiled["lrs"])
    assert steps == 12 and lrs == plain["lrs"] and all(a != b for a, b in zip(lrs, lrs[1:]))
    assert compiled["step"].traces == 2 and compiled["step"].replays == steps - 2
    assert compiled["new_compiles"][0] > 0 and sum(compiled["new_compiles"][1:]) == 0
    assert sum(plain["new_compiles"][1:]) == 0  # the plain loop hits its plan cache as well
    assert compiled["step"].cuda_graphs["plans"] > 0 and compiled["step"].cuda_graphs["captures"] == 0  # CPU
    for (name, a), (_, b) in zip(plain["model"].state_dict().items(), compiled["model"].state_dict().items()):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5, err_msg=name)


@pytest.mark.cuda
def test_port_cifar_on_the_gpu_replays_one_capture_per_plan_as_the_learning_rate_changes():
    """On a GPU the replayed plans run as CUDA graphs: each is captured once (by its third
    run at the latest) and launched for every later step, the lr changing every step (no recapture), with
    the plain loop's numbers."""
    plain = _port_cifar("--device", "cuda")
    compiled = _port_cifar("--compile", "--device", "cuda")
    step, graphs = compiled["step"], compiled["step"].cuda_graphs
    assert step.traces == 2 and sum(compiled["new_compiles"][1:]) == 0
    assert graphs["plans"] > 0 and graphs["captured"] == graphs["captures"] == graphs["plans"], graphs
    # The executor warms up on its first two runs (the traced calls run the plan as well), so
    # at most two of the step's replays run step by step before the graph takes over.
    assert graphs["plans"] * (step.replays - 2) <= graphs["replays"] <= graphs["plans"] * step.replays, graphs
    for (name, a), (_, b) in zip(plain["model"].state_dict().items(), compiled["model"].state_dict().items()):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5, err_msg=name)


def test_port_cifar_trains_on_cifar_format_files(tmp_path):
    write_cifar10(tmp_path, per_batch=32)
    out = run_example("port_cifar.py", "--data", tmp_path / "cifar-10-batches-py", "--batch-size", 32, "--width", 4,
                      "--epochs", 1, "--compile", cwd=tmp_path)
    assert re.search(r"epoch 1/1: loss [0-9.]+, test accuracy [0-9.]+", out), out
    assert "compiled step: traced 2 times, replayed 3 times" in out


def test_port_cifar_pytorch_runs_in_pytorch(torch, tmp_path):
    out = run_example("port_cifar_pytorch.py", "--synthetic", 64, "--batch-size", 32, "--width", 4, "--epochs", 1,
                      "--device", "cpu", cwd=tmp_path)
    assert re.search(r"epoch 1/1: loss [0-9.]+, test accuracy [0-9.]+", out), out
