"""Tensor.grad_fn named as PyTorch's node: type(y.grad_fn).__name__ and y.grad_fn.name() give
the class name PyTorch's autograd gives ('AddBackward0', 'DivBackward0', 'SumBackward1'), for
the same expression in both libraries. glassgrad records some ops under other names (x / 2 as a
multiplication, t() as a permutation); the recording function names PyTorch's node then.
Skipped when torch is not importable."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F

torch = pytest.importorskip("torch")

_W = np.random.default_rng(3).standard_normal((4, 4))

# name: f(lib, x, w) with x a (4, 4) float64 leaf that requires grad, w a constant
_EXPRESSIONS = {
    "x + 1": lambda L, x, w: x + 1, "1 + x": lambda L, x, w: 1 + x, "x - 1": lambda L, x, w: x - 1,
    "1 - x": lambda L, x, w: 1 - x, "sub(x, 1, alpha=2)": lambda L, x, w: L.sub(x, 1, alpha=2),
    "x * 2": lambda L, x, w: x * 2, "x / 2": lambda L, x, w: x / 2, "x / 3": lambda L, x, w: x / 3,
    "div(x, 0.25)": lambda L, x, w: L.div(x, 0.25), "true_divide(x, 2)": lambda L, x, w: L.true_divide(x, 2),
    "2 / x": lambda L, x, w: 2 / x, "1 / x": lambda L, x, w: 1 / x, "reciprocal": lambda L, x, w: x.reciprocal(),
    "x / w": lambda L, x, w: x / w, "x - w": lambda L, x, w: x - w, "-x": lambda L, x, w: -x,
    "x ** 2": lambda L, x, w: x ** 2,
    "sum": lambda L, x, w: x.sum(), "sum(1)": lambda L, x, w: x.sum(1), "sum((0, 1))": lambda L, x, w: x.sum((0, 1)),
    "mean": lambda L, x, w: x.mean(), "mean(-1, keepdim)": lambda L, x, w: x.mean(-1, keepdim=True),
    "t": lambda L, x, w: x.t(), "transpose": lambda L, x, w: x.transpose(0, 1), "T": lambda L, x, w: x.T,
    "mT": lambda L, x, w: x.mT, "permute": lambda L, x, w: x.permute(1, 0), "swapaxes": lambda L, x, w: x.swapaxes(0, 1),
    "unsqueeze": lambda L, x, w: x.unsqueeze(1), "squeeze()": lambda L, x, w: x.unsqueeze(0).squeeze(),
    "squeeze(0)": lambda L, x, w: x.unsqueeze(0).squeeze(0), "squeeze((0,))": lambda L, x, w: x.unsqueeze(0).squeeze((0,)),
    "select": lambda L, x, w: x.select(1, 2), "view": lambda L, x, w: x.view(16), "reshape": lambda L, x, w: x.reshape(2, 8),
    "flatten": lambda L, x, w: x.flatten(),
    "cat": lambda L, x, w: L.cat([x, x]), "stack": lambda L, x, w: L.stack([x, x], 1), "hstack": lambda L, x, w: L.hstack([x, x]),
    "cumprod": lambda L, x, w: x.cumprod(0), "log1p": lambda L, x, w: x.abs().log1p(),
    "mm": lambda L, x, w: x.mm(w), "x @ v": lambda L, x, w: x @ w[0], "dot": lambda L, x, w: x[0] @ w[0],
    "einsum i,i->": lambda L, x, w: L.einsum("i,i->", x[0], w[0]),
    "einsum ij,jk->ik": lambda L, x, w: L.einsum("ij,jk->ik", x, w),
    "einsum ij,j->i": lambda L, x, w: L.einsum("ij,j->i", x, w[0]),
    "einsum bij,bjk->bik": lambda L, x, w: L.einsum("bij,bjk->bik", x.reshape(2, 2, 4), w.reshape(2, 4, 2)),
    "einsum i,j->ij": lambda L, x, w: L.einsum("i,j->ij", x[0], w[0]),
    "einsum ij,ij->ij": lambda L, x, w: L.einsum("ij,ij->ij", x, w),
    "einsum ij->": lambda L, x, w: L.einsum("ij->", x), "einsum ii->": lambda L, x, w: L.einsum("ii->", x),
    "exp": lambda L, x, w: x.exp(), "relu": lambda L, x, w: F.relu(x) if L is gg else torch.nn.functional.relu(x),
    "linear": lambda L, x, w: L.nn.functional.linear(x, w, w[0]),
    "Linear of a batch of matrices": lambda L, x, w: L.nn.Linear(4, 2).double()(x.reshape(2, 2, 4)),
    "mse_loss": lambda L, x, w: L.nn.functional.mse_loss(x, w),
    "MSELoss(reduction='sum')": lambda L, x, w: L.nn.MSELoss(reduction="sum")(x, w),
    "cross_entropy": lambda L, x, w: L.nn.functional.cross_entropy(x, L.tensor([0, 3, 1, 1])),
    "cross_entropy none": lambda L, x, w: L.nn.functional.cross_entropy(x, L.tensor([0, 3, 1, 1]), reduction="none"),
    "nll_loss": lambda L, x, w: L.nn.functional.nll_loss(x.log_softmax(1), L.tensor([0, 3, 1, 1])),
    "nll_loss sum": lambda L, x, w: L.nn.functional.nll_loss(x, L.tensor([0, 3, 1, 1]), reduction="sum"),
    "binary_cross_entropy": lambda L, x, w: L.nn.functional.binary_cross_entropy(x.sigmoid(), w.sigmoid()),
    "binary_cross_entropy_with_logits": lambda L, x, w: L.nn.functional.binary_cross_entropy_with_logits(
        x, w.sigmoid(), reduction="sum"),
    "smooth_l1_loss": lambda L, x, w: L.nn.functional.smooth_l1_loss(x, w),
    "huber_loss": lambda L, x, w: L.nn.functional.huber_loss(x, w, delta=0.5),
    "l1_loss": lambda L, x, w: L.nn.functional.l1_loss(x, w),
    "x[0]": lambda L, x, w: x[0], "x[:, 1]": lambda L, x, w: x[:, 1], "x[1:]": lambda L, x, w: x[1:],
    "x[0, 1:]": lambda L, x, w: x[0, 1:], "x[1:, 0]": lambda L, x, w: x[1:, 0], "x[None]": lambda L, x, w: x[None],
    "x[0, None]": lambda L, x, w: x[0, None], "x[None, 0]": lambda L, x, w: x[None, 0],
    "x[..., 2]": lambda L, x, w: x[..., 2], "x[-1, -1]": lambda L, x, w: x[-1, -1],
    "x[None, 1:]": lambda L, x, w: x[None, 1:], "x[:, ::2]": lambda L, x, w: x[:, ::2],
    "x[index]": lambda L, x, w: x[L.tensor([2, 0])], "x[mask]": lambda L, x, w: x[x > 0],
    "clamp(min=0)": lambda L, x, w: x.clamp(min=0), "clamp(-1, 1)": lambda L, x, w: x.clamp(-1, 1),
    "clamp(max=tensor)": lambda L, x, w: x.clamp(max=w), "clip": lambda L, x, w: x.clip(max=0.5),
    "masked_fill number": lambda L, x, w: x.masked_fill(w > 0, 0.5),
    "masked_fill 0-d tensor": lambda L, x, w: x.masked_fill(w > 0, L.tensor(0.5, dtype=L.float64)),
    "max()": lambda L, x, w: x.max(), "amax(1)": lambda L, x, w: x.amax(1), "amax((0, 1))": lambda L, x, w: x.amax((0, 1)),
    "amax()": lambda L, x, w: x.amax(), "min()": lambda L, x, w: x.min(), "amin()": lambda L, x, w: x.amin(),
    "amin(0)": lambda L, x, w: x.amin(0), "max(1).values": lambda L, x, w: x.max(1).values,
    "min(0, keepdim).values": lambda L, x, w: x.min(0, keepdim=True).values,
    "std": lambda L, x, w: x.std(), "std(1)": lambda L, x, w: x.std(1), "var": lambda L, x, w: x.var(0),
}




def _written(write):
    """f(lib, x, w) that writes x-derived values into a new tensor (write(lib, target, x)) and
    returns the tensor written."""
    def f(L, x, w):
        target = L.zeros(4, 4, dtype=L.float64)
        write(L, target, x)
        return target
    return f


def _computed(write):
    """f(lib, x, w) that writes into a computed tensor y = x * 3 (write(lib, y, w)) and returns y."""
    def f(L, x, w):
        y = x * 3
        write(L, y, w)
        return y
    return f


def _setitem(key, value):
    return lambda L, t, v: t.__setitem__(key, value(v))


# in-place writes: PyTorch names copy_ CopyBackwards, fill_ FillBackward2/3, a write into a part
# of a tensor CopySlices
_EXPRESSIONS.update({
    "zeros.copy_(x)": _written(lambda L, t, x: t.copy_(x)),
    "zeros.copy_(x * 2)": _written(lambda L, t, x: t.copy_(x * 2)),
    "zeros.copy_(x[0]) broadcast": _written(lambda L, t, x: t.copy_(x[0])),
    "zeros.copy_(x.float())": _written(lambda L, t, x: t.copy_(x.float())),
    "zeros[:] = x": _written(_setitem(slice(None), lambda x: x)),
    "zeros[...] = x": _written(_setitem(Ellipsis, lambda x: x)),
    "zeros[:, :] = x": _written(_setitem((slice(None), slice(None)), lambda x: x)),
    "zeros[:] = x[0]": _written(_setitem(slice(None), lambda x: x[0])),
    "zeros[0] = x[1]": _written(_setitem(0, lambda x: x[1])),
    "zeros[1:] = x[1:]": _written(_setitem(slice(1, None), lambda x: x[1:])),
    "zeros[:, 0] = x[0]": _written(_setitem((slice(None), 0), lambda x: x[0])),
    "zeros.fill_(x.sum())": _written(lambda L, t, x: t.fill_(x.sum())),
    "y.fill_(2)": _computed(lambda L, y, w: y.fill_(2.0)),
    "y.zero_()": _computed(lambda L, y, w: y.zero_()),
    "y[:] = 0": _computed(_setitem(slice(None), lambda w: 0)),
    "y[0] = 0": _computed(_setitem(0, lambda w: 0)),
    "y.copy_(w)": _computed(lambda L, y, w: y.copy_(w)),
    "y.add_(w)": _computed(lambda L, y, w: y.add_(w)),
    "y.mul_(2)": _computed(lambda L, y, w: y.mul_(2)),
    "y.clamp_(min=0)": _computed(lambda L, y, w: y.clamp_(min=0)),
    "y.relu_()": _computed(lambda L, y, w: y.relu_()),
    "scatter_add_": _computed(lambda L, y, w: y.scatter_add_(1, L.tensor([[0], [1], [2], [3]]), w[:, :1])),
    "threshold(inplace)": _computed(lambda L, y, w: L.nn.functional.threshold(y, 0.1, -2.0, inplace=True)),
})


def _F(lib):
    return lib.nn.functional


# what a training script calls: arithmetic, reductions, views and indexing, joins and splits,
# activations, normalizations, losses, products, conversions, in-place ops of computed tensors
_EXPRESSIONS.update({
    "x+w": lambda L, x, w: x+w,
    "x*w": lambda L, x, w: x*w,
    "x*x": lambda L, x, w: x*x,
    "x-x": lambda L, x, w: x-x,
    "x/x": lambda L, x, w: x/x,
    "2*x": lambda L, x, w: 2*x,
    "x**0.5": lambda L, x, w: x.abs()**0.5,
    "2**x": lambda L, x, w: 2**x,
    "x**w": lambda L, x, w: x.abs()**w,
    "pow(x,3)": lambda L, x, w: L.pow(x,3),
    "add(x,w,alpha=2)": lambda L, x, w: L.add(x,w,alpha=2),
    "mul(x,2)": lambda L, x, w: L.mul(x,2),
    "sqrt": lambda L, x, w: x.abs().sqrt(),
    "rsqrt": lambda L, x, w: x.abs().rsqrt(),
    "log": lambda L, x, w: x.abs().log(),
    "log2": lambda L, x, w: x.abs().log2(),
    "log10": lambda L, x, w: x.abs().log10(),
    "exp2": lambda L, x, w: x.exp2(),
    "expm1": lambda L, x, w: x.expm1(),
    "sin": lambda L, x, w: x.sin(),
    "cos": lambda L, x, w: x.cos(),
    "tan": lambda L, x, w: x.tan(),
    "tanh": lambda L, x, w: x.tanh(),
    "sigmoid": lambda L, x, w: x.sigmoid(),
    "abs": lambda L, x, w: x.abs(),
    "neg": lambda L, x, w: x.neg(),
    "sign": lambda L, x, w: x.sign(),
    "square": lambda L, x, w: x.square(),
    "erf": lambda L, x, w: x.erf(),
    "atan2": lambda L, x, w: L.atan2(x,w),
    "round": lambda L, x, w: x.round(),
    "floor": lambda L, x, w: x.floor(),
    "ceil": lambda L, x, w: x.ceil(),
    "trunc": lambda L, x, w: x.trunc(),
    "maximum": lambda L, x, w: L.maximum(x,w),
    "minimum": lambda L, x, w: L.minimum(x,w),
    "lerp": lambda L, x, w: L.lerp(x,w,0.3),
    "addcmul": lambda L, x, w: L.addcmul(x,w,w),
    "addcdiv": lambda L, x, w: L.addcdiv(x,w,w.abs()+1),
    "where": lambda L, x, w: L.where(w>0,x,w),
    "where scalar": lambda L, x, w: L.where(w>0,x,0.),
    "sum(dim,keepdim)": lambda L, x, w: x.sum(0, keepdim=True),
    "prod": lambda L, x, w: x.prod(),
    "prod(1)": lambda L, x, w: x.prod(1),
    "cumsum": lambda L, x, w: x.cumsum(0),
    "logsumexp": lambda L, x, w: x.logsumexp(1),
    "norm": lambda L, x, w: x.norm(),
    "norm(dim)": lambda L, x, w: x.norm(dim=1),
    "var_mean": lambda L, x, w: L.var_mean(x)[0],
    "median": lambda L, x, w: x.median(),
    "argmax-free max(dim)": lambda L, x, w: x.max(dim=1)[0],
    "sort": lambda L, x, w: x.sort(1)[0],
    "topk": lambda L, x, w: x.topk(2)[0],
    "softmax": lambda L, x, w: x.softmax(1),
    "log_softmax": lambda L, x, w: x.log_softmax(-1),
    "F.softmax": lambda L, x, w: _F(L).softmax(x, dim=0),
    "gelu": lambda L, x, w: _F(L).gelu(x),
    "silu": lambda L, x, w: _F(L).silu(x),
    "leaky_relu": lambda L, x, w: _F(L).leaky_relu(x, 0.1),
    "elu": lambda L, x, w: _F(L).elu(x),
    "softplus": lambda L, x, w: _F(L).softplus(x),
    "hardtanh": lambda L, x, w: _F(L).hardtanh(x),
    "relu6": lambda L, x, w: _F(L).relu6(x),
    "mish": lambda L, x, w: _F(L).mish(x),
    "tanh F": lambda L, x, w: _F(L).tanh(x),
    "dropout": lambda L, x, w: _F(L).dropout(x, 0.5),
    "layer_norm": lambda L, x, w: _F(L).layer_norm(x,(4,)),
    "normalize": lambda L, x, w: _F(L).normalize(x, dim=1),
    "nn.LayerNorm": lambda L, x, w: L.nn.LayerNorm(4).double()(x),
    "nn.Linear": lambda L, x, w: L.nn.Linear(4,3).double()(x),
    "Linear no bias": lambda L, x, w: L.nn.Linear(4,3,bias=False).double()(x),
    "BatchNorm1d": lambda L, x, w: L.nn.BatchNorm1d(4).double()(x),
    "embedding": lambda L, x, w: _F(L).embedding(L.tensor([0,2]), x),
    "conv1d": lambda L, x, w: _F(L).conv1d(x.reshape(1,4,4), w.reshape(2,2,4)[:, :, :2].reshape(2,2,2).repeat(1,2,1)),
    "conv2d": lambda L, x, w: _F(L).conv2d(x.reshape(1,1,4,4), w[:2,:2].reshape(1,1,2,2)),
    "max_pool2d": lambda L, x, w: _F(L).max_pool2d(x.reshape(1,1,4,4), 2),
    "avg_pool2d": lambda L, x, w: _F(L).avg_pool2d(x.reshape(1,1,4,4), 2),
    "adaptive_avg_pool2d": lambda L, x, w: _F(L).adaptive_avg_pool2d(x.reshape(1,1,4,4), 1),
    "kl_div": lambda L, x, w: _F(L).kl_div(x.log_softmax(1), w.softmax(1), reduction="batchmean"),
    "cosine_similarity": lambda L, x, w: _F(L).cosine_similarity(x,w),
    "pairwise_distance": lambda L, x, w: _F(L).pairwise_distance(x,w),
    "cross_entropy label_smoothing": lambda L, x, w: _F(L).cross_entropy(x, L.tensor([0,3,1,1]), label_smoothing=0.1),
    "cross_entropy probs": lambda L, x, w: _F(L).cross_entropy(x, w.softmax(1)),
    "matmul 2x2": lambda L, x, w: L.matmul(x,w),
    "bmm": lambda L, x, w: L.bmm(x.reshape(2,2,4), w.reshape(2,4,2)),
    "batch@batch": lambda L, x, w: x.reshape(2,2,4) @ w.reshape(2,4,2),
    "v@x": lambda L, x, w: w[0] @ x,
    "mv": lambda L, x, w: x.mv(w[0]),
    "outer": lambda L, x, w: L.outer(x[0], w[0]),
    "addmm": lambda L, x, w: L.addmm(w, x, w),
    "x@w.T": lambda L, x, w: x @ w.T,
    "inner": lambda L, x, w: L.inner(x[0], w[0]),
    "tensordot": lambda L, x, w: L.tensordot(x, w, dims=1),
    "view(-1)": lambda L, x, w: x.view(-1),
    "view_as": lambda L, x, w: x.view_as(w),
    "reshape_as": lambda L, x, w: x.reshape_as(w),
    "t().reshape": lambda L, x, w: x.t().reshape(16),
    "t().contiguous": lambda L, x, w: x.t().contiguous(),
    "expand": lambda L, x, w: x[0].expand(3,4),
    "expand_as": lambda L, x, w: x[:1].expand_as(w),
    "repeat": lambda L, x, w: x.repeat(2,1),
    "narrow": lambda L, x, w: x.narrow(0,1,2),
    "unbind": lambda L, x, w: x.unbind(0)[1],
    "split": lambda L, x, w: x.split(2)[0],
    "split sizes": lambda L, x, w: x.split([1,3])[1],
    "chunk": lambda L, x, w: x.chunk(2, 1)[1],
    "flip": lambda L, x, w: x.flip(0),
    "roll": lambda L, x, w: x.roll(1, 0),
    "tril": lambda L, x, w: x.tril(),
    "triu": lambda L, x, w: x.triu(1),
    "diag": lambda L, x, w: x.diag(),
    "diagonal": lambda L, x, w: x.diagonal(),
    "trace": lambda L, x, w: x.trace(),
    "movedim": lambda L, x, w: x.movedim(0,1),
    "unflatten": lambda L, x, w: x.unflatten(1,(2,2)),
    "flatten(0,1) 3d": lambda L, x, w: x.reshape(2,2,4).flatten(0,1),
    "squeeze(-1)": lambda L, x, w: x.unsqueeze(-1).squeeze(-1),
    "x[None,:,None]": lambda L, x, w: x[None,:,None],
    "x[[0,1]]": lambda L, x, w: x[[0,1]],
    "x[idx, idx]": lambda L, x, w: x[L.tensor([0,1]), L.tensor([2,3])],
    "x[:, idx]": lambda L, x, w: x[:, L.tensor([0,2])],
    "gather": lambda L, x, w: x.gather(1, L.tensor([[0],[1],[2],[3]])),
    "index_select": lambda L, x, w: x.index_select(0, L.tensor([1,3])),
    "masked_select": lambda L, x, w: x.masked_select(w>0),
    "take": lambda L, x, w: x.take(L.tensor([1,5])),
    "scatter": lambda L, x, w: L.zeros(4,4,dtype=L.float64).scatter(1, L.tensor([[0],[1],[2],[3]]), x[:, :1]),
    "scatter_add": lambda L, x, w: w.scatter_add(1, L.tensor([[0],[1],[2],[3]]), x[:, :1]),
    "index_add": lambda L, x, w: w.index_add(0, L.tensor([0,1]), x[:2]),
    "cat dim1": lambda L, x, w: L.cat([x, w], 1),
    "concat": lambda L, x, w: L.concat([x, x]),
    "stack 0": lambda L, x, w: L.stack([x, w]),
    "vstack": lambda L, x, w: L.vstack([x, w]),
    "clone": lambda L, x, w: x.clone(),
    "detach+op": lambda L, x, w: x.detach() * x,
    "to(float32)": lambda L, x, w: x.to(L.float32),
    "float()": lambda L, x, w: x.float(),
    "double()": lambda L, x, w: x.float().double(),
    "type(float32)": lambda L, x, w: x.type(L.float32),
    "half": lambda L, x, w: x.half(),
    "abs_() of computed": lambda L, x, w: (x*1).abs_(),
    "sigmoid_": lambda L, x, w: (x*1).sigmoid_(),
    "exp_": lambda L, x, w: (x*1).exp_(),
    "sub_": lambda L, x, w: (x*1).sub_(w),
    "div_": lambda L, x, w: (x*1).div_(2),
    "pow_": lambda L, x, w: (x*1).pow_(2),
    "masked_fill_": lambda L, x, w: (x*1).masked_fill_(w>0, 0.),
    "clamp_(max)": lambda L, x, w: (x*1).clamp_(max=0.),
    "y += w": lambda L, x, w: (lambda y: (y.__iadd__(w)))(x*1),
    "y *= 2": lambda L, x, w: (lambda y: (y.__imul__(2)))(x*1),
    "y[0] += 1": lambda L, x, w: (lambda y: (y.__setitem__(0, y[0] + 1), y)[1])(x*1),
    "y[mask] = 0": lambda L, x, w: (lambda y: (y.__setitem__(w > 0, 0.), y)[1])(x*1),
    "y[idx] = w[0]": lambda L, x, w: (lambda y: (y.__setitem__(L.tensor([1,2]), w[0]), y)[1])(x*1),
    "unsqueeze_": lambda L, x, w: (x*1).unsqueeze_(0),
    "t_": lambda L, x, w: (x*1).t_(),
    "mean(dtype)": lambda L, x, w: x.mean(dtype=L.float64),
    "sum(dtype)": lambda L, x, w: x.sum(dtype=L.float32),
    "nansum": lambda L, x, w: x.nansum(),
    "std(unbiased=False)": lambda L, x, w: x.std(unbiased=False),
    "var()": lambda L, x, w: x.var(),
    "all-reduce amax keepdim": lambda L, x, w: x.amax(1, keepdim=True),
    "logcumsumexp": lambda L, x, w: x.logcumsumexp(0),
    "cummax": lambda L, x, w: x.cummax(0)[0],
    "einsum bi,bi->b": lambda L, x, w: L.einsum("bi,bi->b", x, w),
    "triplet": lambda L, x, w: _F(L).triplet_margin_loss(x, w, w+1),
    "margin_ranking": lambda L, x, w: _F(L).margin_ranking_loss(x[0], w[0], L.ones(4, dtype=L.float64)),
    "soft_margin": lambda L, x, w: _F(L).soft_margin_loss(x, w.sign()),
    "poisson_nll": lambda L, x, w: _F(L).poisson_nll_loss(x, w.abs()),
    "gaussian_nll": lambda L, x, w: _F(L).gaussian_nll_loss(x, w, w.abs()+1),
    "cosine_embedding": lambda L, x, w: _F(L).cosine_embedding_loss(x, w, L.ones(4)),
    "hinge_embedding": lambda L, x, w: _F(L).hinge_embedding_loss(x, w.sign()),
    "one_hot@x": lambda L, x, w: _F(L).one_hot(L.tensor([0,1]), 4).double() @ x,
    "pad": lambda L, x, w: _F(L).pad(x, (1,1)),
    "interpolate": lambda L, x, w: _F(L).interpolate(x.reshape(1,1,4,4), scale_factor=2),
    "pixel_shuffle": lambda L, x, w: _F(L).pixel_shuffle(x.reshape(1,4,2,2), 2),
    "glu": lambda L, x, w: _F(L).glu(x),
    "softmin": lambda L, x, w: _F(L).softmin(x, 1),
    "logsigmoid": lambda L, x, w: _F(L).logsigmoid(x),
    "hardswish": lambda L, x, w: _F(L).hardswish(x),
    "hardsigmoid": lambda L, x, w: _F(L).hardsigmoid(x),
    "selu": lambda L, x, w: _F(L).selu(x),
    "celu": lambda L, x, w: _F(L).celu(x),
    "prelu": lambda L, x, w: _F(L).prelu(x, L.tensor([0.25], dtype=L.float64)),
    "softsign": lambda L, x, w: _F(L).softsign(x),
    "tanhshrink": lambda L, x, w: _F(L).tanhshrink(x),
    "threshold": lambda L, x, w: _F(L).threshold(x, 0.1, 0.),
    "sdpa": lambda L, x, w: _F(L).scaled_dot_product_attention(x[None], w[None], w[None]),
    "group_norm": lambda L, x, w: _F(L).group_norm(x.reshape(1,4,4), 2),
    "instance_norm": lambda L, x, w: _F(L).instance_norm(x.reshape(1,4,4)),
    "unfold": lambda L, x, w: x.unfold(1, 2, 1),
    "F.unfold": lambda L, x, w: _F(L).unfold(x.reshape(1,1,4,4), 2),
    "nan_to_num": lambda L, x, w: x.nan_to_num(),
    "sinh": lambda L, x, w: x.sinh(),
    "asin": lambda L, x, w: (x.tanh()*0.5).asin(),
    "atan": lambda L, x, w: x.atan(),
    "frac": lambda L, x, w: x.frac(),
    "logit": lambda L, x, w: x.sigmoid().logit(),
    "cdist": lambda L, x, w: L.cdist(x, w),
    "dist": lambda L, x, w: L.dist(x, w),
    "linalg.norm": lambda L, x, w: L.linalg.norm(x),
    "linalg.vector_norm dim": lambda L, x, w: L.linalg.vector_norm(x, dim=1),
    "clamp_min": lambda L, x, w: x.clamp_min(0),
    "clamp_max": lambda L, x, w: x.clamp_max(0),
    "mean(0,1)": lambda L, x, w: x.mean((0,1)),
    "sum(-1)": lambda L, x, w: x.sum(-1),
    "exp().sum(1,keepdim)": lambda L, x, w: x.exp().sum(1, keepdim=True),
    "argmax->gather": lambda L, x, w: x.max(1, keepdim=True)[0],
    "x.T @ x": lambda L, x, w: x.T @ x,
    "x[:2, :2]": lambda L, x, w: x[:2, :2],
    "x[1]": lambda L, x, w: x[1],
    "x[:, -1]": lambda L, x, w: x[:, -1],
    "x[:, :, None]": lambda L, x, w: x[:, :, None],
    "x[bool list]": lambda L, x, w: x[L.tensor([True, False, True, False])],
})

# glassgrad records these as other ops and does not name PyTorch's node yet (torch's name, ours)
_NOT_YET_NAMED: dict = {}


def _node_names(lib, f):
    x = lib.tensor(np.random.default_rng(4).standard_normal((4, 4)), requires_grad=True)
    y = f(lib, x, lib.tensor(_W))
    return type(y.grad_fn).__name__, y.grad_fn.name(), repr(y).rpartition("grad_fn=")[2]


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=f"torch {_NOT_YET_NAMED[name][0]}, glassgrad "
                                                                   f"{_NOT_YET_NAMED[name][1]}"))
    if name in _NOT_YET_NAMED else name for name in _EXPRESSIONS])
def test_grad_fn_is_named_as_torch(name):
    # the class name, name() (which gives the namespace of a node PyTorch writes by hand:
    # torch::autograd::CopyBackwards) and the tensor's repr
    assert _node_names(gg, _EXPRESSIONS[name]) == _node_names(torch, _EXPRESSIONS[name])


def test_the_blitz_tutorial_prints_pytorchs_nodes():
    walks = []
    for lib in (gg, torch):
        lib.manual_seed(0)
        net = lib.nn.Linear(4, 2)
        loss = lib.nn.MSELoss()(net(lib.ones(3, 4)), lib.zeros(3, 2))
        walks.append((loss.grad_fn.name(), type(loss.grad_fn).__name__))
    assert walks[0] == walks[1] == ("MseLossBackward0", "MseLossBackward0")


def test_grad_fn_classes_stay_grad_fn_nodes():
    x = gg.ones(2, requires_grad=True)
    a, b = (x + 1).grad_fn, (x + 2).grad_fn
    assert type(a) is type(b) and type(a).__name__ == "AddBackward0"
    assert type((x * 2).grad_fn) is not type(a)
    assert repr(a).startswith("<AddBackward0 object at ")
    assert isinstance(a.next_functions, tuple)
