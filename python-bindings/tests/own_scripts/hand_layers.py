"""Layers written as plain classes over tensors, in the form of a course's "activations and
gradients" and "WaveNet" lectures: Embedding, FlattenConsecutive (`x.view(B, T // n, C * n)`,
`torch.squeeze(x, dim=1)`), Linear, a BatchNorm1d over 2-d or 3-d activations (`mean`/`var` over a
tuple of dims, running buffers updated under `no_grad`, an eval mode), Tanh, Sequential; every
layer's output kept with `retain_grad()` and its gradient's statistics printed with `%`
formatting of 0-d tensors, update-to-data ratios, `torch.tensor(lossi).view(-1, k).mean(1)`, and
rows of logits written into a zeros tensor (`logits[i] = model(x[[i]])`). Written with PyTorch's
imports: test_own_scripts.py ports it with tools/port_script.py and compares what it prints with
PyTorch's run. Every value comes from fixed numbers, none from a seed."""
import torch
import torch.nn.functional as F

vocab, block = 9, 8


def fixed(*shape, scale=1.0, phase=0.0):
    """Deterministic values that are not zeros: a sine over the elements."""
    count = 1
    for s in shape:
        count *= s
    return torch.sin(torch.arange(count, dtype=torch.float32) * 0.37 + phase).view(*shape) * scale


class Linear:
    def __init__(self, fan_in, fan_out, bias=True, phase=0.0):
        self.weight = fixed(fan_in, fan_out, phase=phase) / fan_in**0.5
        self.bias = torch.zeros(fan_out) if bias else None

    def __call__(self, x):
        self.out = x @ self.weight
        if self.bias is not None:
            self.out += self.bias
        return self.out

    def parameters(self):
        return [self.weight] + ([] if self.bias is None else [self.bias])


class BatchNorm1d:
    def __init__(self, dim, eps=1e-5, momentum=0.1):
        self.eps, self.momentum, self.training = eps, momentum, True
        self.gamma, self.beta = torch.ones(dim), torch.zeros(dim)
        self.running_mean, self.running_var = torch.zeros(dim), torch.ones(dim)

    def __call__(self, x):
        if self.training:
            dim = 0 if x.ndim == 2 else (0, 1)
            xmean = x.mean(dim, keepdim=True)
            xvar = x.var(dim, keepdim=True)
        else:
            xmean, xvar = self.running_mean, self.running_var
        xhat = (x - xmean) / torch.sqrt(xvar + self.eps)
        self.out = self.gamma * xhat + self.beta
        if self.training:
            with torch.no_grad():
                self.running_mean = (1 - self.momentum) * self.running_mean + self.momentum * xmean
                self.running_var = (1 - self.momentum) * self.running_var + self.momentum * xvar
        return self.out

    def parameters(self):
        return [self.gamma, self.beta]


class Tanh:
    def __call__(self, x):
        self.out = torch.tanh(x)
        return self.out

    def parameters(self):
        return []


class Embedding:
    def __init__(self, num_embeddings, embedding_dim):
        self.weight = fixed(num_embeddings, embedding_dim, phase=0.5)

    def __call__(self, IX):
        self.out = self.weight[IX]
        return self.out

    def parameters(self):
        return [self.weight]


class FlattenConsecutive:
    def __init__(self, n):
        self.n = n

    def __call__(self, x):
        B, T, C = x.shape
        x = x.view(B, T // self.n, C * self.n)
        if x.shape[1] == 1:
            x = x.squeeze(1)
        self.out = x
        return self.out

    def parameters(self):
        return []


class Sequential:
    def __init__(self, layers):
        self.layers = layers

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        self.out = x
        return self.out

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]


n_embd, n_hidden = 6, 12
model = Sequential([
    Embedding(vocab, n_embd),
    FlattenConsecutive(2), Linear(n_embd * 2, n_hidden, bias=False, phase=0.1), BatchNorm1d(n_hidden), Tanh(),
    FlattenConsecutive(2), Linear(n_hidden * 2, n_hidden, bias=False, phase=0.2), BatchNorm1d(n_hidden), Tanh(),
    FlattenConsecutive(2), Linear(n_hidden * 2, n_hidden, bias=False, phase=0.3), BatchNorm1d(n_hidden), Tanh(),
    Linear(n_hidden, vocab, phase=0.4),
])
with torch.no_grad():
    model.layers[-1].weight *= 0.1
parameters = model.parameters()
print("parameters", sum(p.nelement() for p in parameters))
for p in parameters:
    p.requires_grad = True

X = (torch.arange(16 * block) * 5 % vocab).view(16, block)
Y = (X.sum(1) * 3) % vocab
lossi, ud = [], []
for i in range(40):
    ix = torch.arange(8) + (i % 2) * 8
    Xb, Yb = X[ix], Y[ix]
    logits = model(Xb)
    loss = F.cross_entropy(logits, Yb)
    for layer in model.layers:
        layer.out.retain_grad()
    for p in parameters:
        p.grad = None
    loss.backward()
    lr = 0.5 if i < 30 else 0.05
    for p in parameters:
        p.data += -lr * p.grad
    lossi.append(loss.item())
    with torch.no_grad():
        ud.append([((lr * p.grad).std() / p.data.std()).log10().item() for p in parameters if p.ndim == 2])
    if i % 10 == 0:
        print(f"{i:4d}/40: {loss.item():.4f}")
print("mean losses", [round(v, 4) for v in torch.tensor(lossi).view(-1, 10).mean(1).tolist()])
print("update ratios", [round(v, 2) for v in ud[-1]])
for i, layer in enumerate(model.layers):
    if isinstance(layer, Tanh):
        t = layer.out
        print('layer %d (%10s): mean %+.2f, std %.2f, saturated: %.2f%%' % (
            i, layer.__class__.__name__, t.mean(), t.std(), (t.abs() > 0.97).float().mean() * 100))
        g = layer.out.grad
        # float32 sums in another order differ in the 4th digit of these small gradients
        print('layer %d (%10s): grad mean near 0: %s, std %.2e' % (
            i, layer.__class__.__name__, bool(g.mean().abs() < 1e-4), g.std()))

for layer in model.layers:
    layer.training = False
with torch.no_grad():
    print(f"eval loss {F.cross_entropy(model(X), Y).item():.4f}")
    logits = torch.zeros(4, vocab)
    for i in range(4):
        logits[i] = model(X[[7 + i]])
    print("rows agree with the batch:", torch.allclose(logits, model(X[7:11]), atol=1e-6), list(logits.shape))
