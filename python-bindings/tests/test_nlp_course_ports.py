"""yandexdataschool/nlp_course: its PyTorch helper modules, ported on the fly from
$GLASSGRAD_SCRIPT_SOURCES/nlp_course (script_sources.py; without it these tests skip), against
PyTorch's results on the same inputs: week04_seq2seq/vocab.py (lines to a padded id matrix and
back, the mask up to the first end token: F.pad of a cumsum comparison) and
week10_efficiency/utils.py (get_first_layer_inputs swaps a model's layer list for a module that
records the first layer's inputs and stops the forward pass with an exception).

The course's notebooks are not run: the PyTorch ones of weeks 2-4 are assignments whose models
and training loops are the student's `<YOUR CODE>` cells (a SyntaxError under PyTorch too, and
every later cell uses what they define), and those of weeks 5-10 and week_extra load pretrained
models through transformers, peft, bitsandbytes or datasets (downloads; not installed here)."""
import os

import numpy as np
import pytest

from script_sources import checkout, importing_from, needs, port_script

REPO = "nlp_course"
LINES = ["the cat sat", "a dog ran fast today", "the dog", "cat"]


def _module(tmp_path, rel, ported, name):
    """The file `rel` of the checkout (ported to glassgrad, or as it is) imported as a module."""
    folder = tmp_path / ("ours" if ported else "theirs")
    folder.mkdir(exist_ok=True)
    target = str(folder / os.path.basename(rel))
    if ported:
        port_script.port_file(os.path.join(checkout(REPO), rel), target)
    else:
        with open(os.path.join(checkout(REPO), rel)) as src, open(target, "w") as dst:
            dst.write(src.read())
    with importing_from(folder, name):
        return __import__(name)


def _vocab_results(vocab_module):
    vocab = vocab_module.Vocab.from_lines(LINES)
    matrix = vocab.to_matrix(LINES + ["an unknown cat"])
    short = vocab.to_matrix(LINES, max_len=4)
    return (len(vocab), matrix.numpy(), str(matrix.dtype).split(".")[-1], short.numpy(),
            vocab.to_lines(matrix.tolist()), vocab.compute_mask(matrix).numpy())


@needs(REPO)
def test_vocab_turns_lines_into_matrices_masks_and_back(tmp_path):
    size, matrix, dtype, short, lines, mask = _vocab_results(_module(tmp_path, "week04_seq2seq/vocab.py", True, "vocab"))
    assert size == 3 + 8 and dtype == "int64" and matrix.shape == (5, 7) and short.shape == (4, 4)
    assert lines == LINES + ["_UNK_ _UNK_ cat"]
    # True up to and including the first end token (id 1), padding after it False
    assert mask[2].tolist() == [True, True, True, True, False, False, False]
    assert (mask.sum(1) == [5, 7, 4, 3, 5]).all()


@needs(REPO)
def test_vocab_matches_pytorchs(tmp_path):
    pytest.importorskip("torch")
    ours = _vocab_results(_module(tmp_path, "week04_seq2seq/vocab.py", True, "vocab"))
    theirs = _vocab_results(_module(tmp_path, "week04_seq2seq/vocab.py", False, "vocab"))
    for a, b in zip(ours, theirs):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)
        else:
            assert a == b


def _first_layer_inputs(lib, utils):
    """utils.get_first_layer_inputs on a LLaMA-shaped model (model.model.layers, each layer
    called with attention_mask= and position_ids=), three samples of 4 token ids."""
    nn = lib.nn

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(6, 6)

        def forward(self, hidden_states, attention_mask=None, position_ids=None):
            return self.proj(hidden_states)

    class Inner(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(10, 6)
            self.layers = nn.ModuleList([Layer(), Layer()])

        def forward(self, ids):
            hidden = self.embed(ids)
            mask = lib.ones(ids.shape[0], 1, ids.shape[1], ids.shape[1])
            positions = lib.arange(ids.shape[1]).unsqueeze(0)
            for layer in self.layers:
                hidden = layer(hidden, attention_mask=mask, position_ids=positions)
            return hidden

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.model = Inner()

        def forward(self, ids):
            return self.model(ids)

    model = Model()
    with lib.no_grad():
        model.model.embed.weight.copy_(lib.tensor(np.arange(60, dtype=np.float32).reshape(10, 6) / 10))
    before = model.model.layers
    hidden, mask, positions = utils.get_first_layer_inputs(model, lib.tensor([[1, 2, 3, 4], [5, 6, 7, 8], [0, 9, 0, 9]]))
    assert model.model.layers is before  # the layers put back
    return hidden.detach().numpy(), mask.numpy(), positions.numpy()


@needs(REPO)
def test_first_layer_inputs_are_caught_and_the_layers_restored(tmp_path):
    import glassgrad.torch as torch
    hidden, mask, positions = _first_layer_inputs(torch, _module(tmp_path, "week10_efficiency/utils.py", True, "utils"))
    assert hidden.shape == (3, 4, 6) and mask.shape == (1, 1, 4, 4) and positions.tolist() == [[0, 1, 2, 3]]
    np.testing.assert_allclose(hidden[2, 1], np.arange(54, 60) / 10, rtol=1e-6)


@needs(REPO)
def test_first_layer_inputs_match_pytorchs(tmp_path):
    torch = pytest.importorskip("torch")
    import glassgrad.torch as gtorch
    ours = _first_layer_inputs(gtorch, _module(tmp_path, "week10_efficiency/utils.py", True, "utils"))
    theirs = _first_layer_inputs(torch, _module(tmp_path, "week10_efficiency/utils.py", False, "utils"))
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-6)
