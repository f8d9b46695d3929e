"""dsgiitr/d2l-pytorch (Dive into Deep Learning's chapters ported to PyTorch), its chapter
notebooks (ChNN_*/) run cell by cell (notebook_cells.py) with their imports changed only, from
$GLASSGRAD_SCRIPT_SOURCES/d2l-pytorch (script_sources.py; without it these tests skip), beside
the book's helper package d2l/, ported the same way.

The repository's layout is rebuilt in tmp_path (<chapter>/, d2l/, data/, img/): the notebooks
`sys.path.insert(0, '..')` to import d2l and read ../data and ../img. Fashion-MNIST, which
d2l.load_data_fashion_mnist reads from ~/.pytorch/datasets/fashion-mnist with download=True, is
written there in torchvision's layout (HOME set to tmp_path/home), small and with a learnable
class band; the notebooks that open MNIST or Fashion-MNIST themselves (root './data', './') find
the same small files in their folder. d2l/ssd_utils.py imports OpenCV (cv2) at its top for the
SSD chapter's drawing; OpenCV is not installed here, so a stand-in module `cv2` whose every
attribute raises AttributeError sits beside d2l/ (both frameworks' runs use it).

The cells that raise are the ones PyTorch 2.14.1's run of the same cells raises (checked by
running both), with the message start noted where it differs. Training loops run one epoch
(`num_epochs = 1`, in the lines SETTING matches: the only other lines changed). docs/porting.md has
the table."""
import contextlib
import http.server
import io
import os
import re
import shutil
import threading
import zipfile

import pytest

from data_fixtures import write_fashion_mnist, write_mnist
from notebook_cells import assert_raised, code_cells, run_cells
from script_sources import checkout, needs, port_script, source

REPO = "d2l-pytorch"
CV2_STAND_IN = ('"""Stand-in for OpenCV, which is not installed: d2l/ssd_utils.py imports it at its top."""\n\n\n'
                "def __getattr__(name):\n"
                "    raise AttributeError(f'cv2.{name}: OpenCV is not installed (a test stand-in)')\n")
NO_GPU = "cannot be used"  # glassgrad's DeviceError on a machine without a usable GPU


def _course(tmp_path, chapter):
    """tmp_path/d2l and tmp_path/<chapter> ported (only import lines change), data/ copied, img/
    linked, the cv2 stand-in, Fashion-MNIST under tmp_path/home and MNIST and Fashion-MNIST in
    the chapter's folder."""
    for module in ("IPython", "matplotlib", "tqdm", "PIL", "requests"):  # d2l imports them at its top
        pytest.importorskip(module)
    port_script.port_tree(source(REPO, "d2l"), str(tmp_path / "d2l"))
    port_script.port_tree(source(REPO, chapter), str(tmp_path / chapter))
    shutil.copytree(source(REPO, "data"), tmp_path / "data")
    os.symlink(source(REPO, "img"), tmp_path / "img")
    (tmp_path / "cv2.py").write_text(CV2_STAND_IN)
    write_fashion_mnist(str(tmp_path / "home" / ".pytorch" / "datasets" / "fashion-mnist"), n_train=512, n_test=128)
    write_mnist(str(tmp_path / chapter / "data"), n_train=64, n_test=16)
    write_fashion_mnist(str(tmp_path / chapter), n_train=256, n_test=64)


# a line of its own setting the epoch count, alone or among others: `num_epochs = 3`,
# `lr, num_epochs, batch_size, device = 0.1, 5, 128, d2l.try_gpu()`
SETTING = re.compile(r"^(?P<names>(?:\w+, )*num_epochs(?:, \w+)*) = (?P<values>[^=]+?)(?P<note>\s*#.*)?$")


def fewer_epochs(path, epochs):
    """`changes` for run_cells setting the notebook's epoch counts to `epochs` (SETTING's lines)."""
    changes = {}
    for line in {line for cell in code_cells(path) for line in cell.split("\n")}:
        m = SETTING.match(line)
        names, values = (m.group("names").split(", "), m.group("values").split(", ")) if m else ([], [None])
        if len(names) == len(values):
            values = [str(epochs) if name == "num_epochs" else v for name, v in zip(names, values)]
            changes[line] = f"{m.group('names')} = {', '.join(values)}{m.group('note') or ''}"
    return changes


# Tatoeba's English-French pairs (fra-eng.zip's fra.txt: `English<TAB>French<TAB>attribution`
# lines in the current file, two columns in the one the book read), small: every word occurs
# at least 3 times (the book's vocabularies keep min_freq=3)
PAIRS = [("Go.", "Va !"), ("Wow!", "Ça alors !"), ("I'm OK.", "Je vais bien."), ("I won!", "J'ai gagné !"),
         ("Run!", "Cours !"), ("I see.", "Je vois."), ("Stop!", "Arrête !"), ("Help!", "À l'aide !"),
         ("I ran.", "J'ai couru."), ("I'm sad.", "Je suis triste."), ("Go away.", "Va-t'en."), ("We won.", "Nous avons gagné.")]


def fra_eng_zip():
    """fra-eng.zip's bytes: fra.txt of PAIRS, each 4 times, in the two-column layout."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("fra.txt", "".join(f"{en}\t{fr}\n" for _ in range(4) for en, fr in PAIRS))
    return buf.getvalue()


@contextlib.contextmanager
def serving(body):
    """An HTTP proxy on localhost answering every GET with `body`, or, `body` a {file name: bytes}
    mapping, with the file the URL's last part names (404 for others): d2l.load_data_nmt downloads
    fra-eng.zip over plain HTTP with requests, which goes through HTTP_PROXY. Yields the proxy's
    address."""
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            data = body.get(self.path.rsplit("/", 1)[-1]) if isinstance(body, dict) else body
            if data is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _run(tmp_path, notebook, raises, epochs=1, changes=None):
    """Runs <notebook> in its chapter's folder with its epoch counts set to `epochs` and
    `changes`; the cells that raised are `raises` ({cell: a fragment of its error}). Returns
    the printout."""
    chapter = os.path.dirname(notebook)
    _course(tmp_path, chapter)
    (tmp_path / chapter / "fra-eng.zip").write_bytes(fra_eng_zip())  # what the notebooks' `!wget` fetches
    path = os.path.join(checkout(REPO) or "", notebook)
    with serving(fra_eng_zip()) as proxy:
        raised, out, err = run_cells(str(tmp_path / chapter), path, changes={**fewer_epochs(path, epochs), **(changes or {})},
                                     env={"HOME": str(tmp_path / "home"), "HTTP_PROXY": proxy, "http_proxy": proxy})
    assert_raised(raised, raises, out, err)
    return out


NUMPY_FROM_GRAD = "Can't call numpy() on Tensor that requires grad"
# notebook -> the cells that raise under PyTorch 2.14.1 too ({cell: a fragment of the error})
NOTEBOOKS = {
    "Ch04_The_Preliminaries_A_Crashcourse/Automatic_Differentiation.ipynb": {},
    # np.asscalar, removed in NumPy 1.23
    "Ch04_The_Preliminaries_A_Crashcourse/Data_Manipulation.ipynb": {19: "has no attribute 'asscalar'"},
    "Ch04_The_Preliminaries_A_Crashcourse/Documentation.ipynb": {},
    "Ch04_The_Preliminaries_A_Crashcourse/Linear_Algebra.ipynb": {},
    "Ch04_The_Preliminaries_A_Crashcourse/Probability_and_Statistics.ipynb": {},
    "Ch05_Linear_Neural_Networks/Concise_Implementation_of_Softmax_Regression.ipynb": {},
    # `mnist_train[0][0].dtype` of a label: torchvision's FashionMNIST gives int labels
    "Ch05_Linear_Neural_Networks/Image_Classification_Data(Fashion-MNIST).ipynb": {
        6: "'int' object has no attribute 'dtype'"},
    "Ch05_Linear_Neural_Networks/Implementation_of_Softmax_Regression_from_Scratch.ipynb": {},
    "Ch05_Linear_Neural_Networks/Linear_Regression.ipynb": {},
    "Ch05_Linear_Neural_Networks/Linear_Regression_Implementation_from_Scratch.ipynb": {},
    "Ch05_Linear_Neural_Networks/Softmax_Regression.ipynb": {},
    "Ch06_Multilayer_Perceptrons/Concise_Implementation_of_Multilayer_Perceptron.ipynb": {},
    "Ch06_Multilayer_Perceptrons/Considering_The_Environment.ipynb": {},
    "Ch06_Multilayer_Perceptrons/Dropout.ipynb": {},
    "Ch06_Multilayer_Perceptrons/Forward_Propagation_Backward_Propagation_and_Computational_Graphs.ipynb": {},
    "Ch06_Multilayer_Perceptrons/Implementation_of_Multilayer_Perceptron_from_Scratch.ipynb": {},
    # plt.semilogy of a loss that requires grad: Matplotlib calls its numpy()
    "Ch06_Multilayer_Perceptrons/Model_Selection_Underfitting_and_Overfitting.ipynb": {
        6: NUMPY_FROM_GRAD, 7: NUMPY_FROM_GRAD, 8: NUMPY_FROM_GRAD},
    "Ch06_Multilayer_Perceptrons/Multilayer_Perceptron.ipynb": {},
    # pandas 3 refuses the mean of the text columns the notebook's standardization keeps
    "Ch06_Multilayer_Perceptrons/Predicting_House_Prices_on_Kaggle.ipynb": {7: "reduction 'mean' with string dtype"},
    "Ch06_Multilayer_Perceptrons/Weight_Decay.ipynb": {},
    "Ch07_Deep_Learning_Computation/Custom_Layers.ipynb": {},
    "Ch07_Deep_Learning_Computation/Deferred_Initialization.ipynb": {},
    "Ch07_Deep_Learning_Computation/File_I_O.ipynb": {},
    # no GPU: tensors and a model put on cuda:0 / cuda:1 (PyTorch's RuntimeError, glassgrad's
    # DeviceError), the cells using them, and 13, a float Linear applied to an int64 tensor
    "Ch07_Deep_Learning_Computation/GPUs.ipynb": {3: NO_GPU, 4: NO_GPU, 6: NO_GPU, 7: "name 'y'", 8: "name 'z'",
                                                  10: "name 'y'", 11: "name 'y'", 12: NO_GPU,
                                                  13: "input is int64 but the layer's parameters are float32"},
    # the notebook's first cell shows `net1`, defined further down
    "Ch07_Deep_Learning_Computation/Layers_and_Blocks.ipynb": {0: "name 'net1' is not defined"},
    "Ch07_Deep_Learning_Computation/Parameter_Management.ipynb": {},
    "Ch08_Convolutional_Neural_Networks/Convolutional_Neural_Networks(LeNet).ipynb": {},
    "Ch08_Convolutional_Neural_Networks/Convolutions_For_Images.ipynb": {},
    "Ch08_Convolutional_Neural_Networks/From_Dense_Layers_to_Convolutions.ipynb": {},
    "Ch08_Convolutional_Neural_Networks/Multiple_Input_and_Output_Channels.ipynb": {},
    # pictures the repository does not have at the path the notebook names (img/ beside it)
    "Ch08_Convolutional_Neural_Networks/Padding_and_Stride.ipynb": {0: "img/padding.png", 3: "img/stride.png"},
    "Ch08_Convolutional_Neural_Networks/Pooling.ipynb": {},
    "Ch10_Recurrent_Neural_Networks/Backpropagation_Through_Time.ipynb": {},
    "Ch10_Recurrent_Neural_Networks/Beam_Search.ipynb": {},
    # IPython's SVG() of a figure the repository keeps in a form it cannot parse
    "Ch10_Recurrent_Neural_Networks/Encoder-Decoder_Architecture.ipynb": {0: "ExpatError"},
    "Ch10_Recurrent_Neural_Networks/Language_Models.ipynb": {},
    "Ch10_Recurrent_Neural_Networks/Machine_Translation_and_Data_Sets.ipynb": {},
    "Ch10_Recurrent_Neural_Networks/Recurrent_Neural_Networks.ipynb": {},
    "Ch10_Recurrent_Neural_Networks/Sequence_Models.ipynb": {},
    "Ch10_Recurrent_Neural_Networks/Sequence_to_Sequence.ipynb": {},
    "Ch10_Recurrent_Neural_Networks/Text_Preprocessing.ipynb": {},
    "Ch11_Attention_Mechanism/Attention_Mechanism.ipynb": {0: "ExpatError"},
    # set_default_tensor_type('torch.cuda.FloatTensor') at their top: without a GPU the first
    # tensor made raises (PyTorch's 'Found no NVIDIA driver'), the cells before it run
    "Ch10_Recurrent_Neural_Networks/Deep_Recurrent_Neural_Networks.ipynb": {0: "ExpatError", 4: NO_GPU},
    "Ch10_Recurrent_Neural_Networks/Gated_Recurrent_Units.ipynb": {9: NO_GPU},
    # its parameters made as torch.Tensor(size=shape, device=ctx)
    "Ch10_Recurrent_Neural_Networks/Implementation_of_Recurrent_Neural_Networks_from_Scratch.ipynb": {},
    "Ch10_Recurrent_Neural_Networks/Long_Short_Term_Memory.ipynb": {10: NO_GPU},
    "Ch12_Optimization_Algorithms/Convexity.ipynb": {},
    "Ch12_Optimization_Algorithms/Gradient_Descent.ipynb": {},
    # the plotted losses still require grad (Matplotlib calls their numpy()); 8 uses what 4-7 never made
    "Ch12_Optimization_Algorithms/Mini-batch_Stochastic_Gradient_Descent.ipynb": {
        4: NUMPY_FROM_GRAD, 5: NUMPY_FROM_GRAD, 6: NUMPY_FROM_GRAD, 7: NUMPY_FROM_GRAD, 8: "name 'gd_res'"},
    "Ch12_Optimization_Algorithms/Momentum.ipynb": {},
    "Ch12_Optimization_Algorithms/Optimization_And_Deep_Learning.ipynb": {},
    "Ch12_Optimization_Algorithms/RMSProp.ipynb": {},
    # this notebook imports d2l without putting '..' on its path first
    "Ch12_Optimization_Algorithms/Stochastic_Gradient_Descent.ipynb": {0: "No module named 'd2l'", 1: "name 'd2l'"},
    # the notebook writes float offsets into an int64 tensor by index (PyTorch's RuntimeError too)
    "Ch14_Computer_Vision/Anchor_Boxes.ipynb": {7: "Index put requires the source and destination dtypes match",
                                                8: "name 'labels'", 9: "name 'labels'", 10: "name 'labels'"},
    "Ch14_Computer_Vision/Multiscale_Object_Detection.ipynb": {},
    "Ch14_Computer_Vision/Object_Detection_Data_Set.ipynb": {},
    "Ch14_Computer_Vision/Object_Detection_and_Bounding_Boxes.ipynb": {},
}
SLOW = set()

# notebook -> printouts PyTorch's run prints alike (what no random number decides; `torch.Size`
# prints with glassgrad's name)
MATCHES = {
    "Ch04_The_Preliminaries_A_Crashcourse/Automatic_Differentiation.ipynb": [
        "tensor([[28.]], grad_fn=<MulBackward0>)\nx.grad: tensor([[ 0.],\n        [ 4.],\n        [ 8.],\n        [12.]])",
        "tensor([[0.0000],\n        [4.0000],\n        [0.8000],\n        [0.1200]])"],
    "Ch04_The_Preliminaries_A_Crashcourse/Data_Manipulation.ipynb": [
        "Out[1]: tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11.],\n       dtype=glassgrad.float64)",
        "Out[13]: tensor([2.7183e+00, 7.3891e+00, 5.4598e+01, 2.9810e+03])",
        "Out[17]: tensor([[False,  True, False,  True],\n        [False, False, False, False],\n        [False, False, False, "
        "False]])\nOut[18]: tensor(66.)",
        "Out[24]: tensor([[12., 12., 12., 12.],\n        [12., 12., 12., 12.],\n        [ 8.,  9., 10., 11.]])",
        "<class 'glassgrad.Tensor'>"],
    "Ch04_The_Preliminaries_A_Crashcourse/Linear_Algebra.ipynb": [
        "x ** y =  tensor([9.])", "X.shape = glassgrad.Size([2, 3, 4])",
        "Out[17]: tensor([ 14.,  38.,  62.,  86., 110.])", "Out[19]: tensor(3.7417)"],
    "Ch05_Linear_Neural_Networks/Implementation_of_Softmax_Regression_from_Scratch.ipynb": [
        "Out[4]: (tensor([[5, 7, 9]]), tensor([[ 6],\n        [15]]))", "Out[8]: tensor([[0.1000],\n        [0.5000]])"],
    "Ch07_Deep_Learning_Computation/File_I_O.ipynb": [  # tensors, lists, dicts and a state_dict saved and read back
        "Out[3]: (tensor([0., 1., 2., 3.]), tensor([0., 0., 0., 0.]))",
        "Out[4]: {'x': tensor([0., 1., 2., 3.]), 'y': tensor([0., 0., 0., 0.])}",
        "Out[8]: tensor([[True, True, True, True, True, True, True, True, True, True],\n        [True, True, True, True, True, "
        "True, True, True, True, True]])"],
    "Ch07_Deep_Learning_Computation/GPUs.ipynb": ["Out[1]: (device(type='cpu'), <glassgrad.cuda.device object at 0x",
                                                  "Out[9]: tensor([1, 2, 3])"],
    "Ch07_Deep_Learning_Computation/Parameter_Management.ipynb": [
        "<bound method Module.parameters of Linear(in_features=20, out_features=256, bias=False)>",
        "glassgrad.Size([32, 16]) glassgrad.float32\nglassgrad.Size([32]) glassgrad.float32"],
    "Ch08_Convolutional_Neural_Networks/Convolutions_For_Images.ipynb": [  # cross-correlation by hand, edges
        "Out[2]: tensor([[19., 25.],\n        [37., 43.]])",
        "Out[6]: tensor([[ 0.,  1.,  0.,  0.,  0., -1.,  0.],\n        [ 0.,  1.,  0.,  0.,  0., -1.,  0.],"],
}


def _matches(notebook, out):
    for shown in MATCHES.get(notebook, ()):
        assert shown in out, (shown, out[-3000:])


@needs(REPO)
@pytest.mark.parametrize("notebook", [pytest.param(n, marks=[pytest.mark.slow] if n in SLOW else [])
                                      for n in sorted(NOTEBOOKS)])
def test_notebooks_run_as_under_pytorch(tmp_path, notebook):
    out = _run(tmp_path, notebook, NOTEBOOKS[notebook])
    _matches(notebook, out)
    losses = [float(v) for v in re.findall(r"epoch \d+, loss ([\d.]+|nan)", out)]
    assert all(v == v and v < 10 for v in losses), out[-3000:]  # no nan, no divergence
