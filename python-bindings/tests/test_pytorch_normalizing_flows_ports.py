"""karpathy/pytorch-normalizing-flows (nflib/flows.py, nflib/spline_flows.py, nflib/nets.py,
nflib/made.py and the notebook nflib1.ipynb that trains them on two half-moons), ported on the fly
with their imports changed only from $GLASSGRAD_SCRIPT_SOURCES/pytorch-normalizing-flows
(script_sources.py; without it these tests skip).

The notebook runs cell by cell (notebook_cells.py) to its end, as under PyTorch 2.x, with its
first training loop's 1000 steps made 101 (the only line changed beyond the imports). The flow
stacks its cell 2 builds (its commented lines: RealNVP, NICE, MAF, IAF, ActNorm, the Glow-like
1x1 convolutions with couplings, neural spline couplings and autoregressive splines) are trained
a few steps from PyTorch's initial weights under both, with the notebook's loss, optimizer and
priors (torch.distributions' logistic TransformedDistribution and MultivariateNormal), and their
losses and inverses compared."""
import itertools
import json
import os

import numpy as np
import pytest

from notebook_cells import code_cells, run_cells
from script_sources import importing_from, needs, port_script, source

REPO = "pytorch-normalizing-flows"
NOTEBOOK = "nflib1.ipynb"

# variant -> the lines of the notebook's cell 2 that build its flows (commented there but the last)
VARIANTS = {
    "RealNVP": ["flows = [AffineHalfFlow(dim=2, parity=i%2) for i in range(9)]"],
    "NICE": ["flows = [AffineHalfFlow(dim=2, parity=i%2, scale=False) for i in range(4)]",
             "flows.append(AffineConstantFlow(dim=2, shift=False))"],
    "SlowMAF": ["flows = [SlowMAF(dim=2, parity=i%2) for i in range(4)]"],
    "MAF+ActNorm": ["flows = [MAF(dim=2, parity=i%2) for i in range(4)]",
                    "norms = [ActNorm(dim=2) for _ in flows]",
                    "flows = list(itertools.chain(*zip(norms, flows)))"],
    "IAF": ["flows = [IAF(dim=2, parity=i%2) for i in range(3)]"],
    "Glow": ["flows = [Invertible1x1Conv(dim=2) for i in range(3)]",
             "norms = [ActNorm(dim=2) for _ in flows]",
             "couplings = [AffineHalfFlow(dim=2, parity=i%2, nh=32) for i in range(len(flows))]",
             "flows = list(itertools.chain(*zip(norms, flows, couplings))) # append a coupling layer after each 1x1"],
    "NSF_CL": ["nfs_flow = NSF_CL if True else NSF_AR",
               "flows = [nfs_flow(dim=2, K=8, B=3, hidden_dim=16) for _ in range(3)]",
               "convs = [Invertible1x1Conv(dim=2) for _ in flows]",
               "norms = [ActNorm(dim=2) for _ in flows]",
               "flows = list(itertools.chain(*zip(norms, convs, flows)))"],
    "NSF_AR": ["nfs_flow = NSF_AR",
               "flows = [nfs_flow(dim=2, K=8, B=3, hidden_dim=16) for _ in range(3)]"],
}
PRIORS = {
    "logistic": "prior = TransformedDistribution(Uniform(torch.zeros(2), torch.ones(2)), SigmoidTransform().inv)",
    "gaussian": "prior = MultivariateNormal(torch.zeros(2), torch.eye(2))",
}
# IAF's density is the slow direction (one pass a dimension), as the notebook says
CASES = [(v, "logistic") for v in VARIANTS] + [(v, "gaussian") for v in ("RealNVP", "MAF+ActNorm", "Glow")]
STEPS = 8


@needs(REPO)
def test_notebook_runs_to_its_end(tmp_path):
    pytest.importorskip("matplotlib")
    pytest.importorskip("sklearn")
    folder = tmp_path / "run"
    port_script.port_tree(os.path.dirname(source(REPO, NOTEBOOK)), str(folder))
    raised, out, err = run_cells(str(folder), source(REPO, NOTEBOOK),
                                 changes={"for k in range(1000):": "for k in range(101):"})
    assert raised == {}, out[-2000:] + err[-3000:]
    assert "number of params:  5844" in out, out
    losses = [float(v) for v in out.split("number of params:  5844")[1].split("\n")[1:3]]
    # two printed NLLs of 128 points (steps 0 and 100), the second lower
    assert len(losses) == 2 and losses[1] < losses[0], out
    assert "Out[5]: Text(0.5, 1.0, 'z -> x')" in out


def _cell_lines():
    cells = code_cells(source(REPO, NOTEBOOK))
    return {line.lstrip("# ").rstrip() for line in cells[2].split("\n")}


def _moons(n, seed):
    from sklearn import datasets
    return datasets.make_moons(n_samples=n, noise=0.05, random_state=seed)[0].astype(np.float32)


def _train(folder, torch, variant, prior, weights=None, pivots=None):
    """The notebook's model (`variant`'s flows over `prior`) trained STEPS steps from `weights`
    (its own when None): (state_dict arrays, the 1x1 convolutions' P, losses, the inverse of a grid)."""
    with importing_from(folder, "nflib"):
        import nflib.flows as flows_module
        import nflib.spline_flows as splines
        scope = {"torch": torch, "itertools": itertools, **vars(flows_module), **vars(splines),
                 **vars(torch.distributions)}
        exec("\n".join([PRIORS[prior], *VARIANTS[variant], "model = NormalizingFlowModel(prior, flows)"]), scope)
    model = scope["model"]
    convs = [m for m in model.modules() if type(m).__name__ == "Invertible1x1Conv"]
    if weights is not None:
        model.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()})
        for conv, p in zip(convs, pivots):
            conv.P = torch.from_numpy(p)
    state = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    pivots = [conv.P.numpy().copy() for conv in convs]
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4, weight_decay=1e-5)
    model.train()
    losses = []
    for k in range(STEPS):
        x = torch.from_numpy(_moons(128, k))
        zs, prior_logprob, log_det = model(x)
        loss = -torch.sum(prior_logprob + log_det)
        model.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    model.eval()
    grid = np.stack(np.meshgrid(np.linspace(-2, 2, 6), np.linspace(-2, 2, 6)), -1).reshape(-1, 2).astype(np.float32)
    xs, log_det = model.backward(torch.from_numpy(grid))
    return state, pivots, losses, (xs[-1].detach().numpy(), log_det.detach().numpy())


@needs(REPO)
@pytest.mark.parametrize("variant,prior", CASES)
def test_flows_train_as_under_pytorch_from_the_same_weights(tmp_path, variant, prior):
    torch = pytest.importorskip("torch")
    pytest.importorskip("sklearn")
    import glassgrad.torch as gtorch
    assert set(VARIANTS[variant]) - {"nfs_flow = NSF_AR"} <= _cell_lines(), variant
    port_script.port_tree(os.path.dirname(source(REPO, "nflib/flows.py")), str(tmp_path / "ours" / "nflib"))
    torch.manual_seed(0)
    weights, pivots, want, want_inverse = _train(os.path.dirname(os.path.dirname(source(REPO, "nflib/flows.py"))),
                                                 torch, variant, prior)
    _, _, got, got_inverse = _train(str(tmp_path / "ours"), gtorch, variant, prior, weights, pivots)
    assert np.isfinite(want).all(), want
    np.testing.assert_allclose(got, want, rtol=1e-4, err_msg=json.dumps([got, want]))
    for ours, theirs in zip(got_inverse, want_inverse):
        np.testing.assert_allclose(ours, theirs, rtol=1e-3, atol=1e-4)
