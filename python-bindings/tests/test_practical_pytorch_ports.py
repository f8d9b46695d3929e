"""spro/practical-pytorch (character-level RNN classification and generation, a conditional name
generator, seq2seq translation with attention, REINFORCE on a grid world), ported on the fly with
their imports changed only from $GLASSGRAD_SCRIPT_SOURCES/practical-pytorch (script_sources.py;
without it these tests skip). Each notebook runs cell by cell (notebook_cells.py), each script in
its folder, in a ported copy laid out as the repository: its data/names/ files, and the two files
it reads but does not carry written here, data/shakespeare.txt (a sonnet, four times) and
data/eng-fra.txt (ten tab-separated sentence pairs in the tutorial's format).

Written for PyTorch 0.2, they stop where PyTorch 2.14 stops them too, with the same error: at
`loss.data[0]` of a 0-d loss (IndexError), at CrossEntropyLoss given a (1, C) row and a 0-d
target (ValueError, 'Expected input batch_size (1) to match target batch_size (0).'), at `.cuda()`
with no GPU (USE_CUDA = True in the translation notebook: PyTorch's RuntimeError says it found
no NVIDIA driver, glassgrad's DeviceError, also a RuntimeError, that this build has no CUDA
kernels), at the model files training never saved (FileNotFoundError). With the one line
`loss.data[0]` changed to `loss.item()` (and fewer epochs), char-rnn-classification's train.py
runs to its end and saves the whole model, which predict.py's torch.load then refuses under
weights_only=True (PyTorch's default since 2.6) with pickle.UnpicklingError, in both.

Every notebook and script here also ran under PyTorch 2.14.1 on the same files (a driver outside
the repository): the cells that raise are the ones PyTorch's run raises, and the lines checked
are printed alike. Not run: glove-word-vectors (torchtext's GloVe download),
seq2seq-translation-batched (visdom and sconce, and its .py uses classes before defining them),
reinforce-gridworld.py and char-rnn-classification/server.py (sconce, bottle)."""
import builtins
import os
import subprocess
import sys

import pytest

import glassgrad as gg
from notebook_cells import check_cells
from script_sources import checkout, needs, port_script
from test_ported_scripts import _env

REPO = "practical-pytorch"
DATA_INDEX = "invalid index of a 0-dim tensor. Use `tensor.item()`"
ROW_AND_0D = "Expected input batch_size (1) to match target batch_size (0)."
NO_GPU = "cuda"
SONNET = """Shall I compare thee to a summer's day?
Thou art more lovely and more temperate:
Rough winds do shake the darling buds of May,
And summer's lease hath all too short a date;
Sometime too hot the eye of heaven shines,
And often is his gold complexion dimm'd;
And every fair from fair sometime declines,
By chance or nature's changing course untrimm'd;
But thy eternal summer shall not fade,
Nor lose possession of that fair thou ow'st;
Nor shall death brag thou wander'st in his shade,
When in eternal lines to time thou grow'st:
So long as men can breathe or eyes can see,
So long lives this, and this gives life to thee.
"""
PAIRS = [("I am cold .", "J ai froid ."), ("I am tired .", "Je suis fatigue ."), ("He is tall .", "Il est grand ."),
         ("She is happy .", "Elle est heureuse ."), ("You are late .", "Tu es en retard ."),
         ("I m hungry .", "J ai faim ."), ("He s a teacher .", "Il est professeur ."),
         ("She s here .", "Elle est ici ."), ("You re right .", "Tu as raison ."), ("We are here .", "Nous sommes ici .")]

# notebook -> ({cell: a fragment of its error, as under PyTorch}, lines its printout has)
NOTEBOOKS = {
    "char-rnn-classification/char-rnn-classification.ipynb": (
        {16: DATA_INDEX}, ["n_categories = 18", "Size([5, 1, 57])", "output.size = glassgrad.Size([1, 18])"]),
    "char-rnn-generation/char-rnn-generation.ipynb": ({8: ROW_AND_0D}, ["file_len = 2484", "tensor([10, 11, 12, 39, 40, 41])"]),
    "conditional-char-rnn/conditional-char-rnn.ipynb": ({8: ROW_AND_0D}, ["# categories: 18 ["]),
    # no French word of the last cells' sentences is in the ten pairs: KeyError, as under PyTorch
    "seq2seq-translation/seq2seq-translation.ipynb": (
        {12: NO_GPU, 15: NO_GPU, 17: NO_GPU, 21: NO_GPU, 22: "KeyError: 'trop'", 24: "KeyError: 'a'",
         25: "KeyError: 'trop'", 26: "KeyError: 'ne'", 27: "KeyError: 'c'"},
        ["Read 10 sentence pairs\nTrimmed to 9 sentence pairs\n",
         "EncoderRNN(\n  (embedding): Embedding(10, 10)\n  (gru): GRU(10, 10, num_layers=2)\n)"]),
    # its cells use math, which it never imports
    "reinforce-gridworld/reinforce-gridworld.ipynb": ({5: "name 'math' is not defined", 11: "name 'math' is not defined"},
                                                      []),
}
# (script, arguments) -> (the exception and the start of its message, as PyTorch's run ends)
STOPS = {
    ("char-rnn-classification/train.py", ()): ("IndexError: " + DATA_INDEX, "return output, loss.data[0]"),
    ("char-rnn-generation/train.py", ("../data/shakespeare.txt",)): ("ValueError: " + ROW_AND_0D,
                                                                     "loss += criterion(output, target[c])"),
    ("conditional-char-rnn/train.py", ()): ("ValueError: " + ROW_AND_0D,
                                            "loss += criterion(output, target_line_tensor[i])"),
    ("char-rnn-classification/predict.py", ("Satoshi",)): (
        "FileNotFoundError: [Errno 2] No such file or directory: 'char-rnn-classification.pt'", "torch.load("),
    ("char-rnn-generation/generate.py", ("shakespeare.pt",)): (
        "FileNotFoundError: [Errno 2] No such file or directory: 'shakespeare.pt'", "torch.load("),
    ("conditional-char-rnn/generate.py", ("Russian",)): (
        "FileNotFoundError: [Errno 2] No such file or directory: 'conditional-char-rnn.pt'", "torch.load("),
}


def _layout(tmp_path, folder, changes=None):
    """tmp_path/run/<folder> ported (`changes` {file: {line: new}} made), beside run/data."""
    run = tmp_path / "run"
    port_script.port_tree(os.path.join(checkout(REPO), folder), str(run / folder))
    for name, lines in (changes or {}).items():
        with open(os.path.join(checkout(REPO), folder, name), encoding="utf-8") as f:
            text, _ = port_script.port_text(f.read(), lines)
        (run / folder / name).write_text(text, encoding="utf-8")
    os.makedirs(run / "data", exist_ok=True)
    os.symlink(os.path.join(checkout(REPO), "data", "names"), run / "data" / "names")
    (run / "data" / "shakespeare.txt").write_text(SONNET * 4, encoding="utf-8")
    (run / "data" / "eng-fra.txt").write_text("".join(f"{e}\t{f}\n" for e, f in PAIRS), encoding="utf-8")
    return run / folder


def _script(folder, name, *args):
    return subprocess.run([sys.executable, name, *args], cwd=str(folder), capture_output=True, text=True,
                          timeout=900, env=_env(MPLBACKEND="Agg"))


def _ends_with(proc, error, line):
    last = proc.stderr.strip().splitlines()
    assert proc.returncode == 1 and line in proc.stderr, proc.stderr[-3000:]
    # glassgrad's class of the same kind (GlassgradIndexError, ShapeError, CheckpointNotFoundError)
    kind, message = error.split(": ", 1)
    raised = [row for row in last if message in row]
    assert raised, proc.stderr[-3000:]
    name = raised[-1].split(":", 1)[0].rsplit(".", 1)[-1]
    cls = getattr(gg, name, None) or getattr(gg.serialization, name, None) or getattr(builtins, name)
    assert issubclass(cls, {"IndexError": IndexError, "ValueError": ValueError,
                            "FileNotFoundError": FileNotFoundError}[kind]), raised[-1]


@needs(REPO)
@pytest.mark.parametrize("notebook", sorted(NOTEBOOKS))
def test_notebooks_stop_where_pytorch_stops(tmp_path, notebook):
    pytest.importorskip("matplotlib")
    if "generation" in notebook:
        pytest.importorskip("unidecode")
    folder = _layout(tmp_path, os.path.dirname(notebook))
    check_cells(folder, os.path.join(checkout(REPO), notebook), *NOTEBOOKS[notebook])


@needs(REPO)
@pytest.mark.parametrize("script, args", sorted(STOPS))
def test_scripts_stop_where_pytorch_stops(tmp_path, script, args):
    if "generation" in script:
        pytest.importorskip("unidecode")
    folder = _layout(tmp_path, os.path.dirname(script))
    _ends_with(_script(folder, os.path.basename(script), *args), *STOPS[(script, args)])


@needs(REPO)
def test_classifier_trained_with_item_is_saved_and_refused_by_a_weights_only_load(tmp_path):
    # the one line PyTorch 0.4 changed (loss.data[0] -> loss.item()), and 300 of the 100000 epochs
    folder = _layout(tmp_path, "char-rnn-classification", {"train.py": {
        "    return output, loss.data[0]": "    return output, loss.item()",
        "n_epochs = 100000": "n_epochs = 300", "print_every = 5000": "print_every = 100",
        "plot_every = 1000": "plot_every = 100"}})
    trained = _script(folder, "train.py")
    assert trained.returncode == 0, trained.stderr[-3000:]
    assert "300 100% (" in trained.stdout and os.path.isfile(folder / "char-rnn-classification.pt"), trained.stdout
    proc = _script(folder, "predict.py", "Satoshi")
    assert proc.returncode == 1 and "rnn = torch.load('char-rnn-classification.pt')" in proc.stderr, proc.stderr[-3000:]
    assert "WeightsOnlyLoadError: Weights only load failed. char-rnn-classification.pt" in proc.stderr
    assert "model.RNN" in proc.stderr
