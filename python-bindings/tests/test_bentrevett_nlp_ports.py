"""bentrevett/pytorch-sentiment-analysis (1-3: bag of words, a packed bidirectional LSTM, a
1-d CNN) and bentrevett/pytorch-seq2seq (1-3: LSTM, GRU and attention encoder-decoders): the
notebooks' model and training code run on glassgrad, from $GLASSGRAD_SCRIPT_SOURCES/
pytorch-sentiment-analysis and .../pytorch-seq2seq (script_sources.py; without them these tests
skip).

Their data cells need downloads through the `datasets` hub (IMDB, Multi30k), spaCy models and
torchtext's vocabularies, none available here: only the data is replaced. Each notebook's cells
are ported as tools/port_script.py ports them and their top-level functions and classes (collate
functions, data loaders, models, weight initialisation, train, evaluate, accuracy) taken as the
notebook defines them; the test then feeds them tiny in-memory batches of token ids (the dicts
the notebooks' datasets yield) in place of the data cells, with small sizes in place of the
notebooks' 256-512 wide layers. The parameter counts are PyTorch 2.14.1's for the same sizes, and
the same drive ran under PyTorch on the original cells (a driver outside the repository).
4 - Transformers needs Hugging Face's transformers (a pretrained BERT) and is left out."""
import ast
import math
import os
import random

import numpy as np
import pytest

import glassgrad as gg
from notebook_cells import ported_cells
from script_sources import checkout, needs

SENTIMENT = "pytorch-sentiment-analysis"
SEQ2SEQ = "pytorch-seq2seq"
VOCAB, PAD = 30, 1


def _definitions(repo, number):
    """The ported top-level functions and classes of the repository's notebook `number`, run in
    a namespace holding what the notebooks import."""
    folder = checkout(repo)
    names = [n for n in os.listdir(folder) if n.startswith(f"{number} - ") and n.endswith(".ipynb")]
    assert len(names) == 1, names
    tqdm = pytest.importorskip("tqdm")
    scope = {"torch": gg, "nn": gg.nn, "optim": gg.optim, "F": gg.nn.functional, "np": np, "tqdm": tqdm,
             "random": random}
    for cell in ported_cells(os.path.join(folder, names[0])):
        kept = [node for node in ast.parse(cell).body if isinstance(node, (ast.FunctionDef, ast.ClassDef))]
        exec(compile(ast.Module(body=kept, type_ignores=[]), names[0], "exec"), scope)
    return scope


def _reviews(min_length, n=40, seed=0):
    """n examples as the notebooks' datasets yield them: ids (int64), label, length."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        length = int(rng.integers(min_length, 12))
        out.append({"ids": gg.tensor(rng.integers(2, VOCAB, length).tolist()),
                    "label": gg.tensor(int(rng.integers(0, 2))), "length": gg.tensor(length)})
    return out


# notebook -> (model from its class, PyTorch's parameter count, shortest review its model takes)
SENTIMENT_MODELS = {
    1: (lambda s: s["NBoW"](VOCAB, 16, 2, PAD), 514, 2),
    2: (lambda s: s["LSTM"](VOCAB, 16, 12, 2, 2, True, 0.5, PAD), 7058, 2),
    3: (lambda s: s["CNN"](VOCAB, 16, 4, [3, 5, 7], 2, 0.25, PAD), 1478, 7),  # its widest filter spans 7
}


@needs(SENTIMENT)
@pytest.mark.parametrize("number", sorted(SENTIMENT_MODELS))
def test_sentiment_models_train_and_evaluate(number):
    scope = _definitions(SENTIMENT, number)
    make, count, shortest = SENTIMENT_MODELS[number]
    gg.manual_seed(0)
    model = make(scope)
    if "initialize_weights" in scope:
        model.apply(scope["initialize_weights"])
    assert scope["count_parameters"](model) == count
    loader = scope["get_data_loader"](_reviews(shortest), 8, PAD, shuffle=True)
    batch = next(iter(loader))
    assert batch["ids"].dtype == gg.int64 and batch["ids"].shape[0] == 8  # pad_sequence keeps the ids' dtype
    optimizer = gg.optim.Adam(model.parameters())
    criterion = gg.nn.CrossEntropyLoss()
    for _ in range(2):
        loss, accuracy = scope["train"](loader, model, criterion, optimizer, "cpu")
        assert math.isfinite(loss) and 0.0 <= accuracy <= 1.0
    loss, accuracy = scope["evaluate"](loader, model, criterion, "cpu")
    assert math.isfinite(loss) and 0.0 <= accuracy <= 1.0


# notebook -> (encoder and decoder from its classes, PyTorch's parameter count of the Seq2Seq)
SEQ2SEQ_MODELS = {
    1: (lambda s: (s["Encoder"](VOCAB, 8, 16, 2, 0.5), s["Decoder"](VOCAB, 8, 16, 2, 0.5)), 8670),
    2: (lambda s: (s["Encoder"](VOCAB, 8, 16, 0.5), s["Decoder"](VOCAB, 8, 16, 0.5)), 4974),
    3: (lambda s: (s["Encoder"](VOCAB, 8, 16, 16, 0.5),
                   s["Decoder"](VOCAB, 8, 16, 16, 0.5, s["Attention"](16, 16))), 8798),
}


@needs(SEQ2SEQ)
@pytest.mark.parametrize("number", sorted(SEQ2SEQ_MODELS))
def test_seq2seq_models_train(number):
    scope = _definitions(SEQ2SEQ, number)
    make, count = SEQ2SEQ_MODELS[number]
    gg.manual_seed(0)
    random.seed(0)
    model = scope["Seq2Seq"](*make(scope), gg.device("cpu"))
    model.apply(scope["init_weights"])
    assert sum(p.numel() for p in model.parameters()) == count
    rng = np.random.default_rng(0)
    pairs = [{"de_ids": gg.tensor(rng.integers(2, VOCAB, int(rng.integers(3, 9))).tolist()),
              "en_ids": gg.tensor(rng.integers(2, VOCAB, int(rng.integers(3, 9))).tolist())} for _ in range(16)]
    loader = scope["get_data_loader"](pairs, 4, PAD, shuffle=True)
    optimizer = gg.optim.Adam(model.parameters())
    criterion = gg.nn.CrossEntropyLoss(ignore_index=PAD)
    loss = scope["train_fn"](model, loader, optimizer, criterion, 1.0, 0.5, "cpu")
    assert math.isfinite(loss)
    loss = scope["evaluate_fn"](model, loader, criterion, "cpu")
    assert math.isfinite(loss)
    batch = next(iter(loader))
    with gg.no_grad():
        out = model(batch["de_ids"], batch["en_ids"], 0)
    assert out.shape == (batch["en_ids"].shape[0], 4, VOCAB)
