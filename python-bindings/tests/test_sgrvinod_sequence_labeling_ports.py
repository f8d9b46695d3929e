"""sgrvinod/a-PyTorch-Tutorial-to-Sequence-Labeling (models.py: LM-LSTM-CRF, character LSTMs
forward and backward over packed sequences, a highway network, a word BiLSTM and a CRF layer;
utils.py: CoNLL-2003 reading, maps, GloVe loading, input tensors; inference.py: Viterbi decoding;
train.py; dynamic_rnn.py, the packing demo), ported on the fly with their imports changed only from
$GLASSGRAD_SCRIPT_SOURCES/a-PyTorch-Tutorial-to-Sequence-Labeling (script_sources.py; without it,
or without scikit-learn, these tests skip).

CoNLL-2003 and GloVe are downloads: the tests write small files in their formats under
./datasets and ./embeddings. The tutorial was written for PyTorch 0.4, whose pack_padded_sequence
returned a pair: train.py (and ViterbiLoss) unpack its PackedSequence into two names, which
PyTorch 2.x refuses (ValueError: too many values to unpack), so train.py stops in its first batch,
here as under PyTorch 2.14.1 (test_train_stops_where_pytorch_stops). The model itself, the input
tensors and the Viterbi decoder run: from PyTorch's state_dict, the forward pass, the gradients of
a loss over its outputs (the language-model cross entropies train.py means, on the packed data),
utils.clip_gradient, an SGD step and the decoded tags match PyTorch's
(test_model_step_and_decoding_match_pytorch)."""
import contextlib
import importlib.util
import io
import os
import subprocess
import sys

import numpy as np
import pytest

from script_sources import importing_from, needs, port_script, source
from test_ported_scripts import _env

REPO = "a-PyTorch-Tutorial-to-Sequence-Labeling"
FILES = ("models.py", "utils.py", "inference.py", "datasets.py", "dynamic_rnn.py", "train.py")
TAGS = {"john": "B-PER", "smith": "I-PER", "mary": "B-PER", "paris": "B-LOC", "london": "B-LOC", "visited": "O",
        "the": "O", "city": "O", "of": "O", "and": "O", "saw": "O", "in": "O"}


def _write_data(folder, seed=0):
    """datasets/eng.{train,testa,testb} in CoNLL-2003's columns (word, POS, chunk, NER tag) and
    embeddings/glove.6B.100d.txt in GloVe's format (10 numbers a word)."""
    rng = np.random.default_rng(seed)
    os.makedirs(os.path.join(folder, "datasets"))
    os.makedirs(os.path.join(folder, "embeddings"))
    words = sorted(TAGS)
    for split, n in (("eng.train", 40), ("eng.testa", 10), ("eng.testb", 10)):
        lines = ["-DOCSTART- -X- -X- O", ""]
        for _ in range(n):
            lines += [f"{w.capitalize()} NN I-NP {TAGS[w]}" for w in rng.choice(words, rng.integers(3, 9))] + [""]
        with open(os.path.join(folder, "datasets", split), "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    with open(os.path.join(folder, "embeddings", "glove.6B.100d.txt"), "w", encoding="utf-8") as f:
        for w in words + ["europe", "berlin"]:
            f.write(w + " " + " ".join(f"{v:.5f}" for v in rng.standard_normal(10)) + "\n")


def _folder(tmp_path, ported=True):
    pytest.importorskip("sklearn")
    folder = tmp_path / ("ported" if ported else "original")
    folder.mkdir()
    for name in FILES:
        if ported:
            port_script.port_file(source(REPO, name), str(folder / name))
        else:
            with open(source(REPO, name), encoding="utf-8") as f:
                (folder / name).write_text(f.read(), encoding="utf-8")
    _write_data(str(folder))
    return folder


def _stops(folder):
    proc = subprocess.run([sys.executable, "train.py"], cwd=folder, capture_output=True, text=True, timeout=600,
                          env=_env(OMP_NUM_THREADS="1"))
    assert proc.returncode != 0, proc.stdout[-2000:]
    return proc.stderr.strip().split("\n")[-3:]


@needs(REPO)
def test_train_stops_where_pytorch_stops(tmp_path):
    ours = _stops(_folder(tmp_path))
    assert ours[-1] == "ValueError: too many values to unpack (expected 2)", ours
    assert ours[0].strip() == "lm_f_scores, _ = pack_padded_sequence(lm_f_scores, lm_lengths, batch_first=True)", ours
    if importlib.util.find_spec("torch") is not None:  # PyTorch's run, where installed
        assert _stops(_folder(tmp_path, ported=False)) == ours


def _setup(folder, framework):
    """The modules, inputs and a small LM-LSTM-CRF (dropout 0) built as train.py builds them."""
    with importing_from(folder, "models", "utils", "inference"), contextlib.redirect_stdout(io.StringIO()):
        import inference
        import models
        import utils
        words, tags = utils.read_words_tags(str(folder / "datasets" / "eng.train"), 3, True)
        word_map, char_map, tag_map = utils.create_maps(words, tags, 1, 1)
        embeddings, word_map, lm_vocab_size = utils.load_embeddings(
            str(folder / "embeddings" / "glove.6B.100d.txt"), word_map, True)
        inputs = utils.create_input_tensors(words[:8], tags[:8], word_map, char_map, tag_map)
    model = models.LM_LSTM_CRF(tagset_size=len(tag_map), charset_size=len(char_map), char_emb_dim=8,
                               char_rnn_dim=12, char_rnn_layers=1, vocab_size=len(word_map),
                               lm_vocab_size=lm_vocab_size, word_emb_dim=10, word_rnn_dim=16, word_rnn_layers=1,
                               dropout=0.0, highway_layers=1)
    model.init_word_embeddings(embeddings)
    model.fine_tune_word_embeddings(False)
    return utils, inference.ViterbiDecoder(tag_map), word_map, inputs, model


def _step(framework, utils, decoder, word_map, inputs, model):
    """train.py's forward pass and update, with the language-model losses on the packed data."""
    wmaps, cmaps_f, cmaps_b, cmarkers_f, cmarkers_b, tmaps, wmap_lengths, cmap_lengths = inputs
    w, c = max(wmap_lengths.tolist()), max(cmap_lengths.tolist())
    out = model(cmaps_f[:, :c], cmaps_b[:, :c], cmarkers_f[:, :w], cmarkers_b[:, :w], wmaps[:, :w], tmaps[:, :w],
                wmap_lengths, cmap_lengths)
    crf_scores, lm_f_scores, lm_b_scores, wmaps_sorted, _, lengths_sorted = out[:6]
    pack = framework.nn.utils.rnn.pack_padded_sequence
    lm_lengths = (lengths_sorted - 1).tolist()
    end = framework.LongTensor([word_map["<end>"]] * wmaps_sorted.size(0)).unsqueeze(1)
    ce = framework.nn.CrossEntropyLoss()
    loss = (ce(pack(lm_f_scores, lm_lengths, batch_first=True).data,
               pack(wmaps_sorted[:, 1:], lm_lengths, batch_first=True).data)
            + ce(pack(lm_b_scores, lm_lengths, batch_first=True).data,
                 pack(framework.cat([end, wmaps_sorted], dim=1), lm_lengths, batch_first=True).data)
            + crf_scores.logsumexp(dim=(2, 3)).mean())
    optimizer = framework.optim.SGD(params=[p for p in model.parameters() if p.requires_grad], lr=0.015,
                                    momentum=0.9)
    optimizer.zero_grad()
    loss.backward()
    grads = {n: p.grad.numpy().copy() for n, p in model.named_parameters() if p.grad is not None}
    utils.clip_gradient(optimizer, 5.0)
    optimizer.step()
    decoded = decoder.decode(crf_scores.detach(), lengths_sorted)
    return [t.detach().numpy() for t in (crf_scores, lm_f_scores, lm_b_scores)], loss.item(), grads, decoded.numpy()


@needs(REPO)
def test_model_step_and_decoding_match_pytorch(tmp_path):
    torch = pytest.importorskip("torch")
    import glassgrad.torch as gg
    theirs = _setup(_folder(tmp_path, ported=False), torch)
    ours = _setup(_folder(tmp_path), gg)
    for mine, ref in zip(ours[3], theirs[3]):  # the input tensors
        np.testing.assert_array_equal(mine.numpy(), ref.numpy())
    ours[4].load_state_dict({k: gg.tensor(v.numpy()) for k, v in theirs[4].state_dict().items()})
    (t_out, t_loss, t_grads, t_decoded), (g_out, g_loss, g_grads, g_decoded) = \
        _step(torch, *theirs), _step(gg, *ours)
    for mine, ref in zip(g_out, t_out):
        np.testing.assert_allclose(mine, ref, rtol=1e-4, atol=1e-5)
    assert g_loss == pytest.approx(t_loss, rel=1e-5)
    assert sorted(g_grads) == sorted(t_grads)
    for name, ref in t_grads.items():
        np.testing.assert_allclose(g_grads[name], ref, rtol=1e-3, atol=1e-5, err_msg=name)
    np.testing.assert_array_equal(g_decoded, t_decoded)
    stepped = theirs[4].state_dict()
    for name, value in ours[4].state_dict().items():
        np.testing.assert_allclose(value.numpy(), stepped[name].numpy(), rtol=1e-4, atol=1e-6, err_msg=name)


@needs(REPO)
def test_dynamic_rnn_demo_prints_pytorchs_packing(tmp_path):
    """dynamic_rnn.py: an LSTM over padded and over packed sequences. Its first print is an LSTM
    output from unseeded weights; the rest (the packed output's shape, its zero padding, the sorted
    sequences, a PackedSequence's data and batch_sizes) is what PyTorch 2.14.1 prints, Size
    written glassgrad.Size."""
    port_script.port_file(source(REPO, "dynamic_rnn.py"), str(tmp_path / "dynamic_rnn.py"))
    proc = subprocess.run([sys.executable, "dynamic_rnn.py"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, env=_env())
    assert proc.returncode == 0, proc.stderr[-2000:]
    rest = proc.stdout[proc.stdout.index("glassgrad.Size"):]
    zeros = ", ".join(["0."] * 50)
    assert rest.startswith("glassgrad.Size([3, 6, 50])\n"), rest
    assert " ".join(rest.split()) == " ".join(f"""glassgrad.Size([3, 6, 50])
tensor([{zeros}], grad_fn=<SelectBackward0>)
tensor([[ 6,  7,  8,  9, 10, 11, 25],
        [ 0,  1,  2,  3, 25, 25, 25],
        [ 4,  5, 25, 25, 25, 25, 25]])
tensor([ 6,  0,  4,  7,  1,  5,  8,  2,  9,  3, 10, 11])
tensor([3, 3, 2, 2, 1, 1])
tensor([[ 6,  7,  8,  9, 10, 11, 25],
        [ 0,  1,  2,  3, 25, 25, 25],
        [ 4,  5, 25, 25, 25, 25, 25]])""".split()), rest
