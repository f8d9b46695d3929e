"""jadore801120/attention-is-all-you-need-pytorch (train.py, translate.py and the transformer/
package: the model, ScheduledOptim's warm-up schedule, Translator's beam search), ported on the
fly with their imports changed only from $GLASSGRAD_SCRIPT_SOURCES/attention-is-all-you-need-pytorch
(script_sources.py; without it these tests skip).

Replaced: preprocess.py's pickle (it needs spacy's language models and the Multi30k download) by
torchtext_legacy_stand_in.write_translation_pickle (64 training sentences of a reversal task);
torchtext, whose legacy data API train.py and translate.py import, by that stand-in; dill by
pickle. train.py runs with a small model from its own flags (-d_model 64 -n_layers 2 ...).

Under PyTorch 2.14.1 (a driver outside the repository, on the same files) train.py trains its two
epochs to the end, and translate.py stops at torch.load's weights_only=True default (PyTorch 2.6)
refusing the checkpoint's argparse.Namespace; with weights_only=False added to that line,
translate.py's predictions from a PyTorch-trained checkpoint were the same here as there."""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from script_sources import checkout, importing_from, needs, port_script, source
from test_ported_scripts import _env

REPO = "attention-is-all-you-need-pytorch"
HERE = os.path.dirname(os.path.abspath(__file__))
SMALL = ["-d_model", "64", "-d_inner_hid", "128", "-d_k", "16", "-d_v", "16", "-n_head", "4", "-n_layers", "2"]
LOAD = "    checkpoint = torch.load(opt.model, map_location=device)"


def _ported(tmp_path, translate_changes=None):
    pytest.importorskip("tqdm")
    folder = tmp_path / "run"
    port_script.port_tree(checkout(REPO), str(folder))
    port_script.port_file(source(REPO, "translate.py"), str(folder / "translate.py"), translate_changes)
    (folder / "torchtext").mkdir()
    port_script.port_file(os.path.join(HERE, "torchtext_legacy_stand_in.py"), str(folder / "torchtext" / "__init__.py"))
    shutil.copy(os.path.join(HERE, "torchtext_stand_in.py"), folder / "torchtext" / "vocab.py")
    (folder / "torchtext" / "data.py").write_text("from torchtext import BucketIterator, Dataset, Example, Field  # noqa\n")
    (folder / "torchtext" / "datasets.py").write_text("from torchtext import TranslationDataset  # noqa\n")
    # PyTorch's datapipes call dill.extend when a dill is importable
    (folder / "dill.py").write_text("from pickle import *  # noqa\n\n\ndef extend(use_dill=True):\n    pass\n")
    assert _run(folder, "-c", "import torchtext; torchtext.write_translation_pickle('syn.pkl')").returncode == 0
    return folder


def _run(folder, *args):
    return subprocess.run([sys.executable, *args], cwd=folder, capture_output=True, text=True, timeout=900,
                          env=_env())


def _train(folder, *extra):
    proc = _run(folder, "train.py", "-data_pkl", "syn.pkl", "-output_dir", "output", "-no_cuda", "-epoch", "2",
                "-b", "16", "-warmup", "10", "-seed", "1", *SMALL, *extra)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


@needs(REPO)
def test_train_with_label_smoothing_runs_two_epochs_and_translate_stops_at_weights_only(tmp_path):
    folder = _ported(tmp_path)
    out = _train(folder, "-label_smoothing")
    assert "[ Epoch 1 ]" in out and out.count("The checkpoint file has been updated.") >= 1, out[-2000:]
    ppl = [float(line.split("ppl:")[1].split(",")[0]) for line in out.replace("\r", "\n").splitlines()
           if "(Training)   ppl:" in line]
    assert len(ppl) == 2 and all(np.isfinite(ppl)), out[-2000:]
    assert (folder / "output" / "train.log").read_text().count("\n") == 3  # its header and two epochs
    proc = _run(folder, "translate.py", "-model", "output/model.chkpt", "-data_pkl", "syn.pkl", "-no_cuda")
    assert proc.returncode != 0
    error = [line for line in proc.stderr.splitlines() if "Weights only load failed." in line]
    assert error and "argparse.Namespace" in error[-1] and "load_model" in proc.stderr, proc.stderr[-2000:]


@needs(REPO)
def test_translate_with_weights_only_false_writes_a_line_per_test_sentence(tmp_path):
    folder = _ported(tmp_path, {LOAD: LOAD[:-1] + ", weights_only=False)"})
    _train(folder)
    proc = _run(folder, "translate.py", "-model", "output/model.chkpt", "-data_pkl", "syn.pkl", "-no_cuda",
                "-beam_size", "3", "-max_seq_len", "12")
    assert proc.returncode == 0 and "[Info] Finished." in proc.stdout, proc.stderr[-3000:]
    lines = (folder / "pred.txt").read_text().splitlines()
    assert len(lines) == 8 and all("<s>" not in line and "</s>" not in line for line in lines)


@needs(REPO)
def test_model_and_beam_search_match_pytorch_for_the_same_weights(tmp_path):
    torch = pytest.importorskip("torch")
    folder = _ported(tmp_path)
    import glassgrad as gg
    settings = dict(n_src_vocab=12, n_trg_vocab=14, src_pad_idx=1, trg_pad_idx=1, d_word_vec=32, d_model=32,
                    d_inner=64, n_layers=2, n_head=4, d_k=8, d_v=8, dropout=0.1, n_position=50)
    rng = np.random.default_rng(0)
    src = rng.integers(4, 12, (2, 7))
    src[1, 5:] = 1
    trg = rng.integers(4, 14, (2, 6))
    results = []
    for lib, where, state in ((torch, checkout(REPO), None), (gg, str(folder), results)):
        models, translator = _package(where)
        lib.manual_seed(0)
        model = models.Transformer(**settings)
        if state:
            model.load_state_dict({k: gg.tensor(v) for k, v in state[0][0].items()})
        model.eval()
        with lib.no_grad():
            logits = model(lib.tensor(src), lib.tensor(trg)).numpy()
            beam = translator.Translator(model, beam_size=3, max_seq_len=10, src_pad_idx=1, trg_pad_idx=1,
                                         trg_bos_idx=2, trg_eos_idx=3)
            words = beam.translate_sentence(lib.tensor(src[:1]))
        results.append(({k: v.detach().numpy() for k, v in model.state_dict().items()}, logits, words))
    (_, want, want_words), (_, got, got_words) = results
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    assert got_words == want_words


def _package(folder):
    """(transformer.Models, transformer.Translator) imported from folder, then forgotten by name."""
    with importing_from(folder, "transformer"):
        import transformer.Models as models
        import transformer.Translator as translator
        return models, translator
