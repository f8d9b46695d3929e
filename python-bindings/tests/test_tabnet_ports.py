"""dreamquark-ai/tabnet's pytorch_tabnet (TabNet for tabular data: its scikit-learn-style
classifiers, regressor, multi-task classifier and self-supervised pretrainer, with sparsemax and
entmax attention as autograd Functions and ghost batch normalization), ported on the fly with
its imports changed only from $GLASSGRAD_SCRIPT_SOURCES/tabnet (script_sources.py; without it
these tests skip). No line of the repository is changed.

The network (tab_network.TabNet, with a categorical column's embedding and a feature group) gives
PyTorch's outputs, sparsity loss, gradients and attention masks from the same weights, for each
mask type; a driver fits TabNetClassifier (both mask types, SMOTE augmentation, an eval set and
early stopping's best weights), saves and reloads it, explains it, and fits TabNetRegressor,
TabNetMultiTaskClassifier and a classifier from a TabNetPretrainer, on 200 random rows, as the
repository's example notebooks do on their downloaded data sets; the repository's tests/ pass.
Needs scikit-learn and SciPy."""
import subprocess
import sys

import numpy as np
import pytest

from script_sources import checkout, importing_from, needs, port_script, source
from test_ported_scripts import _env

REPO = "tabnet"

DRIVER = """
import numpy as np
from pytorch_tabnet.tab_model import TabNetClassifier, TabNetRegressor
from pytorch_tabnet.multitask import TabNetMultiTaskClassifier
from pytorch_tabnet.pretraining import TabNetPretrainer
from pytorch_tabnet.augmentations import ClassificationSMOTE, RegressionSMOTE
rng = np.random.default_rng(0)
X = rng.standard_normal((200, 6)).astype(np.float32)
X[:, 0] = rng.integers(0, 4, 200)
y = (X[:, 1] + X[:, 2] > 0).astype(int)
small = dict(max_epochs=2, batch_size=50, virtual_batch_size=25)
for mask_type in ['sparsemax', 'entmax']:
    clf = TabNetClassifier(cat_idxs=[0], cat_dims=[4], cat_emb_dim=2, mask_type=mask_type, n_d=4, n_a=4, seed=0)
    clf.fit(X[:150], y[:150], eval_set=[(X[150:], y[150:])], augmentations=ClassificationSMOTE(p=0.2), **small)
    proba = clf.predict_proba(X[150:])
    print(mask_type, proba.shape, np.allclose(proba.sum(1), 1), len(clf.history['loss']))
    path = clf.save_model('saved_' + mask_type)
    again = TabNetClassifier()
    again.load_model(path)
    print('reloaded', np.array_equal(again.predict(X[150:]), clf.predict(X[150:])))
    explain, masks = clf.explain(X[:4])
    print('explain', explain.shape, sorted(masks), round(float(clf.feature_importances_.sum()), 5))
reg = TabNetRegressor(n_d=4, n_a=4, seed=0)
reg.fit(X[:150], X[:150, 1:2], eval_set=[(X[150:], X[150:, 1:2])], augmentations=RegressionSMOTE(p=0.2), **small)
print('regressor', reg.predict(X[:3]).shape, reg.history['loss'][-1] < reg.history['loss'][0])
Y = np.stack([y, (X[:, 3] > 0).astype(int)], 1)
multi = TabNetMultiTaskClassifier(n_d=4, n_a=4, seed=0)
multi.fit(X[:150], Y[:150], eval_set=[(X[150:], Y[150:])], **small)
print('multitask', [p.shape for p in multi.predict(X[:3])])
pre = TabNetPretrainer(n_d=4, n_a=4, seed=0)
pre.fit(X[:150], eval_set=[X[150:]], pretraining_ratio=0.5, **small)
clf = TabNetClassifier(n_d=4, n_a=4, seed=0)
clf.fit(X[:150], y[:150], from_unsupervised=pre, **small)
print('pretrained', clf.predict(X[:5]).shape)
"""


@pytest.fixture(scope="module")
def ported(tmp_path_factory):
    pytest.importorskip("sklearn")
    pytest.importorskip("scipy")
    folder = tmp_path_factory.mktemp("tabnet") / "run"
    for part in ("pytorch_tabnet", "tests"):
        report = port_script.port_tree(source(REPO, part), str(folder / part))
        assert all(old.startswith(("import torch", "from torch")) for lines in report.values() for _, old, _ in lines)
    return folder


def _python(folder, *args):
    proc = subprocess.run([sys.executable, *args], cwd=folder, env=_env(), capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, f"{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def _network(torch, folder, mask_type, state=None):
    with importing_from(folder, "pytorch_tabnet"):
        from pytorch_tabnet.tab_network import TabNet
        from pytorch_tabnet.utils import create_group_matrix
        torch.manual_seed(0)
        net = TabNet(6, 3, n_d=4, n_a=4, n_steps=2, cat_idxs=[0], cat_dims=[4], cat_emb_dim=[2], virtual_batch_size=5,
                     mask_type=mask_type, group_attention_matrix=create_group_matrix([[1, 2]], 6))
    if state is not None:
        net.load_state_dict({k: torch.from_numpy(v) for k, v in state.items()})
    initial = {k: v.detach().numpy().copy() for k, v in net.state_dict().items()}
    rng = np.random.default_rng(0)
    x = rng.standard_normal((10, 6)).astype(np.float32)
    x[:, 0] = rng.integers(0, 4, 10)
    x = torch.from_numpy(x)
    # train mode: two ghost batches of 5 rows (a ghost batch of 2 rows normalizes by the spread of two
    # values, which turns float32 rounding into differences of 1e-4)
    out, sparsity = net(x)
    (out.pow(2).mean() + 1e-3 * sparsity).backward()
    grads = {n: p.grad.numpy() for n, p in net.named_parameters() if p.grad is not None}
    net.eval()
    with torch.no_grad():
        explain, masks = net.forward_masks(x)
    return (out.detach().numpy(), sparsity.item(), grads, explain.numpy(),
            {k: v.numpy() for k, v in masks.items()}, initial)


@needs(REPO)
@pytest.mark.parametrize("mask_type", ["sparsemax", "entmax"])
def test_network_gives_pytorchs_outputs_gradients_and_masks(ported, mask_type):
    torch = pytest.importorskip("torch")
    import glassgrad.torch as gtorch
    theirs = _network(torch, checkout(REPO), mask_type)
    ours = _network(gtorch, str(ported), mask_type, theirs[-1])
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-4, atol=1e-5)
    assert abs(ours[1] - theirs[1]) < 1e-4 * max(1.0, abs(theirs[1]))
    assert sorted(ours[2]) == sorted(theirs[2])
    for k in theirs[2]:
        np.testing.assert_allclose(ours[2][k], theirs[2][k], rtol=0, atol=1e-3 * max(np.abs(theirs[2][k]).max(), 1e-4),
                                   err_msg=k)
    np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-4, atol=1e-5)
    assert sorted(ours[4]) == sorted(theirs[4]) == [0, 1]
    for k in theirs[4]:
        np.testing.assert_allclose(ours[4][k], theirs[4][k], rtol=1e-4, atol=1e-5)


@needs(REPO)
def test_models_fit_save_reload_explain_and_pretrain(ported):
    (ported / "drive.py").write_text(DRIVER)
    out = _python(ported, "drive.py").splitlines()
    assert "sparsemax (50, 2) True 2" in out and "entmax (50, 2) True 2" in out
    assert out.count("reloaded True") == 2
    assert out.count("explain (4, 6) [0, 1, 2] 1.0") == 2
    assert "regressor (3, 1) True" in out
    assert "multitask [(3,), (3,)]" in out and "pretrained (5,)" in out


@needs(REPO)
def test_repository_tests_pass(ported):
    out = _python(ported, "-m", "pytest", "-p", "no:cacheprovider", "-q", "tests")
    assert "2 passed" in out
