"""Two recommenders, ported on the fly with their imports changed only from
$GLASSGRAD_SCRIPT_SOURCES (script_sources.py; without a checkout its tests skip); no line of
either repository is changed:

- pmixer/SASRec.pytorch (python/): main.py trains the self-attentive sequential recommender
  (its WarpSampler's three sampling processes, positives and negatives scored by BCEWithLogits
  over the rows np.where picks) for 20 epochs on the first 60 users of the repository's Video.txt,
  evaluates NDCG@10 and HR@10 and saves the state_dict, then evaluates that file with
  --inference_only; and trains with --norm_first.
- gusye1234/LightGCN-PyTorch (code/): main.py trains LightGCN one epoch on the repository's LastFM
  files (the normalized adjacency as a sparse COO tensor, torch.sparse.mm propagation, BPR loss),
  testing before it, and resumes from its checkpoint with --load 1. Needs SciPy, pandas and
  scikit-learn."""
import os
import shutil
import subprocess
import sys

import pytest

from script_sources import needs, port_script, source
from test_ported_scripts import _env

SASREC = "SASRec.pytorch"
LIGHTGCN = "LightGCN-PyTorch"


def _python(folder, *args):
    proc = subprocess.run([sys.executable, *args], cwd=folder, env=_env(), capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, f"{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def _ported(repo, part, folder):
    report = port_script.port_tree(source(repo, part), str(folder))
    assert all(old.startswith(("import torch", "from torch", "from tensorboardX"))
               for lines in report.values() for _, old, _ in lines)
    return folder


SASREC_SMALL = ["--device", "cpu", "--num_epochs", "20", "--maxlen", "10", "--hidden_units", "8", "--batch_size", "16"]


@needs(SASREC)
@pytest.mark.parametrize("norm_first", [False, True], ids=["post-norm", "norm-first"])
def test_sasrec_trains_evaluates_saves_and_reloads(tmp_path, norm_first):
    folder = _ported(SASREC, "python", tmp_path / "run")
    with open(folder / "data" / "Video.txt") as f:  # "user item" lines, users numbered from 1
        small = [line for line in f if int(line.split()[0]) <= 60]
    (folder / "data" / "small.txt").write_text("".join(small))
    extra = ["--norm_first"] if norm_first else []
    out = _python(folder, "main.py", "--dataset", "small", "--train_dir", "t", *SASREC_SMALL, *extra)
    losses = [float(line.rsplit(":", 1)[1]) for line in out.splitlines() if line.startswith("loss in epoch")]
    assert len(losses) == 20 * 4 and all(0 < v < 5 for v in losses)  # 60 users in batches of 16
    assert "epoch:20," in out and "valid (NDCG@10: " in out and out.rstrip().endswith("Done")
    if norm_first:
        return
    saved = [name for name in os.listdir(folder / "small_t") if name.endswith(".pth")]
    assert saved == ["SASRec.epoch=20.lr=0.001.layer=2.head=1.hidden=8.maxlen=10.pth"]
    again = _python(folder, "main.py", "--dataset", "small", "--train_dir", "t", *SASREC_SMALL, *extra,
                    "--inference_only", "true", "--state_dict_path", os.path.join("small_t", saved[0]))
    line = [x for x in again.splitlines() if x.startswith("test (NDCG@10: ")]
    assert len(line) == 1 and "failed loading" not in again


@needs(LIGHTGCN)
def test_lightgcn_trains_on_lastfm_and_resumes(tmp_path):
    pytest.importorskip("scipy")
    pytest.importorskip("pandas")
    pytest.importorskip("sklearn")
    folder = tmp_path / "run"
    _ported(LIGHTGCN, "code", folder / "code")
    shutil.copytree(source(LIGHTGCN, os.path.join("data", "lastfm")), folder / "data" / "lastfm")
    code = folder / "code"
    small = ["--dataset", "lastfm", "--epochs", "1", "--tensorboard", "0", "--recdim", "16", "--bpr_batch", "4096",
             "--testbatch", "100"]
    out = _python(code, "main.py", *small, "--layer", "2")
    assert "lgn is already to go(dropout:0)" in out and "EPOCH[1/1] loss0.69" in out
    assert "{'precision': array([" in out and "'ndcg': array([" in out
    assert os.path.isfile(code / "checkpoints" / "lgn-lastfm-2-16.pth.tar")
    resumed = _python(code, "main.py", *small, "--layer", "2", "--load", "1")
    assert "loaded model weights from" in resumed and "EPOCH[1/1] loss" in resumed
