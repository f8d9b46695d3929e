"""The project's own training scripts (tests/own_scripts/) run as users run theirs: a fresh
interpreter in a folder holding small local data (MNIST and CIFAR-10 files in their standard
formats, pictures in an ImageFolder tree, a text corpus), each briefly, checked for what it
promises: losses that fall or stay finite, files written and read back (by PyTorch where it is
installed), resumed runs picking up where they stopped."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import glassgrad as gg
from data_fixtures import write_cifar, write_mnist

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "own_scripts")
BINDINGS = os.path.dirname(os.path.dirname(os.path.abspath(gg.__file__)))


def run(folder, script, *args):
    """Runs own_scripts/<script> (or the script at an absolute path) in folder with the glassgrad under test on the CPU; returns stdout."""
    env = dict(os.environ, GLASSGRAD_DEVICE="cpu", MPLBACKEND="Agg",
               PYTHONPATH=os.pathsep.join(p for p in (BINDINGS, os.environ.get("PYTHONPATH", "")) if p))
    done = subprocess.run([sys.executable, os.path.join(SCRIPTS, script), *map(str, args)], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{script} failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done.stdout


def floats(pattern, text):
    return [float(v) for v in re.findall(pattern, text)]


def read_by_torch(path):
    """The file as PyTorch reads it with weights_only=True; None without torch."""
    try:
        import torch
    except ImportError:
        return None
    return torch.load(path, weights_only=True, map_location="cpu")  # saved on the default device


@pytest.fixture
def mnist(tmp_path):
    write_mnist(str(tmp_path / "data"), n_train=64, n_test=32)
    return tmp_path


def write_pictures(folder, classes, per_class, size, seed=0):
    """folder/<class>/<i>.png: random RGB pictures of size (height, width)."""
    from PIL import Image
    rng = np.random.default_rng(seed)
    for c in classes:
        os.makedirs(os.path.join(folder, c), exist_ok=True)
        for i in range(per_class):
            Image.fromarray(rng.integers(0, 256, (*size, 3), dtype=np.uint8)).save(os.path.join(folder, c, f"{i}.png"))


def test_gan_step_trains_both_networks_and_saves_grids_and_weights(mnist):
    out = run(mnist, "gan_step.py", "--workers", "2")
    steps = re.findall(r"^\[0\]\[(\d)/4\] Loss_D: (\S+) Loss_G: (\S+) D\(G\(z\)\): (\S+)$", out, re.M)
    assert [s[0] for s in steps] == ["0", "1", "2", "3"] and all(np.isfinite(float(v)) for s in steps for v in s), out
    assert sorted(os.listdir(mnist / "out")) == ["fake_samples_epoch_000.png", "netD_epoch_0.pth",
                                                 "netG_epoch_0.pth", "real_samples.png"]
    from PIL import Image
    assert Image.open(mnist / "out" / "fake_samples_epoch_000.png").size == (8 * 30 + 2, 2 * 30 + 2)
    saved = read_by_torch(mnist / "out" / "netG_epoch_0.pth")
    if saved is not None:
        assert tuple(saved["0.weight"].shape) == (16, 16, 7, 7) and tuple(saved["6.weight"].shape) == (8, 1, 4, 4)



@pytest.mark.parametrize("args", [["--loss", "gan", "--shared-encoders"], ["--loss", "lsgan", "--adain"],
                                  ["--loss", "wgan"], ["--loss", "wgan-gp"], ["--loss", "acgan"]])
def test_gan_variants_train_and_save_a_class_grid(mnist, args):
    out = run(mnist, "gan_variants.py", *args)
    steps = re.findall(r"^\[Batch (\d)/4\] \[D loss: (\S+)\] \[G loss: (\S+)\]$", out, re.M)
    assert [s[0] for s in steps] == ["0", "1", "2", "3"] and all(np.isfinite(float(v)) for s in steps for v in s[1:])
    assert "row tensor unchanged: True" in out  # the repeated labels were edited, the row they came from not
    from PIL import Image
    assert Image.open(mnist / "images" / "grid.png").size == (10 * 30 + 2, 10 * 30 + 2)
    if "wgan" in args:  # weights clipped to [-0.01, 0.01] after every critic step
        assert float(re.search(r"largest critic weight: (\S+)", out).group(1)) <= 0.01 + 1e-7
    if "wgan-gp" in args:  # the penalty of each critic step, through the critic's in-place LeakyReLU
        penalties = [float(v) for v in re.findall(r"^gradient penalty: (\S+)$", out, re.M)]
        assert len(penalties) == 4 and all(np.isfinite(penalties)) and max(penalties) > 0
    if "--shared-encoders" in args:  # 2 x 4 entries; Adam's first step moves by lr per entry: twice
        n, moved = re.search(r"shared encoders: (\d+) entries, shared weight moved (\S+)", out).groups()
        assert int(n) == 8 and abs(float(moved) - 2e-3) < 1e-5

def test_vae_trains_with_bce_plus_kl_and_saves_samples(mnist):
    out = run(mnist, "vae.py", "--epochs", "2")
    train, test = floats(r"train loss: (\S+)", out), floats(r"test loss: (\S+)", out)
    assert len(train) == len(test) == 2 and train[1] < train[0] and all(np.isfinite(test)), out
    # a sum over 784 Bernoulli pixels: positive, and below 784 * log(2) per image once the decoder has moved
    assert 0 < test[1] < 784 * np.log(2) + 50
    from PIL import Image
    assert Image.open(mnist / "results" / "sample_2.png").size == (8 * 30 + 2, 2 * 30 + 2)
    assert Image.open(mnist / "results" / "reconstruction_2.png").size == (8 * 30 + 2, 2 * 30 + 2)


WORDS = ["the", "cat", "sat", "on", "a", "mat", "and", "ran"]


def write_corpus(folder):
    """folder/corpus/{train,valid}.txt: 30 lines of 10 words drawn from WORDS."""
    rng = np.random.default_rng(0)
    os.makedirs(folder / "corpus")
    for split in ("train", "valid"):
        with open(folder / "corpus" / f"{split}.txt", "w") as f:
            f.write("\n".join(" ".join(rng.choice(WORDS, 10)) for _ in range(30)) + "\n")


def test_word_lm_trains_by_truncated_bptt_keeps_the_best_and_generates(tmp_path):
    words = WORDS
    write_corpus(tmp_path)
    out = run(tmp_path, "word_lm.py")
    losses = floats(r"valid loss (\S+)", out)
    assert len(losses) == 3 and all(np.isfinite(losses)) and losses[-1] < losses[0], out
    generated = re.search(r"^generated: (.*)$", out, re.M).group(1).split()
    assert len(generated) == 20 and set(generated) <= set(words) | {"<eos>"}
    saved = read_by_torch(tmp_path / "lm.pt")
    if saved is not None:
        assert tuple(saved["embed.weight"].shape) == (9, 16) and "lstm.weight_hh_l1" in saved


def test_word_lm_transformer_under_a_causal_mask_is_saved_whole_and_generates(tmp_path):
    write_corpus(tmp_path)
    out = run(tmp_path, "word_lm.py", "--model", "Transformer", "--lr", "0.5")
    losses = floats(r"valid loss (\S+)", out)
    # random words: the best is about the uniform guess over the 9 tokens' log(9); an untrained
    # or diverged model is well above it
    assert len(losses) == 3 and all(np.isfinite(losses)) and min(losses) < np.log(len(WORDS) + 1) + 0.1, out
    generated = re.search(r"^generated: (.*)$", out, re.M).group(1).split()
    assert len(generated) == 20 and set(generated) <= set(WORDS) | {"<eos>"}


def test_cifar_resnet_trains_checkpoints_and_resumes(tmp_path):
    write_cifar(str(tmp_path / "data"), n_per_batch=16, n_test=20)
    out = run(tmp_path, "cifar_resnet.py")
    assert re.search(r"^epoch 0 loss [\d.]+ train acc [\d.]+ test acc [\d.]+ lr 0\.0854$", out, re.M), out
    assert "saving checkpoint" in out
    ckpt = read_by_torch(tmp_path / "checkpoint" / "ckpt.pth")
    if ckpt is not None:
        assert set(ckpt) == {"net", "acc", "epoch"} and ckpt["epoch"] == 0
        assert tuple(ckpt["net"]["fc.weight"].shape) == (10, 32) and "stem.1.running_mean" in ckpt["net"]
    resumed = run(tmp_path, "cifar_resnet.py", "--resume")
    assert "resumed at epoch 1" in resumed and re.search(r"^epoch 1 loss ", resumed, re.M), resumed


def test_imagenet_loop_trains_on_an_image_folder_with_workers_and_keeps_the_best(tmp_path):
    for split, n in (("train", 4), ("val", 2)):
        write_pictures(str(tmp_path / "images" / split), ["cat", "dog", "emu", "fox", "gnu", "owl"], n, (40, 44))
    out = run(tmp_path, "imagenet_loop.py", "images", "--epochs", "1", "-b", "8", "-j", "2")
    m = re.search(r"^Epoch 0: loss (\S+) Acc@1 (\S+) Acc@5 (\S+) lr 0.1$", out, re.M)
    assert m and float(m.group(1)) > 0 and 0 <= float(m.group(2)) <= float(m.group(3)) <= 100, out
    assert re.search(r"^ \* Acc@1 [\d.]+ Acc@5 [\d.]+$", out, re.M)
    assert os.path.isfile(tmp_path / "checkpoint.pth.tar") and os.path.isfile(tmp_path / "model_best.pth.tar")
    saved = read_by_torch(tmp_path / "checkpoint.pth.tar")
    if saved is not None:
        assert saved["epoch"] == 1 and saved["scheduler"]["last_epoch"] == 1
        assert tuple(saved["state_dict"]["fc.weight"].shape) == (6, 512)
        assert saved["optimizer"]["param_groups"][0]["lr"] == pytest.approx(0.01)


@pytest.mark.slow
def test_imagenet_loop_resumes_evaluates_and_runs_on_fake_data(tmp_path):
    for split, n in (("train", 4), ("val", 2)):
        write_pictures(str(tmp_path / "images" / split), ["cat", "dog", "emu", "fox", "gnu", "owl"], n, (40, 44))
    run(tmp_path, "imagenet_loop.py", "images", "--epochs", "1")
    resumed = run(tmp_path, "imagenet_loop.py", "images", "--epochs", "2", "--resume", "checkpoint.pth.tar")
    assert "loaded checkpoint 'checkpoint.pth.tar' (epoch 1)" in resumed
    assert re.search(r"^Epoch 1: .* lr 0.01$", resumed, re.M), resumed
    evaluated = run(tmp_path, "imagenet_loop.py", "images", "-e", "--resume", "model_best.pth.tar")
    assert "Epoch " not in evaluated and " * Acc@1 " in evaluated
    dummy = run(tmp_path, "imagenet_loop.py", "--dummy", "-j", "2")
    assert re.search(r"^Epoch 0: loss \S+ Acc@1 ", dummy, re.M), dummy


def test_char_gpt_trains_compiled_from_endless_loader_workers_and_samples_from_the_top_k(tmp_path):
    (tmp_path / "input.txt").write_text("First Citizen: Before we proceed any further, hear me speak. " * 20)
    out = run(tmp_path, "char_gpt.py", "--compile", "--workers", "2", "--iters", "12")
    losses = [float(v) for v in re.findall(r"^iter \d+: loss (\S+)", out, re.M)]
    assert len(losses) == 12 and np.mean(losses[-3:]) < losses[0], out
    sample = re.search(r"^sample: (.*)$", out, re.M).group(1)
    assert len(sample) == 25 and sample[0] == "F" and set(sample) <= set("First Citizen: Before we proceed any "
                                                                          "further, hear me speak. ")
    saved = gg.load(str(tmp_path / "gpt.pt"))
    assert saved["model"]["head.weight"].shape == saved["model"]["tok.weight"].shape


def test_mnist_cnn_trains_under_steplr_and_saves(mnist):
    out = run(mnist, "mnist_cnn.py", "--save-model")
    assert out.count("Train Epoch: 1 [") == out.count("Train Epoch: 2 [") == 4, out
    assert [float(v) for v in re.findall(r"Accuracy: \d+/32 lr (\S+)", out)] == [1.0, 0.7]
    saved = read_by_torch(mnist / "mnist_cnn.pt")
    if saved is not None:
        assert tuple(saved["conv2.weight"].shape) == (16, 8, 3, 3) and tuple(saved["fc1.weight"].shape) == (32, 2304)


def test_regression_by_hand_written_sgd_finds_the_polynomial(tmp_path):
    out = run(tmp_path, "regression.py")
    assert re.search(r"^Loss: 0\.000\d+ after \d+ batches$", out, re.M), out
    learned = floats(r"[+-][\d.]+", re.search(r"^learned:(.*)$", out, re.M).group(1))
    actual = floats(r"[+-][\d.]+", re.search(r"^actual:(.*)$", out, re.M).group(1))
    assert len(learned) == len(actual) == 4 and np.max(np.abs(np.subtract(learned, actual))) < 0.3, out


def test_mnist_rnn_classifies_rows_as_sequences(mnist):
    out = run(mnist, "mnist_rnn.py")
    losses = floats(r"test loss (\S+)", out)
    assert len(losses) == 2 and all(np.isfinite(losses)) and out.count("correct ") == 2, out
    saved = read_by_torch(mnist / "mnist_rnn.pt")
    if saved is not None:
        assert tuple(saved["rnn.weight_ih_l1"].shape) == (128, 32) and "norm.running_var" in saved


def test_sine_lstm_cells_fit_by_lbfgs_and_predict_ahead(tmp_path):
    out = run(tmp_path, "sine_lstm.py")
    losses = [float(v) for v in re.findall(r"^loss: (\S+)$", out, re.M)]
    tests = [float(v) for v in re.findall(r"test loss: (\S+),", out)]
    assert len(losses) >= 6 and losses[-1] < losses[0] and len(tests) == 3 and tests[-1] < tests[0], out
    assert out.count("predicted 49 steps") == 3


def test_super_resolution_upscales_by_pixel_shuffle(tmp_path):
    for split in ("train", "test"):
        write_pictures(str(tmp_path / "images"), [split], 3, (30, 27))
    out = run(tmp_path, "super_resolution.py", "--factor", "3")
    psnr = floats(r"Avg\. PSNR: (\S+) dB", out)
    assert len(psnr) == 2 and all(np.isfinite(psnr)), out
    from PIL import Image
    assert "upscaled (27, 30) -> (81, 90)" in out and Image.open(tmp_path / "upscaled.png").size == (81, 90)


def test_siamese_scores_pairs_through_a_shared_resnet18(mnist):
    out = run(mnist, "siamese.py", "--max-steps", "3")
    steps = [float(v) for v in re.findall(r"^step \d loss (\S+)$", out, re.M)]
    assert len(steps) == 3 and all(np.isfinite(steps)), out
    m = re.search(r"^Test set: Average loss: (\S+), Accuracy: (\d+)/32$", out, re.M)
    assert m and np.isfinite(float(m.group(1))), out
    saved = read_by_torch(mnist / "siamese.pt")
    if saved is not None:
        assert tuple(saved["embed.0.weight"].shape) == (64, 1, 7, 7) and tuple(saved["score.0.weight"].shape) == (32, 1024)


def test_gcn_agrees_sparse_and_dense_and_classifies_nodes(tmp_path):
    out = run(tmp_path, "gcn.py")
    assert "sparse and dense products agree: True" in out, out
    # features carry the class and edges mostly join nodes of one class: well above chance (1/3)
    assert float(re.search(r"test accuracy: (\S+)", out).group(1)) > 0.6, out


def test_forward_forward_trains_each_layer_on_its_own_loss(mnist):
    out = run(mnist, "forward_forward.py")
    assert "training layer 0" in out and "training layer 1" in out and len(floats(r"layer loss (\S+)", out)) == 2
    errors = floats(r"(?:train|test) error: (\S+)", out)
    assert len(errors) == 2 and all(0 <= e <= 1 for e in errors), out


def test_hogwild_processes_train_one_shared_model(mnist):
    out = run(mnist, "hogwild.py", "--num-processes", "2")
    assert "process 0 loss" in out and "process 1 loss" in out, out
    assert "shared weights changed by the processes: True" in out
    assert re.search(r"^Test set: Average loss: \S+, Accuracy: \d+/32$", out, re.M), out


def test_legacy_api_script_ported_by_the_tool_prints_what_pytorch_prints(mnist):
    # written with PyTorch's imports: ported here by tools/port_script.py, as users port theirs
    from script_sources import port_script
    changed = port_script.port_file(os.path.join(SCRIPTS, "legacy_api.py"), str(mnist / "legacy_api.py"))
    assert [old for _, old, _ in changed] == ["import torch", "import torch.nn.functional as F",
                                              "import torch.utils.data as Data", "from torch.autograd import Variable",
                                              "    import torchvision"]
    out = run(mnist, str(mnist / "legacy_api.py"), "--mnist", "data")  # an absolute path: the port
    assert "train_data (64, 28, 28) train_labels (64,)\ntest_x (5, 1, 28, 28) test_labels True\n" in out, out
    assert "fitted w [[2.999]]\nfitted b [0.5]\n" in out and "softmax without dim [[0.09, 0.2447, 0.6652]" in out
    torch = pytest.importorskip("torch")
    theirs = subprocess.run([sys.executable, os.path.join(SCRIPTS, "legacy_api.py")], cwd=mnist, capture_output=True,
                            text=True, timeout=600)
    assert theirs.returncode == 0, theirs.stderr[-3000:]
    assert out.startswith(theirs.stdout) and "Implicit dimension choice for softmax" in theirs.stderr, torch.__version__


def _ported_prints_what_pytorch_prints(folder, script, imports):
    """Ports own_scripts/<script> (written with PyTorch's imports) with tools/port_script.py, runs
    it, and compares its printout with PyTorch's run of the original where torch is installed."""
    from script_sources import port_script
    changed = port_script.port_file(os.path.join(SCRIPTS, script), str(folder / script))
    assert [old for _, old, _ in changed] == imports
    out = run(folder, str(folder / script))  # an absolute path: the port
    torch = pytest.importorskip("torch")
    theirs = subprocess.run([sys.executable, os.path.join(SCRIPTS, script)], cwd=folder, capture_output=True,
                            text=True, timeout=600)
    assert theirs.returncode == 0, theirs.stderr[-3000:]
    assert out == theirs.stdout, (torch.__version__, out, theirs.stdout)
    return out


def test_manual_backprop_matches_autograd_step_by_step(tmp_path):
    out = _ported_prints_what_pytorch_prints(tmp_path, "manual_backprop.py",
                                            ["import torch", "import torch.nn.functional as F"])
    assert out.count("| approximate: True") == 28 and "all agree: True" in out, out
    assert "exact where autograd's steps are the same: True" in out, out
    losses = floats(r"step +\d+ loss (\S+)", out)
    assert len(losses) == 4 and losses[-1] < losses[0] / 2, out


def test_hand_written_layers_train_and_report_their_statistics(tmp_path):
    out = _ported_prints_what_pytorch_prints(tmp_path, "hand_layers.py",
                                            ["import torch", "import torch.nn.functional as F"])
    means = [float(v) for v in re.search(r"mean losses \[([^\]]+)\]", out).group(1).split(",")]
    assert len(means) == 4 and means[-1] < means[0] / 10, out
    assert out.count("grad mean near 0: True") == 3 and "rows agree with the batch: True [4, 9]" in out, out


def test_legacy_rnn_scripts_step_pack_and_stop_where_pytorch_stops(tmp_path):
    out = _ported_prints_what_pytorch_prints(tmp_path, "legacy_rnn.py", [
        "import torch", "import torch.nn as nn", "import torch.nn.functional as F", "from torch import max, tensor",
        "from torch.autograd import Variable", "from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence",
        "from torch.utils.data import DataLoader, Dataset"])
    assert "predicted string: ihello, epoch: 40" in out and "sequence agrees with steps: True" in out, out
    assert "loss.data[0]: IndexError" in out and "0-d target for one row: ValueError" in out, out
    assert "lengths [8, 7, 5, 2] padded [8, 4, 16]" in out, out


BIGRAM_NAMES = ("emma olivia ava isabella sophia charlotte mia amelia harper evelyn abigail emily elizabeth mila "
                "ella avery sofia camila aria scarlett victoria madison luna grace chloe penelope layla riley zoey "
                "nora lily eleanor hannah lillian addison aubrey ellie stella natalie zoe leah hazel violet aurora "
                "savannah audrey brooklyn bella claire skylar lucy paisley everly anna caroline nova quinn jax").split()


def test_bigram_counts_in_a_python_loop_match_numpy_and_the_learned_model(tmp_path):
    (tmp_path / "names.txt").write_text("\n".join(BIGRAM_NAMES) + "\n", encoding="utf-8")
    out = run(tmp_path, "bigram_counts.py")
    chars = sorted(set("".join(BIGRAM_NAMES)))
    stoi = {c: i + 1 for i, c in enumerate(chars)}
    stoi["."] = 0
    pairs = [(stoi[a], stoi[b]) for w in BIGRAM_NAMES for a, b in zip("." + w, w + ".")]
    counts = np.zeros((len(stoi), len(stoi)))
    for a, b in pairs:
        counts[a, b] += 1
    probs = (counts + 1) / (counts + 1).sum(1, keepdims=True)
    nll = -np.mean([np.log(probs[a, b]) for a, b in pairs])
    assert f"pairs {len(pairs)} of {len(pairs)}" in out, out
    assert floats(r"counts nll (\S+)", out) == [round(nll, 4)], out
    samples = re.findall(r"^sample (\S*)\.$", out, re.M)
    assert len(samples) == 3 and set("".join(samples)) <= set(chars), out
    assert floats(r"learned nll (\S+)", out)[0] < np.log(len(stoi)), out  # better than uniform
    hist = [int(h) for h in re.search(r"logit histogram \[([\d, ]+)\]", out).group(1).split(",")]
    assert sum(hist) == len(stoi) ** 2, out
    assert f"shapes [5], [{len(pairs)}]" in out, out


def test_gpt_pretrain_trains_resumes_samples_and_reassigns_weights(tmp_path):
    words = "the cat sat on the mat . a dog ran to the park and the cat saw the dog .".split()
    (tmp_path / "story.txt").write_text(" ".join(words * 30), encoding="utf-8")
    out = run(tmp_path, "gpt_pretrain.py", "--epochs", "3")
    losses = floats(r"train loss (\S+)", out)
    assert len(losses) == 4 and losses[2] < losses[0] and losses[3] < 2 * losses[2], out  # the 4th resumed
    for kind in ("greedy", "sampled"):
        line = re.search(rf"^{kind}: (.*)$", out, re.M).group(1).split()
        assert line[0] == "the" and 1 < len(line) <= 7 and set(line) <= set(words), out
    assert "assigned weights reproduce the model: True" in out
    saved = read_by_torch(tmp_path / "gpt.pth")
    if saved is not None:
        assert saved["model_state_dict"]["tok_emb.weight"].shape == (len(set(words)) + 1, 32)
        assert saved["optimizer_state_dict"]["param_groups"][0]["weight_decay"] == 0.1


def test_d2l_chapters_print_what_pytorch_prints(tmp_path):
    out = _ported_prints_what_pytorch_prints(tmp_path, "d2l_chapters.py", ["import torch", "import torch.nn as nn"])
    assert "object array refused: TypeError" in out and "corr2d agrees with conv2d: True" in out, out
    perplexity = floats(r"perplexity ([\d.]+)", out)
    assert len(perplexity) == 3 and perplexity[-1] < perplexity[0], out
    final = dict(re.findall(r"^(momentum|adagrad|rmsprop|adadelta|adam) ([\d.]+)$", out, re.M))
    assert len(final) == 5 and all(float(v) < 0.5 for v in final.values()), out
