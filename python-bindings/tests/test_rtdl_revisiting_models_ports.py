"""yandex-research/rtdl-revisiting-models' package (package/rtdl_revisiting_models.py: the MLP,
ResNet and FT-Transformer of "Revisiting Deep Learning Models for Tabular Data", with linear and
categorical feature embeddings, its own multi-head attention with Linformer compression, and the
FT-Transformer's default optimizer), ported on the fly with its imports changed only from
$GLASSGRAD_SCRIPT_SOURCES/rtdl-revisiting-models (script_sources.py; without it, or without
PyTorch, these tests skip). No line of the repository is changed.

Each model is built as the package's README builds it, under PyTorch (the original module) and
here (the ported one); PyTorch's state_dict is loaded into ours and both give the same eval-mode
outputs and gradients on the same continuous and categorical features, and the same parameter
groups of make_default_optimizer. The README's code blocks import torch themselves (the
Markdown is not ported); bin/'s experiment scripts read the paper's downloaded data sets."""
import os

import numpy as np
import pytest

from script_sources import checkout, importing_from, needs, port_script, source

REPO = "rtdl-revisiting-models"
MODULE = "rtdl_revisiting_models"


def _models(R):
    ft = R.FTTransformer.get_default_kwargs(n_blocks=2)
    linformer = dict(ft, linformer_kv_compression_ratio=0.5, linformer_kv_compression_sharing="headwise")
    return {
        "MLP": (lambda: R.MLP(d_in=3, d_out=2, n_blocks=2, d_block=8, dropout=0.1), False),
        "ResNet": (lambda: R.ResNet(d_in=3, d_out=2, n_blocks=2, d_block=8, d_hidden=None, d_hidden_multiplier=2.0,
                                    dropout1=0.1, dropout2=0.0), False),
        "FTTransformer": (lambda: R.FTTransformer(n_cont_features=3, cat_cardinalities=[4, 2], d_out=2, **ft), True),
        "FTTransformer-linformer": (lambda: R.FTTransformer(n_cont_features=3, cat_cardinalities=[4, 2], d_out=2,
                                                            **linformer), True),
        "FTTransformer-continuous": (lambda: R.FTTransformer(n_cont_features=3, cat_cardinalities=[], d_out=1,
                                                             **ft), None),
    }


def _run(torch, folder, name, state=None):
    with importing_from(folder, MODULE):
        import rtdl_revisiting_models as R
        torch.manual_seed(0)
        build, categorical = _models(R)[name]
        model = build()
    if state is not None:
        model.load_state_dict({k: torch.from_numpy(v) for k, v in state.items()})
    initial = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.standard_normal((6, 3)).astype(np.float32))
    cat = torch.from_numpy(np.stack([rng.integers(0, 4, 6), rng.integers(0, 2, 6)], 1))
    model.eval()
    y = model(x) if categorical is False else model(x, cat if categorical else None)
    y.sum().backward()
    grads = {n: p.grad.numpy() for n, p in model.named_parameters() if p.grad is not None}
    groups = None
    if name.startswith("FTTransformer"):
        opt = model.make_default_optimizer()
        groups = [(type(opt).__name__, len(g["params"]), g["weight_decay"], g["lr"]) for g in opt.param_groups]
    return y.detach().numpy(), grads, groups, initial


@pytest.fixture(scope="module")
def ported(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rtdl") / "package"
    changed = port_script.port_file(source(REPO, f"package/{MODULE}.py"), str(folder / f"{MODULE}.py"))
    assert [old for _, old, _ in changed] == ["import torch", "import torch.nn as nn", "import torch.nn.functional as F",
                                              "import torch.optim", "from torch import Tensor",
                                              "from torch.nn.parameter import Parameter"]
    return str(folder)


@needs(REPO)
@pytest.mark.parametrize("name", ["MLP", "ResNet", "FTTransformer", "FTTransformer-linformer",
                                  "FTTransformer-continuous"])
def test_model_gives_pytorchs_outputs_gradients_and_optimizer(ported, name):
    torch = pytest.importorskip("torch")
    import glassgrad.torch as gtorch
    yt, gt, ot, state = _run(torch, os.path.join(checkout(REPO), "package"), name)
    yg, gg, og, _ = _run(gtorch, ported, name, state)
    np.testing.assert_allclose(yg, yt, rtol=1e-4, atol=1e-5)
    assert sorted(gg) == sorted(gt) and og == ot
    for k in gt:
        np.testing.assert_allclose(gg[k], gt[k], rtol=1e-3, atol=1e-4 * max(np.abs(gt[k]).max(), 1e-3), err_msg=k)
