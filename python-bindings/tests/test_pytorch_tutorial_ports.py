"""yunjey/pytorch-tutorial's scripts run with their imports changed only, ported by
tools/port_script.py from a checkout at $GLASSGRAD_SCRIPT_SOURCES/yunjey-pytorch-tutorial
(script_sources.py; the tests that run them skip without it) into tmp_path in the repository's
own layout. Each test writes a small data set where the scripts read it ('../../data'
from a script's folder: tutorials/data). The scripts hard-code their hyper-parameters, epochs
included, so the data's size alone sets how many steps they take."""
import os
import re
import sys

import numpy as np
import pytest

import glassgrad as gg
from data_fixtures import write_cifar, write_mnist
from test_ported_scripts import _check, _copy, _run, needs_sources


def _tutorial(tmp_path, mnist=None, cifar=None):
    """The ported tree in tmp_path/run; mnist=(n_train, n_test) and cifar=(per batch, n_test)
    write those data sets to tutorials/data. Returns the tutorials folder."""
    tutorials = os.path.join(_copy("pytorch_tutorial", tmp_path / "run"), "tutorials")
    if mnist:
        write_mnist(os.path.join(tutorials, "data"), n_train=mnist[0], n_test=mnist[1])
    if cifar:
        write_cifar(os.path.join(tutorials, "data"), n_per_batch=cifar[0], n_test=cifar[1])
    return tutorials


def _main(tutorials, folder):
    """Runs folder/main.py from its own folder, as the tutorial's README says to."""
    run = os.path.join(tutorials, folder)
    return _run([sys.executable, "main.py"], run), run


def _trains(tutorials, folder, printed):
    """Runs folder/main.py, checks that it succeeds and prints the `printed` pattern; returns its folder."""
    proc, run = _main(tutorials, folder)
    _check(proc, folder)
    assert re.search(printed, proc.stdout), proc.stdout
    return run


ACCURACY = r"Test Accuracy of the model on the 10000 test images: [\d.]+ %"


def _state_dict_read_by_torch(path):
    """The checkpoint as PyTorch reads it (weights_only=True: plain tensors, nothing pickled
    beyond them); None without torch."""
    try:
        import torch
    except ImportError:
        return None
    return torch.load(path, weights_only=True, map_location="cpu")  # saved on the default device


@needs_sources("pytorch_tutorial")
def test_pytorch_basics_runs_until_its_empty_shuffled_loader_which_pytorch_refuses_too(tmp_path):
    tutorials = _tutorial(tmp_path, cifar=(16, 8))
    proc, _ = _main(tutorials, "01-basics/pytorch_basics")
    # 1. autograd on scalars; 2. a Linear layer's gradients and one SGD step; 3. numpy both ways;
    # 4. CIFAR-10 read with download=True (the files are there), `iter(loader).next()`, an epoch.
    assert proc.stdout.startswith("tensor(2.)\ntensor(1.)\ntensor(1.)\nw:  Parameter containing:\n"), proc.stdout
    before = float(re.search(r"^loss:  (\S+)$", proc.stdout, re.M).group(1))
    after = float(re.search(r"^loss after 1 step optimization:  (\S+)$", proc.stdout, re.M).group(1))
    assert after < before
    assert "Size([3, 32, 32])\n" in proc.stdout and re.search(r"^\d$", proc.stdout, re.M)
    # 5. DataLoader(custom_dataset, shuffle=True) of a dataset whose __len__ is 0: PyTorch's
    # RandomSampler has refused an empty dataset since long after the tutorial was written, and
    # glassgrad's raises the same error, so the run ends here (sections 6 and 7 do not run).
    assert proc.returncode == 1
    message = "num_samples should be a positive integer value, but got num_samples=0"
    assert 'main.py", line 154, in <module>' in proc.stderr and f"ValueError: {message}" in proc.stderr, proc.stderr
    torch = pytest.importorskip("torch")

    class Empty(torch.utils.data.Dataset):
        def __getitem__(self, index):
            pass

        def __len__(self):
            return 0
    with pytest.raises(ValueError, match=message):
        torch.utils.data.DataLoader(dataset=Empty(), batch_size=64, shuffle=True)


def test_pytorch_basics_pretrained_resnet18_raises_the_clear_error_instead_of_downloading():
    # Section 6's `torchvision.models.resnet18(pretrained=True)` downloads torchvision's weights:
    # glassgrad downloads nothing and says how to load a saved state_dict.
    import glassgrad.vision as torchvision
    with pytest.raises(gg.UnsupportedError, match=r"resnet18\(pretrained=True\): glassgrad bundles no pretrained "
                                                  r"weights and downloads nothing\n  fix: model = resnet18\(weights="
                                                  r"None\); model.load_state_dict\(glassgrad.load\('resnet18.pth'\)\)"):
        torchvision.models.resnet18(pretrained=True)


def test_loader_iterators_keep_the_old_next_method():
    # `data_iter.next()` (pytorch_basics, line 124): PyTorch's loader iterators had it until 1.13.
    loader = gg.utils.data.DataLoader(list(range(5)), batch_size=2)
    it = iter(loader)
    assert it.next().tolist() == [0, 1] and next(it).tolist() == [2, 3] and it.next().tolist() == [4]
    with pytest.raises(StopIteration):
        it.next()


@pytest.mark.parametrize("folder, keys", [
    ("01-basics/logistic_regression", {"weight": (10, 784), "bias": (10,)}),
    ("01-basics/feedforward_neural_network", {"fc1.weight": (500, 784), "fc1.bias": (500,),
                                              "fc2.weight": (10, 500), "fc2.bias": (10,)}),
])
@needs_sources("pytorch_tutorial")
def test_mnist_linear_models_train_test_and_save(tmp_path, folder, keys):
    # 200 training images: 2 steps an epoch, the scripts' 5 epochs; 100 test images.
    tutorials = _tutorial(tmp_path, mnist=(200, 100))
    proc, run = _main(tutorials, folder)
    _check(proc, folder)
    accuracy = re.search(r"on the 10000 test images: (?:tensor\()?([\d.]+)\)? %", proc.stdout)
    assert accuracy and 0 <= float(accuracy.group(1)) <= 100, proc.stdout
    saved = _state_dict_read_by_torch(os.path.join(run, "model.ckpt"))
    if saved is not None:
        assert {k: tuple(v.shape) for k, v in saved.items()} == keys


@needs_sources("pytorch_tutorial")
def test_linear_regression_fits_and_plots(tmp_path):
    pytest.importorskip("matplotlib")
    tutorials = _tutorial(tmp_path)
    proc, run = _main(tutorials, "01-basics/linear_regression")
    _check(proc, "linear_regression")
    losses = [float(v) for v in re.findall(r"^Epoch \[\d+/60\], Loss: (\S+)$", proc.stdout, re.M)]
    assert len(losses) == 12 and all(b <= a for a, b in zip(losses, losses[1:])), proc.stdout
    # The saved line's mean squared error on the script's own points is the loss it printed last,
    # one SGD step later (lr 0.001: within a few thousandths).
    saved = gg.load(os.path.join(run, "model.ckpt"))
    x = np.array([3.3, 4.4, 5.5, 6.71, 6.93, 4.168, 9.779, 6.182, 7.59, 2.167, 7.042, 10.791, 5.313, 7.997, 3.1])
    y = np.array([1.7, 2.76, 2.09, 3.19, 1.694, 1.573, 3.366, 2.596, 2.53, 1.221, 2.827, 3.465, 1.65, 2.904, 1.3])
    w, b = float(saved["weight"].item()), float(saved["bias"].item())
    assert abs(np.mean((w * x + b - y) ** 2) - losses[-1]) < 5e-3


@needs_sources("pytorch_tutorial")
def test_convolutional_neural_network_trains_with_batchnorm_and_saves(tmp_path):
    tutorials = _tutorial(tmp_path, mnist=(200, 100))
    run = _trains(tutorials, "02-intermediate/convolutional_neural_network", ACCURACY)
    saved = _state_dict_read_by_torch(os.path.join(run, "model.ckpt"))
    if saved is not None:
        assert saved["layer1.0.weight"].shape == (16, 1, 5, 5) and saved["fc.weight"].shape == (10, 7 * 7 * 32)
        assert int(saved["layer2.1.num_batches_tracked"]) == 2 * 5  # 2 steps an epoch, 5 epochs


@pytest.mark.parametrize("folder, hidden", [("02-intermediate/recurrent_neural_network", 128),
                                            ("02-intermediate/bidirectional_recurrent_neural_network", 256)])
@needs_sources("pytorch_tutorial")
def test_lstm_classifiers_read_rows_as_sequences(tmp_path, folder, hidden):
    tutorials = _tutorial(tmp_path, mnist=(100, 100))
    run = _trains(tutorials, folder, ACCURACY)
    saved = _state_dict_read_by_torch(os.path.join(run, "model.ckpt"))
    if saved is not None:
        assert saved["fc.weight"].shape == (10, hidden) and saved["lstm.weight_ih_l1"].shape == (4 * 128, hidden)
        assert ("lstm.weight_hh_l1_reverse" in saved) == (hidden == 256)


@pytest.mark.slow
@needs_sources("pytorch_tutorial")
def test_deep_residual_network_trains_its_80_epochs_on_cifar(tmp_path):
    # 5 training batches of 2 images: one step an epoch, 80 epochs with the learning rate cut
    # every 20 (its `param_group['lr'] = lr`), transforms Pad, RandomHorizontalFlip, RandomCrop.
    tutorials = _tutorial(tmp_path, cifar=(2, 10))
    run = _trains(tutorials, "02-intermediate/deep_residual_network", r"Accuracy of the model on the test images: [\d.]+ %")
    saved = _state_dict_read_by_torch(os.path.join(run, "resnet.ckpt"))
    if saved is not None:
        assert saved["layer2.0.downsample.0.weight"].shape == (32, 16, 3, 3)
        assert int(saved["bn.num_batches_tracked"]) == 80


# slow: its 1,000 sampled words are 1,000 one-token steps of a 1,024-wide LSTM (12-16 s on a 2-core CPU)
@pytest.mark.slow
@needs_sources("pytorch_tutorial")
def test_language_model_trains_and_samples_1000_words(tmp_path):
    tutorials = _tutorial(tmp_path)
    folder = os.path.join(tutorials, "02-intermediate", "language_model")
    # 20 rows of 50 tokens: one step of 30 an epoch (in place of the repository's Penn Treebank
    # text, not vendored, read the same way).
    words = ["the", "cat", "sat", "on", "a", "mat", "and", "ran"]
    rng = np.random.default_rng(0)
    os.makedirs(os.path.join(folder, "data"))
    with open(os.path.join(folder, "data", "train.txt"), "w") as f:
        f.write("\n".join(" ".join(rng.choice(words, 9)) for _ in range(100)) + "\n")
    proc, _ = _main(tutorials, "02-intermediate/language_model")
    _check(proc, "language_model")
    assert "Epoch [1/5], Step[0/1], Loss:" in proc.stdout and "Epoch [5/5], Step[0/1], Loss:" in proc.stdout
    assert "Sampled [1000/1000] words and save to sample.txt" in proc.stdout
    with open(os.path.join(folder, "sample.txt")) as f:
        sampled = f.read()
    assert len(sampled.split()) + sampled.count("\n") == 1000 and set(sampled.split()) <= set(words)


@pytest.mark.slow
@needs_sources("pytorch_tutorial")
def test_generative_adversarial_network_trains_200_epochs_and_saves_grids(tmp_path):
    # 100 images: one step of the script's batch of 100 an epoch (it reshapes to batch_size).
    tutorials = _tutorial(tmp_path, mnist=(100, 1))
    proc, run = _main(tutorials, "03-advanced/generative_adversarial_network")
    _check(proc, "generative_adversarial_network")
    samples = os.listdir(os.path.join(run, "samples"))
    assert sorted(samples) == sorted(["real_images.png"] + [f"fake_images-{e}.png" for e in range(1, 201)])
    from PIL import Image
    # save_image's grid: 8 columns of 28 + 2 padding, 13 rows for 100 images, 2 more padding.
    assert Image.open(os.path.join(run, "samples", "fake_images-200.png")).size == (8 * 30 + 2, 13 * 30 + 2)
    assert set(_state_dict_read_by_torch(os.path.join(run, "G.ckpt")) or ["0.weight"]) >= {"0.weight"}


@needs_sources("pytorch_tutorial")
def test_variational_autoencoder_trains_and_saves_samples_and_reconstructions(tmp_path):
    # 128 images: one step of its batch of 128 an epoch, 15 epochs; F.binary_cross_entropy with
    # the legacy size_average=False (a sum, with PyTorch's deprecation warning).
    tutorials = _tutorial(tmp_path, mnist=(128, 1))
    proc, run = _main(tutorials, "03-advanced/variational_autoencoder")
    _check(proc, "variational_autoencoder")
    assert "size_average and reduce args will be deprecated, please use reduction='sum' instead." in proc.stderr
    samples = sorted(os.listdir(os.path.join(run, "samples")))
    assert samples == sorted([f"{k}-{e}.png" for k in ("sampled", "reconst") for e in range(1, 16)])
    from PIL import Image
    # reconst: 128 pairs side by side (28 x 56), 8 columns, 16 rows, padding 2
    assert Image.open(os.path.join(run, "samples", "reconst-15.png")).size == (8 * 58 + 2, 16 * 30 + 2)
    assert Image.open(os.path.join(run, "samples", "sampled-15.png")).size == (8 * 30 + 2, 16 * 30 + 2)
