"""alxndrTL/mamba.py (mambapy: Mamba in plain PyTorch, its selective scan either sequential or the
parallel scan of pscan.py, an autograd Function writing its up- and down-sweeps in place into
views; the LM wrapper), ported on the fly with its imports changed only from
$GLASSGRAD_SCRIPT_SOURCES/mamba.py (script_sources.py; without it, or without PyTorch and
einops, which mambapy.lm imports through mamba2.py, these tests skip). No line of the
repository is changed.

Each model is built under PyTorch (the original package) and here (the ported one); PyTorch's
state_dict is loaded into ours and both give the same outputs and gradients on the same inputs,
and the same step-by-step outputs from the recurrent cache (Mamba), or the same greedy tokens
(LM.generate, sample=False). Mamba-2 needs mamba_ssm's RMSNormGated under PyTorch too; the CUDA
comparison and profiling scripts of tests/ need mamba_ssm and a GPU."""
import numpy as np
import pytest

from script_sources import checkout, importing_from, needs, port_script, source

REPO = "mamba.py"


def _run(torch, folder, kind, state=None):
    with importing_from(folder, "mambapy"):
        from mambapy.lm import LM
        from mambapy.mamba import Mamba, MambaConfig
        torch.manual_seed(0)
        if kind.startswith("mamba-"):
            config = MambaConfig(d_model=16, n_layers=2, pscan=kind == "mamba-pscan")
            model = Mamba(config)
        else:
            model = LM(MambaConfig(d_model=16, n_layers=2), vocab_size=37)
    if state is not None:
        model.load_state_dict({k: torch.from_numpy(v) for k, v in state.items()})
    initial = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    rng = np.random.default_rng(0)
    results = {}
    if kind == "lm":
        tokens = torch.from_numpy(rng.integers(0, 37, (2, 8)))
        logits = model(tokens)
        logits.pow(2).mean().backward()
        model.eval()
        results["generated"] = model.generate(tokens[:, :3], num_tokens=5, sample=False).numpy()
        y = logits
    else:
        x = torch.from_numpy(rng.standard_normal((2, 8, config.d_model)).astype(np.float32))
        y = model(x)
        y.pow(2).sum().backward()
        if kind.startswith("mamba-"):
            caches = [(None, torch.zeros(2, config.d_inner, config.d_conv - 1)) for _ in range(config.n_layers)]
            steps = []
            with torch.no_grad():
                for t in range(8):
                    out, caches = model.step(x[:, t], caches)
                    steps.append(out)
            results["steps"] = torch.stack(steps, 1).numpy()
    results["y"] = y.detach().numpy()
    grads = {n: p.grad.numpy() for n, p in model.named_parameters() if p.grad is not None}
    return results, grads, initial


@pytest.fixture(scope="module")
def ported(tmp_path_factory):
    pytest.importorskip("einops")
    folder = tmp_path_factory.mktemp("mambapy") / "run"
    report = port_script.port_tree(source(REPO, "mambapy"), str(folder / "mambapy"))
    assert all(old.startswith(("import torch", "from torch")) for lines in report.values() for _, old, _ in lines)
    return str(folder)


@needs(REPO)
@pytest.mark.parametrize("kind", ["mamba-pscan", "mamba-sequential", "lm"])
def test_model_gives_pytorchs_outputs_gradients_and_steps(ported, kind):
    torch = pytest.importorskip("torch")
    import glassgrad.torch as gtorch
    rt, gt, state = _run(torch, checkout(REPO), kind)
    rg, gg, _ = _run(gtorch, ported, kind, state)
    assert sorted(rg) == sorted(rt)
    for k in rt:
        if k == "generated":
            assert np.array_equal(rg[k], rt[k])
        else:
            np.testing.assert_allclose(rg[k], rt[k], rtol=1e-4, atol=1e-5, err_msg=k)
    assert sorted(gg) == sorted(gt)
    for k in gt:
        np.testing.assert_allclose(gg[k], gt[k], rtol=1e-3, atol=1e-4 * max(np.abs(gt[k]).max(), 1e-3), err_msg=k)

