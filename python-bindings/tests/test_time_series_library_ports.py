"""thuml/Time-Series-Library's models (models/*.py with layers/: DLinear, PatchTST, iTransformer,
Transformer, Crossformer, TimeMixer, TimeXer, SegRNN, TiDE, ...), ported on the fly with their
imports changed only from $GLASSGRAD_SCRIPT_SOURCES/Time-Series-Library (script_sources.py;
without it, or without PyTorch, these tests skip). No line of the repository is changed.

Each model is built as exp/exp_basic.py builds it, Model(configs), from run.py's arguments made
small (sequences of 24, 3 variates, d_model 16), under PyTorch (the original tree) and here (the
ported one) for each task it implements (long_term_forecast, imputation, anomaly_detection,
classification); PyTorch's state_dict is loaded into ours and both give the same outputs and
gradients of a squared-output loss on the same inputs (dropout 0). Left out: the models that
transform with torch.fft (TimesNet, Autoformer, FEDformer, FiLM, FreTS, ETSformer, Koopa,
MSGNet; glassgrad has no complex dtypes, and says so: the last test), SCINet (ten seconds a run
here), Informer (its ProbSparse attention samples keys with torch.randint in every forward),
Reformer (reformer_pytorch's attention), the Mamba models needing mamba_ssm, the foundation
models (Chronos, Moirai, TimesFM, ...: transformers and downloaded weights) and WPMixer
(PyWavelets). reformer_pytorch, which
layers/SelfAttention_Family.py imports for Reformer alone, is a stand-in here."""
import argparse
import importlib
import sys
import types

import numpy as np
import pytest

from script_sources import checkout, importing_from, needs, port_script, source

REPO = "Time-Series-Library"
F, I, A, K = "long_term_forecast", "imputation", "anomaly_detection", "classification"
# each task by several models, each model for one or two of the tasks it implements
TASKS = {
    "DLinear": (F, K), "PatchTST": (F, I), "iTransformer": (F, A), "Transformer": (F, K), "Crossformer": (I,),
    "Nonstationary_Transformer": (F, A), "SegRNN": (F, K), "LightTS": (I, A), "TimeFilter": (F, K),
    "TimeMixer": (F, I), "MICN": (K,), "TiDE": (F, I), "PAttn": (F,), "TimeXer": (F,), "MambaSimple": (F,),
    "TSMixer": (F,), "KANAD": (A,), "Pyraformer": (K,),
}
CASES = [(m, t) for m, tasks in TASKS.items() for t in tasks]
PACKAGES = ("models", "layers", "utils")
B, C, MARKS = 2, 3, 4


def _configs(task):
    """run.py's arguments, small; the tasks other than forecasting read no label or prediction."""
    forecast = task.endswith("forecast")
    return argparse.Namespace(
        task_name=task, seq_len=24, label_len=12 if forecast else 0, pred_len=12 if forecast else 0, enc_in=C,
        dec_in=C, c_out=C, d_model=16, n_heads=2, e_layers=2, d_layers=1, d_ff=32, moving_avg=5, factor=1,
        distil=True, dropout=0.0, embed="timeF", freq="h", activation="gelu", channel_independence=1,
        decomp_method="moving_avg", use_norm=1, down_sampling_layers=1, down_sampling_window=2,
        down_sampling_method="avg", seg_len=6, top_k=2, num_kernels=2, expand=2, d_conv=4, num_class=4,
        patch_len=6, node_dim=4, gcn_depth=2, gcn_dropout=0.0, propalpha=0.3, conv_channel=8, skip_channel=8,
        individual=False, alpha=0.1, top_p=0.5, pos=1, p_hidden_dims=[8, 8], p_hidden_layers=2,
        seasonal_patterns="Monthly", features="M", output_attention=False, mask_rate=0.25, tv_dt=0, tv_B=0,
        tv_C=0, use_D=0, device="cpu", augmentation_ratio=0, data="ETTh1")


def _inputs(configs):
    rng = np.random.default_rng(0)
    dec = max(configs.label_len + configs.pred_len, 1)
    marks = (rng.standard_normal((B, configs.seq_len, MARKS)) if configs.task_name != "classification"
             else np.ones((B, configs.seq_len)))  # classification's x_mark_enc is the padding mask
    return [rng.standard_normal((B, configs.seq_len, C)), marks, rng.standard_normal((B, dec, C)),
            rng.standard_normal((B, dec, MARKS)), (rng.random((B, configs.seq_len, C)) > 0.25)]


def _run(torch, folder, name, task, state=None):
    configs = _configs(task)
    with importing_from(folder, *PACKAGES):
        module = importlib.import_module("models." + name)
        torch.manual_seed(0)
        model = module.Model(configs).float()
    if state is not None:
        model.load_state_dict({k: torch.from_numpy(v) for k, v in state.items()})
    initial = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    x, marks, dec, dec_marks, mask = [torch.from_numpy(np.asarray(a, np.float32)) for a in _inputs(configs)]
    extra = {"mask": mask} if task == "imputation" else {}
    model.eval()
    y = model(x, marks, dec, dec_marks, **extra)
    y = y[0] if isinstance(y, tuple) else y
    (y ** 2).mean().backward()
    grads = {n: p.grad.numpy() for n, p in model.named_parameters() if p.grad is not None}
    return y.detach().numpy(), grads, initial


@pytest.fixture(scope="module")
def ported(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tsl") / "run"
    for part in PACKAGES:
        report = port_script.port_tree(source(REPO, part), str(folder / part))
        assert all(old.startswith(("import torch", "from torch", "from einops.layers.torch"))
                   for lines in report.values() for _, old, _ in lines)
    return folder


@pytest.fixture
def reformer_stand_in(monkeypatch):
    stand_in = types.ModuleType("reformer_pytorch")

    class LSHSelfAttention:  # the Reformer model's attention, not built by the models run here
        def __init__(self, *args, **kwargs):
            raise NotImplementedError("reformer_pytorch stand-in")

    stand_in.LSHSelfAttention = LSHSelfAttention
    monkeypatch.setitem(sys.modules, "reformer_pytorch", stand_in)


@needs(REPO)
@pytest.mark.parametrize("name,task", CASES, ids=[f"{m}-{t}" for m, t in CASES])
def test_model_gives_pytorchs_outputs_and_gradients(ported, reformer_stand_in, name, task):
    torch = pytest.importorskip("torch")
    import glassgrad.torch as gtorch
    yt, gt, state = _run(torch, checkout(REPO), name, task)
    yg, gg, _ = _run(gtorch, str(ported), name, task, state)
    assert yg.shape == yt.shape
    np.testing.assert_allclose(yg, yt, rtol=1e-4, atol=1e-5)
    assert sorted(gg) == sorted(gt)
    for k in gt:  # relative to the largest gradient of the tensor (some are all but zero)
        np.testing.assert_allclose(gg[k], gt[k], rtol=0, atol=1e-3 * max(np.abs(gt[k]).max(), 1e-3), err_msg=k)


@needs(REPO)
def test_a_fourier_model_stops_at_torch_fft(ported, reformer_stand_in):
    # TimesNet finds its periods with torch.fft.rfft, whose result is complex
    with pytest.raises(ModuleNotFoundError, match="glassgrad has no complex dtypes"):
        with importing_from(str(ported), *PACKAGES):
            importlib.import_module("models.TimesNet")
