"""hyunwoongko/transformer (the "Attention Is All You Need" model in models/, its train.py loop
with BLEU in util/bleu.py), ported on the fly with their imports changed only from
$GLASSGRAD_SCRIPT_SOURCES/hyunwoongko-transformer (script_sources.py; without it these tests skip).

Replaced: data.py, whose Multi30k pipeline needs torchtext's legacy API and spacy's language
models, by translation_data_stand_in.py (the same names over a synthetic reversal task, 48
training sentences in batches of 8). Changed: conf.py's `epoch = 1000` to 2; the model keeps its
size (d_model 512, 6 layers, 44,166,162 parameters with the stand-in's vocabularies).

Under PyTorch 2.14.1 (a driver outside the repository, on the same stand-in) train.py prints the
parameter count and stops at `ReduceLROnPlateau(..., verbose=True)`: verbose= was removed from the
schedulers in PyTorch 2.7. With that one line dropped, both train two epochs to their end, the
losses falling alike (2.8 to 2.6 there, from unseeded weights)."""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from script_sources import checkout, importing_from, needs, port_script, source
from test_ported_scripts import _env

REPO = "hyunwoongko-transformer"
HERE = os.path.dirname(os.path.abspath(__file__))
VERBOSE = "                                                 verbose=True,"


def _ported(tmp_path, train_changes=None):
    folder = tmp_path / "run"
    port_script.port_tree(checkout(REPO), str(folder))
    shutil.copy(os.path.join(HERE, "translation_data_stand_in.py"), folder / "data.py")
    port_script.port_file(source(REPO, "conf.py"), str(folder / "conf.py"), {"epoch = 1000": "epoch = 2"})
    port_script.port_file(source(REPO, "train.py"), str(folder / "train.py"), train_changes)
    (folder / "result").mkdir()
    return folder


def _train(folder):
    return subprocess.run([sys.executable, "train.py"], cwd=folder, capture_output=True, text=True, timeout=900,
                          env=_env())


@needs(REPO)
def test_train_stops_at_the_schedulers_removed_verbose_argument_as_pytorch_does(tmp_path):
    proc = _train(_ported(tmp_path))
    assert proc.returncode != 0
    assert "The model has 44,166,162 trainable parameters" in proc.stdout, proc.stdout[-2000:]
    assert "`nn.init.kaiming_uniform` is now deprecated in favor of `nn.init.kaiming_uniform_`" in proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == \
        "TypeError: ReduceLROnPlateau.__init__() got an unexpected keyword argument 'verbose'", proc.stderr[-2000:]


@needs(REPO)
@pytest.mark.slow
def test_train_without_verbose_trains_two_epochs_and_writes_its_results(tmp_path):
    folder = _ported(tmp_path, {VERBOSE: None})
    proc = _train(folder)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert out.count("step :") == 12 and "Epoch: 2 | Time:" in out and "\tBLEU Score:" in out, out[-2000:]
    losses = [float(line.split("Train Loss:")[1].split("|")[0]) for line in out.splitlines() if "Train Loss:" in line]
    assert len(losses) == 2 and all(np.isfinite(losses)) and losses[1] < losses[0]
    for name in ("train_loss", "bleu", "test_loss"):
        assert len(eval((folder / "result" / f"{name}.txt").read_text())) == 2
    assert [p for p in os.listdir(folder / "saved") if p.startswith("model-")]


@needs(REPO)
def test_transformer_outputs_and_gradients_match_pytorch_for_the_same_weights(tmp_path):
    torch = pytest.importorskip("torch")
    folder = _ported(tmp_path)
    import glassgrad as gg
    settings = dict(src_pad_idx=1, trg_pad_idx=1, trg_sos_idx=2, enc_voc_size=11, dec_voc_size=13, d_model=32,
                    n_head=4, max_len=16, ffn_hidden=64, n_layers=2, drop_prob=0.1)
    theirs = _transformer(checkout(REPO), settings, torch.device("cpu")).eval()
    ours = _transformer(str(folder), settings, gg.device("cpu")).eval()
    ours.load_state_dict({k: gg.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    rng = np.random.default_rng(0)
    src = rng.integers(2, 11, (3, 7))
    trg = rng.integers(2, 13, (3, 6))
    src[0, 5:], trg[1, 4:] = 1, 1  # padding, masked in attention
    results = []
    for lib, model in ((torch, theirs), (gg, ours)):
        out = model(lib.tensor(src), lib.tensor(trg[:, :-1]))
        loss = lib.nn.CrossEntropyLoss(ignore_index=1)(out.reshape(-1, 13), lib.tensor(trg[:, 1:]).reshape(-1))
        loss.backward()
        results.append((out.detach().numpy(), loss.item(),
                        {k: p.grad.numpy() for k, p in model.named_parameters() if p.grad is not None}))
    (want, want_loss, want_grads), (got, got_loss, got_grads) = results
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    assert got_loss == pytest.approx(want_loss, rel=1e-5)
    assert sorted(got_grads) == sorted(want_grads)
    for name, grad in want_grads.items():
        np.testing.assert_allclose(got_grads[name], grad, rtol=1e-3, atol=1e-5, err_msg=name)


def _transformer(folder, settings, device):
    """models.model.transformer.Transformer imported from folder (its `models` package, then forgotten)."""
    with importing_from(folder, "models"):
        from models.model.transformer import Transformer
        return Transformer(device=device, **settings)
