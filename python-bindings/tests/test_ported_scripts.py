"""Real PyTorch scripts run with their imports changed: each test ports the scripts it runs from a
checkout outside the repository (script_sources.py: GLASSGRAD_SCRIPT_SOURCES, one folder per
repository; without it the tests skip, saying how to run them) with tools/port_script.py, changes
only the lines CHANGED lists with the reason, and runs them briefly on local data.
tests/own_scripts/ cover the same library paths with the project's own scripts in every run."""
import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios

import numpy as np
import pytest

import glassgrad as gg
from data_fixtures import write_cifar, write_mnist
from script_sources import needs, port_script, source

# The glassgrad this test imported (the installed package in CI, the working tree with
# PYTHONPATH in development): child interpreters must import the same one.
BINDINGS = os.path.dirname(os.path.dirname(os.path.abspath(gg.__file__)))

# Lines changed beyond the imports: file -> {original line: (ported line or None: dropped, why)}.
CHANGED = {
    "pytorch_cifar/main.py": {
        "net = SimpleDLA()": ("net = ResNet18()", "the run ports models/resnet.py only; ResNet18 is the "
                                                  "repository's own commented alternative"),
        "for epoch in range(start_epoch, start_epoch+200):": ("for epoch in range(start_epoch, start_epoch+1):",
                                                               "epochs cut (200 are written into the loop)"),
    },
    "pytorch_cifar/models/__init__.py": {
        f"from .{m} import *": (None, "imports of the model files the run does not port")
        for m in ("vgg", "dpn", "lenet", "senet", "pnasnet", "densenet", "googlenet", "shufflenet", "shufflenetv2",
                  "resnext", "preact_resnet", "mobilenet", "mobilenetv2", "efficientnet", "regnet", "dla_simple",
                  "dla")
    },
}

# What each run ports: name -> (checkout, folder in it, files under that folder).
SCRIPTS = {
    "mnist": ("pytorch-examples", "mnist", ["main.py"]),
    "dcgan": ("pytorch-examples", "dcgan", ["main.py"]),
    "vae": ("pytorch-examples", "vae", ["main.py"]),
    "word_language_model": ("pytorch-examples", "word_language_model",
                            ["main.py", "model.py", "data.py", "generate.py"]),
    "pytorch_cifar": ("pytorch-cifar", "", ["main.py", "utils.py", "models/resnet.py", "models/__init__.py"]),
    "mnist_rnn": ("pytorch-examples", "mnist_rnn", ["main.py"]),
    "regression": ("pytorch-examples", "regression", ["main.py"]),
    "super_resolution": ("pytorch-examples", "super_resolution",
                         ["main.py", "data.py", "dataset.py", "model.py", "super_resolve.py"]),
    "time_sequence_prediction": ("pytorch-examples", "time_sequence_prediction", ["generate_sine_wave.py", "train.py"]),
    "siamese_network": ("pytorch-examples", "siamese_network", ["main.py"]),
    "nanogpt": ("nanoGPT", "", ["model.py", "train.py", "sample.py", "configurator.py"]),
    "imagenet": ("pytorch-examples", "imagenet", ["main.py"]),
    # MorvanZhou/PyTorch-Tutorial (test_morvanzhou_tutorial_ports.py runs them)
    "morvanzhou_tutorial": ("morvanzhou-pytorch-tutorial", "", [f"tutorial-contents/{script}.py" for script in (
        "201_torch_numpy", "202_variable", "203_activation", "301_regression", "302_classification",
        "303_build_nn_quickly", "304_save_reload", "305_batch_train", "306_optimizer", "401_CNN",
        "402_RNN_classifier", "403_RNN_regressor", "404_autoencoder", "406_GAN", "406_conditional_GAN",
        "501_why_torch_dynamic_graph", "503_dropout", "504_batch_normalization")]),
    "minGPT": ("minGPT", "", ["mingpt/__init__.py", "mingpt/model.py", "mingpt/trainer.py", "mingpt/utils.py",
                              "projects/adder/adder.py"]),
    # yunjey/pytorch-tutorial, in the repository's layout (test_pytorch_tutorial_ports.py runs them)
    "pytorch_tutorial": ("yunjey-pytorch-tutorial", "", [f"tutorials/{script}" for script in (
        "01-basics/pytorch_basics/main.py", "01-basics/logistic_regression/main.py",
        "01-basics/feedforward_neural_network/main.py", "01-basics/linear_regression/main.py",
        "02-intermediate/convolutional_neural_network/main.py", "02-intermediate/deep_residual_network/main.py",
        "02-intermediate/recurrent_neural_network/main.py",
        "02-intermediate/bidirectional_recurrent_neural_network/main.py",
        "02-intermediate/language_model/main.py", "02-intermediate/language_model/data_utils.py",
        "03-advanced/generative_adversarial_network/main.py", "03-advanced/variational_autoencoder/main.py")]),
}

# What each run still waits for (non-strict xfail: a run that passes once they land shows XPASS).
WAITS_FOR: dict = {}  # every ported script runs


def needs_sources(script):
    """The skip mark of the checkout a SCRIPTS entry comes from."""
    return needs(SCRIPTS[script][0])


@needs_sources("pytorch_cifar")
def test_every_changed_line_names_why_and_exists():
    for rel, changes in CHANGED.items():
        script, name = rel.split("/", 1)
        repo, folder, _ = SCRIPTS[script]
        with open(source(repo, os.path.join(folder, name)), encoding="utf-8") as f:
            lines = f.read().split("\n")
        for old, (_, why) in changes.items():
            assert old in lines, f"{rel}: CHANGED names {old!r}, which the original does not have"
            assert why


# ---- running them --------------------------------------------------------------------------
def _env(**extra):
    """A child interpreter's environment: the glassgrad under test first on its path, the CPU."""
    return dict(os.environ, GLASSGRAD_DEVICE="cpu",
                PYTHONPATH=os.pathsep.join(p for p in (BINDINGS, os.environ.get("PYTHONPATH", "")) if p), **extra)


def _run(cmd, cwd, timeout=900, tty=False):
    env = _env()
    if not tty:
        return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    # pytorch-cifar's utils.py reads the terminal's size (`stty size`) when imported.
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    try:
        return subprocess.run(cmd, cwd=cwd, env=env, stdin=slave, capture_output=True, text=True, timeout=timeout)
    finally:
        os.close(master)
        os.close(slave)


def _copy(script, dest):
    """The SCRIPTS entry's files ported into dest (at their paths under the entry's folder), with
    CHANGED's lines."""
    repo, folder, files = SCRIPTS[script]
    for f in files:
        changes = {old: new for old, (new, _) in CHANGED.get(f"{script}/{f}", {}).items()}
        port_script.port_file(source(repo, os.path.join(folder, f)), os.path.join(str(dest), f), changes)
    return str(dest)


def _check(proc, what):
    waits = WAITS_FOR.get(what, "nothing listed")
    assert proc.returncode == 0, f"{what} failed (waits for: {waits}):\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"


def _waits(script):
    return pytest.mark.xfail(reason=f"waits for {WAITS_FOR[script]}", strict=False)


@pytest.mark.slow
@needs_sources("mnist")
def test_mnist_main_trains_and_tests_an_epoch(tmp_path):
    write_mnist(str(tmp_path / "data"), n_train=64, n_test=32)  # '../data' from the run folder
    run = _copy("mnist", tmp_path / "run")
    proc = _run([sys.executable, "main.py", "--epochs", "1", "--dry-run", "--batch-size", "16",
                 "--test-batch-size", "16", "--save-model"], run)
    _check(proc, "mnist")
    assert "Test set: Average loss" in proc.stdout and os.path.isfile(os.path.join(run, "mnist_cnn.pt"))


@pytest.mark.slow
@needs_sources("dcgan")
def test_dcgan_main_runs_a_step_on_fake_data_with_workers(tmp_path):
    run = _copy("dcgan", tmp_path / "run")
    proc = _run([sys.executable, "main.py", "--dataset", "fake", "--dry-run", "--batchSize", "8", "--ngf", "8",
                 "--ndf", "8", "--nz", "16", "--workers", "2", "--outf", "out"], run)
    _check(proc, "dcgan")
    assert sorted(os.listdir(os.path.join(run, "out"))) == ["fake_samples_epoch_000.png", "netD_epoch_0.pth",
                                                            "netG_epoch_0.pth", "real_samples.png"]


@pytest.mark.slow
@needs_sources("vae")
def test_vae_main_trains_an_epoch_and_saves_images(tmp_path):
    write_mnist(str(tmp_path / "data"), n_train=64, n_test=32)
    run = _copy("vae", tmp_path / "run")
    os.makedirs(os.path.join(run, "results"))
    proc = _run([sys.executable, "main.py", "--epochs", "1", "--batch-size", "16"], run)
    _check(proc, "vae")
    assert "Test set loss" in proc.stdout and os.path.isfile(os.path.join(run, "results", "sample_1.png"))


def _word_language_model_run(tmp_path):
    """The port in tmp_path/run with a tiny corpus in its default data folder (8 words, 40 lines)."""
    run = _copy("word_language_model", tmp_path / "run")
    corpus = os.path.join(run, "data", "wikitext-2")
    os.makedirs(corpus)
    rng = np.random.default_rng(0)
    words = ["the", "cat", "sat", "on", "a", "mat", "and", "ran"]
    for split in ("train", "valid", "test"):
        with open(os.path.join(corpus, f"{split}.txt"), "w") as f:
            f.write("\n".join(" ".join(rng.choice(words, 12)) for _ in range(40)) + "\n")
    return run


def _test_ppl(stdout):
    m = re.search(r"End of training \| test loss +([-\d.naif]+) \| test ppl +([-\d.naif]+)", stdout)
    assert m, stdout[-2000:]
    return float(m.group(2))


@pytest.mark.slow
@needs_sources("word_language_model")
def test_word_language_model_trains_on_a_tiny_corpus(tmp_path):
    run = _word_language_model_run(tmp_path)
    proc = _run([sys.executable, "main.py", "--epochs", "1", "--dry-run", "--emsize", "16", "--nhid", "16"], run)
    _check(proc, "word_language_model")
    assert "End of training" in proc.stdout


@pytest.mark.slow
@needs_sources("word_language_model")
def test_word_language_model_trains_its_transformer(tmp_path):
    # --model Transformer: nn.TransformerEncoder with a square subsequent mask, the script's own
    # PositionalEncoding (arange, sin, cos, slice assignment) and its pickled model read back by
    # torch.load under safe_globals naming glassgrad's layers as PyTorch's.
    run = _word_language_model_run(tmp_path)
    proc = _run([sys.executable, "main.py", "--model", "Transformer", "--nhead", "2", "--epochs", "2",
                 "--emsize", "16", "--nhid", "16", "--lr", "1"], run)
    _check(proc, "word_language_model")
    assert np.isfinite(_test_ppl(proc.stdout))


EXPORTED_LM_CHECK = """
import numpy as np
import onnxruntime as ort
import torch
from model import RNNModel
model = torch.load("model.pt", weights_only=False)
model.eval()
ids = torch.zeros((35, 1), dtype=torch.int64)
hidden = model.init_hidden(1)
with torch.no_grad():  # the outputs of a model whose parameters require gradients: numpy() refuses them
    out, (h, c) = model(ids, hidden)
got = ort.InferenceSession("model.onnx").run(None, {"input": ids.numpy(), "hidden_0": hidden[0].numpy(),
                                                    "hidden_1": hidden[1].numpy()})
for want, have in zip((out, h, c), got):
    np.testing.assert_allclose(have, want.numpy(), rtol=1e-4, atol=1e-5)
print("onnxruntime agrees", [g.shape for g in got])
"""


@pytest.mark.slow
@needs_sources("word_language_model")
def test_word_language_model_exports_onnx_that_onnxruntime_runs_as_the_model(tmp_path):
    pytest.importorskip("onnxruntime")
    run = _word_language_model_run(tmp_path)
    proc = _run([sys.executable, "main.py", "--epochs", "1", "--emsize", "16", "--nhid", "16",
                 "--onnx-export", "model.onnx"], run)
    _check(proc, "word_language_model")
    assert "exported in ONNX format" in proc.stdout and np.isfinite(_test_ppl(proc.stdout))
    # the best model the script saved, run by glassgrad and by onnxruntime from the exported file
    with open(os.path.join(run, "check_export.py"), "w") as f:
        f.write(EXPORTED_LM_CHECK.replace("import torch", "import glassgrad.torch as torch"))
    check = _run([sys.executable, "check_export.py"], run)
    assert check.returncode == 0, check.stdout[-2000:] + check.stderr[-3000:]
    assert "onnxruntime agrees [(35, 9), (2, 1, 16), (2, 1, 16)]" in check.stdout


@pytest.mark.slow
@needs_sources("pytorch_cifar")
def test_pytorch_cifar_trains_an_epoch_checkpoints_and_resumes(tmp_path):
    run = _copy("pytorch_cifar", tmp_path / "run")
    write_cifar(os.path.join(run, "data"), n_per_batch=26, n_test=20)
    proc = _run([sys.executable, "main.py"], run, tty=True)
    _check(proc, "pytorch_cifar")
    assert "Saving.." in proc.stdout
    torch = pytest.importorskip("torch")
    ckpt = torch.load(os.path.join(run, "checkpoint", "ckpt.pth"), weights_only=True, map_location="cpu")  # PyTorch reads it
    assert set(ckpt) == {"net", "acc", "epoch"} and "conv1.weight" in ckpt["net"]
    resumed = _run([sys.executable, "main.py", "--resume"], run, tty=True)
    _check(resumed, "pytorch_cifar")
    assert "Resuming from checkpoint" in resumed.stdout


def _in_process_seeded(script, *args):
    """python -c running `script` as __main__ after glassgrad.manual_seed(0): the script is unchanged,
    its random draws repeatable (regression draws its target polynomial and stops at a loss)."""
    code = ("import sys, runpy, glassgrad; glassgrad.manual_seed(0); "
            f"sys.argv = {[script, *args]!r}; runpy.run_path({script!r}, run_name='__main__')")
    return [sys.executable, "-c", code]


@pytest.mark.slow
@needs_sources("regression")
def test_regression_fits_its_polynomial(tmp_path):
    run = _copy("regression", tmp_path / "run")
    proc = _run(_in_process_seeded("main.py"), run)
    _check(proc, "regression")
    assert re.search(r"Loss: 0\.000\d+ after \d+ batches", proc.stdout), proc.stdout
    learned = re.search(r"Learned function:\s+y = (.*)", proc.stdout).group(1).split()
    actual = re.search(r"Actual function:\s+y = (.*)", proc.stdout).group(1).split()
    for a, b in zip(learned[::2], actual[::2]):  # the coefficients (every other token is x^i)
        assert abs(float(a) - float(b)) < 0.5, (learned, actual)


@pytest.mark.slow
@needs_sources("mnist_rnn")
def test_mnist_rnn_trains_and_tests_an_epoch(tmp_path):
    write_mnist(str(tmp_path / "data"), n_train=64, n_test=32)
    run = _copy("mnist_rnn", tmp_path / "run")
    proc = _run([sys.executable, "main.py", "--epochs", "1", "--dry-run", "--batch-size", "16",
                 "--test-batch-size", "16", "--save-model"], run)
    _check(proc, "mnist_rnn")
    assert "Test set: Average loss" in proc.stdout and os.path.isfile(os.path.join(run, "mnist_rnn.pt"))


def _write_bsds300(root, n=2):
    """BSDS300's layout (dataset/BSDS300/images/{train,test}/*.jpg) with small random pictures:
    data.py downloads only when that folder is missing."""
    from PIL import Image
    rng = np.random.default_rng(0)
    for split in ("train", "test"):
        folder = os.path.join(root, "dataset", "BSDS300", "images", split)
        os.makedirs(folder)
        for i in range(n):
            Image.fromarray(rng.integers(0, 256, (72, 60, 3), dtype=np.uint8)).save(os.path.join(folder, f"{i}.jpg"))


@pytest.mark.slow
@needs_sources("super_resolution")
def test_super_resolution_trains_checkpoints_and_upscales_a_picture(tmp_path):
    pytest.importorskip("six")  # data.py imports six.moves.urllib (the test extra installs it)
    run = _copy("super_resolution", tmp_path / "run")
    _write_bsds300(run)
    proc = _run([sys.executable, "main.py", "--upscale_factor", "3", "--batchSize", "2", "--testBatchSize", "2",
                 "--nEpochs", "1", "--threads", "2"], run)
    _check(proc, "super_resolution")
    assert "Avg. PSNR" in proc.stdout and os.path.isfile(os.path.join(run, "model_epoch_1.pth"))
    image = os.path.join(run, "dataset", "BSDS300", "images", "test", "0.jpg")
    proc = _run([sys.executable, "super_resolve.py", "--input_image", image, "--model", "model_epoch_1.pth",
                 "--output_filename", "out.png"], run)
    _check(proc, "super_resolution")
    from PIL import Image
    assert Image.open(os.path.join(run, "out.png")).size == (60 * 3, 72 * 3)


@pytest.mark.slow
@needs_sources("time_sequence_prediction")
def test_time_sequence_prediction_trains_an_lstm_with_lbfgs(tmp_path):
    pytest.importorskip("matplotlib")
    run = _copy("time_sequence_prediction", tmp_path / "run")
    proc = _run([sys.executable, "generate_sine_wave.py"], run)
    _check(proc, "time_sequence_prediction")
    big = gg.load(os.path.join(run, "traindata.pt"))
    assert big.shape == (100, 1000)
    # 100 waves of 1000 steps unroll 1000 LSTM steps 20 times a step: the run takes 8 waves of 40
    # (the first rows and columns of the same file, saved as generate_sine_wave.py saves them).
    with open(os.path.join(run, "traindata.pt"), "wb") as f:
        gg.save(np.ascontiguousarray(big[:8, :40]), f)
    proc = _run([sys.executable, "train.py", "--steps", "2"], run)
    _check(proc, "time_sequence_prediction")
    losses = [float(v) for v in re.findall(r"^loss: (\S+)", proc.stdout, re.M)]
    assert len(losses) >= 4 and losses[-1] < losses[0]
    assert "test loss" in proc.stdout and os.path.isfile(os.path.join(run, "predict1.pdf"))


@pytest.mark.slow
@needs_sources("word_language_model")
def test_word_language_model_generates_from_its_lstm_and_transformer_checkpoints(tmp_path):
    run = _copy("word_language_model", tmp_path / "run")
    corpus = os.path.join(run, "data", "wikitext-2")
    os.makedirs(corpus)
    rng = np.random.default_rng(0)
    words = ["the", "cat", "sat", "on", "a", "mat", "and", "ran"]
    for split in ("train", "valid", "test"):
        with open(os.path.join(corpus, f"{split}.txt"), "w") as f:
            f.write("\n".join(" ".join(rng.choice(words, 12)) for _ in range(40)) + "\n")
    for model, extra in (("LSTM", []), ("Transformer", ["--nhead", "2"])):
        proc = _run([sys.executable, "main.py", "--epochs", "1", "--dry-run", "--emsize", "16", "--nhid", "16",
                     "--model", model, "--save", f"{model}.pt", *extra], run)
        _check(proc, "word_language_model")
        proc = _run([sys.executable, "generate.py", "--checkpoint", f"{model}.pt", "--words", "30",
                     "--outf", f"{model}.txt"], run)
        _check(proc, "word_language_model_generate")
        with open(os.path.join(run, f"{model}.txt")) as f:
            generated = f.read().split()
        assert len(generated) == 30 and set(generated) <= set(words) | {"<eos>"}


@pytest.mark.slow
@needs_sources("siamese_network")
def test_siamese_network_trains_a_resnet18_pair_model_and_tests(tmp_path):
    write_mnist(str(tmp_path / "data"), n_train=64, n_test=32)
    run = _copy("siamese_network", tmp_path / "run")
    proc = _run([sys.executable, "main.py", "--epochs", "1", "--dry-run", "--batch-size", "8", "--test-batch-size", "8",
                 "--save-model"], run)
    _check(proc, "siamese_network")
    assert "Test set: Average loss" in proc.stdout and os.path.isfile(os.path.join(run, "siamese_network.pt"))


def _write_char_corpus(folder):
    """nanoGPT's data/<dataset>/ layout as its prepare.py scripts write it: uint16 token ids in
    train.bin and val.bin, and meta.pkl with the vocabulary."""
    import pickle
    text = ("First Citizen: Before we proceed any further, hear me speak. All: Speak, speak. " * 40)
    chars = sorted(set(text))
    ids = np.array([chars.index(c) for c in text], dtype=np.uint16)
    os.makedirs(folder)
    ids[:len(ids) * 9 // 10].tofile(os.path.join(folder, "train.bin"))
    ids[len(ids) * 9 // 10:].tofile(os.path.join(folder, "val.bin"))
    with open(os.path.join(folder, "meta.pkl"), "wb") as f:
        pickle.dump({"vocab_size": len(chars), "itos": dict(enumerate(chars)),
                     "stoi": {c: i for i, c in enumerate(chars)}}, f)


@pytest.mark.slow
@needs_sources("nanogpt")
def test_nanogpt_trains_compiled_resumes_and_samples(tmp_path):
    run = _copy("nanogpt", tmp_path / "run")
    _write_char_corpus(os.path.join(run, "data", "tiny"))
    small = ["--dataset=tiny", "--device=cpu", "--dtype=float32", "--eval_iters=2", "--eval_interval=4",
             "--log_interval=1", "--block_size=32", "--batch_size=4", "--n_layer=2", "--n_head=2", "--n_embd=32",
             "--dropout=0.1", "--out_dir=out"]
    proc = _run([sys.executable, "train.py", *small, "--compile=True", "--max_iters=8", "--lr_decay_iters=8",
                 "--warmup_iters=2", "--learning_rate=1e-2"], run)
    _check(proc, "nanogpt")
    first = [float(v) for v in re.findall(r"step \d+: train loss ([\d.]+)", proc.stdout)]
    assert len(first) == 3 and first[-1] < first[0], proc.stdout
    proc = _run([sys.executable, "train.py", *small, "--init_from=resume", "--compile=False", "--max_iters=12",
                 "--lr_decay_iters=12", "--gradient_accumulation_steps=2"], run)
    _check(proc, "nanogpt resume")
    assert "Resuming training from out" in proc.stdout and "iter 12:" in proc.stdout, proc.stdout
    # sample.py imports tiktoken at the top (for GPT-2 checkpoints only); a stand-in keeps it offline.
    with open(os.path.join(run, "tiktoken.py"), "w") as f:
        f.write("def get_encoding(name):\n    raise RuntimeError('offline')\n")
    proc = _run([sys.executable, "sample.py", "--out_dir=out", "--device=cpu", "--dtype=float32", "--compile=False",
                 "--num_samples=2", "--max_new_tokens=24", "--start=First"], run)
    _check(proc, "nanogpt sample")
    samples = [s for s in proc.stdout.split("---------------") if "First" in s]
    assert len(samples) == 2 and all(len(s.strip()) >= len("First") + 24 for s in samples), proc.stdout


@pytest.mark.slow
@needs_sources("minGPT")
def test_mingpt_adder_trains_with_workers_and_scores(tmp_path, monkeypatch):
    run = _copy("minGPT", tmp_path / "run")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (run, os.environ.get("PYTHONPATH", "")) if p))
    proc = _run([sys.executable, os.path.join("projects", "adder", "adder.py"), "--trainer.max_iters=21",
                 "--trainer.num_workers=2", "--trainer.batch_size=16", "--trainer.device=cpu",
                 "--system.work_dir=out"], run)
    _check(proc, "minGPT adder")
    assert re.search(r"train final score: \d+/9500", proc.stdout) and "iter 20: train loss" in proc.stdout, proc.stdout
    assert os.path.exists(os.path.join(run, "out", "model.pt"))
