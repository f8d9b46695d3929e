"""ShusenTang/Dive-into-DL-PyTorch (the PyTorch edition of the Chinese "Dive into Deep Learning"),
its chapter notebooks (code/chapterNN_*/) run cell by cell (notebook_cells.py) with their imports
changed only, from $GLASSGRAD_SCRIPT_SOURCES/Dive-into-DL-PyTorch (script_sources.py; without it
these tests skip), beside the course's helper package d2lzh_pytorch, ported the same way.

The course's folders are copied into tmp_path in its layout (code/<chapter>/, code/d2lzh_pytorch,
data/): the notebooks `sys.path.append("..")` to import the helpers and read ../../data.
Fashion-MNIST, which the helpers read from ~/Datasets/FashionMNIST with download=True, is written
there in torchvision's layout (HOME set to tmp_path/home), small and with a learnable class band.
d2lzh_pytorch imports torchtext at its top (for chapter 10's vocabularies); torchtext is not
installed here and no longer builds against current PyTorch, so the tests put
tests/torchtext_stand_in.py beside the code as torchtext.vocab (both frameworks' runs use it).

The cells that raise are the ones PyTorch 2.14.1's run of the same cells raises (checked by
running both), except where DIFFERS says why. Training loops whose epochs are written into a
notebook run fewer (`changes`, the only other lines changed). docs/porting.md has the table."""
import os
import re
import shutil

import pytest

from data_fixtures import write_fashion_mnist
from notebook_cells import IMPORT, assert_raised, code_cells, run_cells
from script_sources import checkout, needs, port_script, source

REPO = "Dive-into-DL-PyTorch"
HERE = os.path.dirname(os.path.abspath(__file__))
NO_GPU = "cannot be used"  # glassgrad's DeviceError on a machine without a usable GPU


def _course(tmp_path, n_train=256, n_test=128):
    """tmp_path/code/d2lzh_pytorch ported (only import lines change), the torchtext stand-in,
    the course's data/ and Fashion-MNIST under tmp_path/home/Datasets."""
    for module in ("IPython", "matplotlib", "tqdm", "PIL"):  # d2lzh_pytorch imports them at its top
        pytest.importorskip(module)
    code = tmp_path / "code"
    changed = port_script.port_tree(source(REPO, "code/d2lzh_pytorch"), str(code / "d2lzh_pytorch"))
    assert changed["utils.py"] and all(IMPORT.match(old) for lines in changed.values() for _, old, _ in lines)
    (code / "torchtext").mkdir()
    (code / "torchtext" / "__init__.py").write_text("from . import vocab\n")
    shutil.copy(os.path.join(HERE, "torchtext_stand_in.py"), code / "torchtext" / "vocab.py")
    shutil.copytree(source(REPO, "data"), tmp_path / "data")
    write_fashion_mnist(str(tmp_path / "home" / "Datasets" / "FashionMNIST"), n_train=n_train, n_test=n_test)


def _run(tmp_path, notebook, raises, changes=None, hide=(), **sizes):
    """Runs code/<notebook> in its chapter's folder; the cells that raised are `raises` ({cell: a
    fragment of its error}). Returns the printout."""
    _course(tmp_path, **sizes)
    folder = tmp_path / "code" / os.path.dirname(notebook)
    folder.mkdir(parents=True, exist_ok=True)
    raised, out, err = run_cells(str(folder), os.path.join(checkout(REPO) or "", "code", notebook), hide=hide,
                                 changes=changes, env={"HOME": str(tmp_path / "home")})
    assert_raised(raised, raises, out, err)
    return out


# notebook -> the cells that raise under PyTorch 2.14.1 too ({cell: a fragment of glassgrad's error})
QUICK = {
    "chapter02_prerequisite/2.2_tensor.ipynb": {},
    "chapter02_prerequisite/2.3_autograd.ipynb": {},
    "chapter03_DL-basics/3.1_linear-regression.ipynb": {},
    "chapter03_DL-basics/3.2_linear-regression-scratch.ipynb": {},
    "chapter03_DL-basics/3.3_linear-regression-pytorch.ipynb": {},
    "chapter03_DL-basics/3.5_fashion-mnist.ipynb": {},
    "chapter03_DL-basics/3.7_softmax-regression-pytorch.ipynb": {},
    "chapter03_DL-basics/3.8_mlp.ipynb": {},
    "chapter03_DL-basics/3.9_mlp-scratch.ipynb": {},
    "chapter03_DL-basics/3.10_mlp-pytorch.ipynb": {},
    "chapter03_DL-basics/3.11_underfit-overfit.ipynb": {},
    "chapter03_DL-basics/3.12_weight-decay.ipynb": {},
    "chapter03_DL-basics/3.13_dropout.ipynb": {},
    # 6: pandas 2 refuses the mean of the text columns the notebook's filter keeps (dtype 'str'
    # is not 'object'); 8: so .values is an object array, which both frameworks refuse; 14, 16:
    # the features 8 never made
    "chapter03_DL-basics/3.16_kaggle-house-price.ipynb": {6: "string dtype", 8: "dtype object",
                                                          14: "train_features", 16: "train_features"},
    "chapter04_DL_computation/4.1_model-construction.ipynb": {},
    "chapter04_DL_computation/4.2_parameters.ipynb": {},
    "chapter04_DL_computation/4.4_custom-layer.ipynb": {},
    "chapter04_DL_computation/4.5_read-write.ipynb": {},
    # no GPU: get_device_name, x.cuda(0), net.cuda() (PyTorch's RuntimeError, glassgrad's DeviceError);
    # cell 4 (current_device()) is in DIFFERS
    "chapter04_DL_computation/4.6_use-gpu.ipynb": {5: NO_GPU, 7: NO_GPU, 13: NO_GPU, 14: NO_GPU},
}

# notebook -> {cell: why it differs from PyTorch's run}; QUICK lists glassgrad's outcome
DIFFERS = {
    "chapter03_DL-basics/3.6_softmax-regression-scratch.ipynb": {
        15: "`iter(test_iter).next()` runs: glassgrad's loader iterators keep the `.next()` PyTorch removed in "
            "1.13 (scripts of that time call it); PyTorch raises AttributeError"},
    "chapter04_DL_computation/4.6_use-gpu.ipynb": {
        4: "`torch.cuda.current_device()` is 0 without a GPU in glassgrad; PyTorch raises RuntimeError (no driver)"},
}
QUICK["chapter03_DL-basics/3.6_softmax-regression-scratch.ipynb"] = {}


# notebook -> printouts PyTorch's run of the original prints too (what no random number decides;
# `torch.Size` and `torch.float64` print with glassgrad's names)
MATCHES = {
    "chapter02_prerequisite/2.2_tensor.ipynb": [
        "tensor([5.5000, 3.0000])", "tensor([[2, 3],\n        [3, 4],\n        [4, 5]])",
        "glassgrad.Size([5, 3]) glassgrad.Size([15]) glassgrad.Size([3, 5])"],
    "chapter02_prerequisite/2.3_autograd.ipynb": [
        "tensor([[27., 27.],\n        [27., 27.]], grad_fn=<MulBackward0>) tensor(27., grad_fn=<MeanBackward0>)",
        "tensor([[4.5000, 4.5000],\n        [4.5000, 4.5000]])\ntensor([[5.5000, 5.5000],\n        [5.5000, 5.5000]])"
        "\ntensor([[1., 1.],\n        [1., 1.]])",
        "tensor([2.0000, 0.2000, 0.0200, 0.0020])", "tensor(2., grad_fn=<AddBackward0>) True\ntensor(2.)",
        # x.data *= 100 between the forward and y.backward(): x's gradient is still 2
        "tensor([100.], requires_grad=True)\ntensor([2.])"],
    "chapter03_DL-basics/3.16_kaggle-house-price.ipynb": ["Out[2]: (1460, 81)", "Out[7]: (2919, 330)"],
    "chapter04_DL_computation/4.2_parameters.ipynb": ["0.weight tensor([[3.]])\nTrue\nTrue\ntensor(9., "
                                                      "grad_fn=<SumBackward0>)\ntensor([[6.]])"],
    "chapter04_DL_computation/4.4_custom-layer.ipynb": [
        "Out[2]: tensor([-2., -1.,  0.,  1.,  2.])",
        "(linear3): Parameter containing: [glassgrad.FloatTensor of size 4x2]",
        "(3): Parameter containing: [glassgrad.float32 of size 4x1]"],
    "chapter04_DL_computation/4.5_read-write.ipynb": [
        "Out[4]: {'x': tensor([1., 1., 1.]), 'y': tensor([0., 0., 0., 0.])}",
        "Out[7]: tensor([[True],\n        [True]])"],
}


MATCHES.update({
    "chapter05_CNN/5.1_conv-layer.ipynb": [
        "Out[2]: tensor([[19., 25.],\n        [37., 43.]])",
        "Out[6]: tensor([[ 0.,  1.,  0.,  0.,  0., -1.,  0.],\n        [ 0.,  1.,  0.,  0.,  0., -1.,  0.],"],
    "chapter05_CNN/5.2_padding-and-strides.ipynb": ["Out[2]: glassgrad.Size([8, 8])\nOut[3]: glassgrad.Size([4, 4])"
                                                    "\nOut[4]: glassgrad.Size([2, 2])"],
    "chapter05_CNN/5.3_channels.ipynb": [
        "Out[5]: tensor([[[ 56.,  72.],\n         [104., 120.]],\n\n        [[ 76., 100.],\n         [148., 172.]],"
        "\n\n        [[ 96., 128.],\n         [192., 224.]]])", "Out[7]: True"],
    "chapter05_CNN/5.4_pooling.ipynb": [
        "Out[3]: tensor([[2., 3.],\n        [5., 6.]])", "Out[5]: tensor([[[[10.]]]])",
        "Out[7]: tensor([[[[ 1.,  3.],\n          [ 9., 11.],\n          [13., 15.]]]])",
        "Out[9]: tensor([[[[ 5.,  7.],\n          [13., 15.]],\n\n         [[ 6.,  8.],\n          [14., 16.]]]])"],
    "chapter05_CNN/5.6_alexnet.ipynb": ["(0): Linear(in_features=6400, out_features=4096, bias=True)"],
    "chapter05_CNN/5.7_vgg.ipynb": ["vgg_block_5 output shape:  glassgrad.Size([1, 512, 7, 7])"],
    "chapter05_CNN/5.11_resnet.ipynb": ["Out[3]: glassgrad.Size([4, 6, 3, 3])",
                                        "resnet_block4  output shape:\t glassgrad.Size([1, 512, 7, 7])"],
    "chapter05_CNN/5.12_densenet.ipynb": ["Out[3]: glassgrad.Size([4, 23, 8, 8])",
                                          "transition_block_2  output shape:\t glassgrad.Size([1, 120, 3, 3])",
                                          "DenseBlosk_3  output shape:\t glassgrad.Size([1, 248, 3, 3])"],
})


def _matches(notebook, out):
    for shown in MATCHES.get(notebook, ()):
        assert shown in out, (shown, out[-3000:])


@needs(REPO)
@pytest.mark.parametrize("notebook", sorted(QUICK))
def test_chapters_2_to_4_run_as_under_pytorch(tmp_path, notebook):
    out = _run(tmp_path, notebook, QUICK[notebook])
    _matches(notebook, out)
    losses = [float(v) for v in re.findall(r"epoch \d+, loss ([\d.]+|nan)", out)]
    assert all(v == v for v in losses), out[-3000:]  # no nan


# The CNN chapter: convolutions and pooling of given inputs print PyTorch's numbers; the networks
# (LeNet to DenseNet, on Fashion-MNIST resized to 224 or 96 as the notebooks do) train the one
# epoch `EPOCH` leaves of their five.
EPOCH = {"lr, num_epochs = 0.001, 5": "lr, num_epochs = 0.001, 1", "lr, num_epochs = 0.002, 5": "lr, num_epochs = 0.002, 1"}
CNN_QUICK = ["5.1_conv-layer", "5.2_padding-and-strides", "5.3_channels", "5.4_pooling", "5.5_lenet", "5.10_batch-norm"]
CNN_SLOW = ["5.6_alexnet", "5.7_vgg", "5.8_nin", "5.9_googlenet", "5.11_resnet", "5.12_densenet"]


def _cnn(tmp_path, name, **sizes):
    notebook = f"chapter05_CNN/{name}.ipynb"
    lines = {line for cell in code_cells(source(REPO, "code/" + notebook)) for line in cell.split("\n")}
    changes = {old: new for old, new in EPOCH.items() if old in lines}
    out = _run(tmp_path, notebook, {}, changes=changes, **sizes)
    _matches(notebook, out)
    epochs = re.findall(r"^epoch 1, loss ([\d.]+), train acc ([\d.]+), test acc ([\d.]+)", out, re.M)
    assert all(float(loss) < 10 for loss, _, _ in epochs), out[-3000:]
    return out, epochs


@needs(REPO)
@pytest.mark.parametrize("name", CNN_QUICK)
def test_cnn_chapter_layers_and_small_networks(tmp_path, name):
    out, epochs = _cnn(tmp_path, name)
    assert len(epochs) == {"5.5_lenet": 1, "5.10_batch-norm": 2}.get(name, 0), out[-3000:]


@needs(REPO)
@pytest.mark.slow  # 1-3 minutes each on a loaded 2-core CPU (PyTorch's took about as long)
@pytest.mark.parametrize("name", CNN_SLOW)
def test_cnn_chapter_classic_networks_train_an_epoch(tmp_path, name):
    out, epochs = _cnn(tmp_path, name, n_train=128, n_test=64)
    assert len(epochs) == 1, out[-3000:]
