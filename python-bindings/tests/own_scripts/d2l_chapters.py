"""Written as the Chinese "Dive into Deep Learning" (PyTorch edition) writes its chapters, in
PyTorch's own imports: test_own_scripts.py ports it with tools/port_script.py and checks that
glassgrad prints what PyTorch prints running it as it is. Every value comes from fixed numbers,
none from a seed (initial weights are written, batches come in order).

- a house-price table whose columns are mixed Python objects: torch.tensor(values,
  dtype=torch.float) refuses the object array (TypeError); converted, k-fold log-RMSE training with
  Adam and weight decay;
- cross-correlation written by hand against conv2d, pooling by hand against MaxPool2d/AvgPool2d
  with padding and stride;
- a character RNN written from scratch: one-hot inputs by scatter_, hidden state detached in place
  (detach_) between consecutive batches, gradients clipped through `param.grad.data *= k`,
  SGD as `param.data -= lr * param.grad`, perplexity;
- optimizers written by hand on one linear regression: momentum (`v.data = ...`), AdaGrad
  (`s.data += ...`), RMSProp, AdaDelta and Adam (state written through `s[:] = ...`)."""
import math

import numpy as np
import torch
import torch.nn as nn


def show(name, value):
    print(name, np.round(np.asarray(value, dtype=np.float64), 4).tolist())


print("version is a string:", isinstance(torch.__version__, str))

# ---- a house-price table (chapter 3.16) ----
rows = 24
rng_free = np.arange(rows, dtype=np.float64)
area = 50.0 + 7.0 * (rng_free % 9)
rooms = 1.0 + (rng_free % 4)
kind = np.where(rng_free % 3 == 0, "RL", "RM")
price = (area * 1.5 + rooms * 20.0 + np.where(kind == "RL", 30.0, 0.0))
table = np.empty((rows, 4), dtype=object)  # what a mixed pandas frame's .values is
table[:, 0], table[:, 1], table[:, 2], table[:, 3] = area, rooms, kind == "RL", kind == "RM"
try:
    torch.tensor(table, dtype=torch.float)
except TypeError:
    print("object array refused: TypeError")
numeric = table.astype(np.float64)
numeric[:, :2] = (numeric[:, :2] - numeric[:, :2].mean(0)) / numeric[:, :2].std(0)
features = torch.tensor(numeric, dtype=torch.float)
labels = torch.tensor(price, dtype=torch.float).view(-1, 1)
loss = nn.MSELoss()


def log_rmse(net, x, y):
    with torch.no_grad():
        clipped = torch.max(net(x), torch.tensor(1.0))
        return torch.sqrt(loss(clipped.log(), y.log())).item()


def fit(train_x, train_y, test_x, test_y, epochs=30, lr=2.0, weight_decay=0.01, batch_size=4):
    net = nn.Linear(train_x.shape[1], 1)
    nn.init.constant_(net.weight, 0.5)
    nn.init.constant_(net.bias, 100.0)
    optimizer = torch.optim.Adam(net.parameters(), lr=lr, weight_decay=weight_decay)
    batches = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(train_x, train_y), batch_size)
    for _ in range(epochs):
        for x, y in batches:
            optimizer.zero_grad()
            loss(net(x), y).backward()
            optimizer.step()
    return log_rmse(net, train_x, train_y), log_rmse(net, test_x, test_y)


k, fold = 3, rows // 3
for i in range(k):
    valid = slice(i * fold, (i + 1) * fold)
    keep = torch.cat([features[:i * fold], features[(i + 1) * fold:]], dim=0)
    keep_y = torch.cat([labels[:i * fold], labels[(i + 1) * fold:]], dim=0)
    show(f"fold {i} train, valid log rmse", fit(keep, keep_y, features[valid], labels[valid]))


# ---- convolution and pooling written out (chapter 5.1, 5.4) ----
def corr2d(x, k):
    h, w = k.shape
    y = torch.zeros((x.shape[0] - h + 1, x.shape[1] - w + 1))
    for i in range(y.shape[0]):
        for j in range(y.shape[1]):
            y[i, j] = (x[i: i + h, j: j + w] * k).sum()
    return y


def pool2d(x, size, mode="max"):
    p_h, p_w = size
    y = torch.zeros(x.shape[0] - p_h + 1, x.shape[1] - p_w + 1)
    for i in range(y.shape[0]):
        for j in range(y.shape[1]):
            window = x[i: i + p_h, j: j + p_w]
            y[i, j] = window.max() if mode == "max" else window.mean()
    return y


x = torch.arange(30, dtype=torch.float32).view(5, 6) % 7
kernel = torch.tensor([[1.0, -1.0], [0.5, 2.0]])
by_hand = corr2d(x, kernel)
conv = nn.Conv2d(1, 1, kernel_size=2, bias=False)
conv.weight.data = kernel.view(1, 1, 2, 2)
print("corr2d agrees with conv2d:", torch.equal(by_hand, conv(x.view(1, 1, 5, 6)).detach().view(4, 5)))
show("corr2d", by_hand)
show("pool2d max", pool2d(x, (2, 3)))
show("pool2d avg", pool2d(x, (2, 2), "avg"))
grid = torch.cat((x.view(1, 1, 5, 6), x.view(1, 1, 5, 6) + 1), dim=1)
show("MaxPool2d(3, padding=1, stride=2)", nn.MaxPool2d(3, padding=1, stride=2)(grid))
show("AvgPool2d((2, 4), padding=(0, 1), stride=(2, 3))", nn.AvgPool2d((2, 4), padding=(0, 1), stride=(2, 3))(grid))

# ---- a character RNN from scratch (chapter 6.4) ----
text = "the quick brown fox jumps over the lazy dog and the dog sleeps " * 3
chars = sorted(set(text))
char_to_idx = {c: i for i, c in enumerate(chars)}
corpus = [char_to_idx[c] for c in text]
vocab, hidden, steps, batch = len(chars), 16, 5, 2


def fixed(shape, scale):
    n = int(np.prod(shape))
    return nn.Parameter(torch.tensor(np.sin(np.arange(n) * 0.7 + scale).reshape(shape) * 0.1, dtype=torch.float32))


params = [fixed((vocab, hidden), 1), fixed((hidden, hidden), 2), nn.Parameter(torch.zeros(hidden)),
          fixed((hidden, vocab), 3), nn.Parameter(torch.zeros(vocab))]


def one_hot(x, n):
    out = torch.zeros(x.shape[0], n, dtype=torch.float32)
    out.scatter_(1, x.long().view(-1, 1), 1)
    return out


def rnn(inputs, state, params):
    w_xh, w_hh, b_h, w_hq, b_q = params
    h, = state
    outputs = []
    for x in inputs:
        h = torch.tanh(torch.matmul(x, w_xh) + torch.matmul(h, w_hh) + b_h)
        outputs.append(torch.matmul(h, w_hq) + b_q)
    return outputs, (h,)


def consecutive(corpus, batch, steps):
    data = torch.tensor(corpus, dtype=torch.float32)
    length = len(data) // batch
    grid = data[: batch * length].view(batch, length)
    for i in range(0, (length - 1) // steps * steps, steps):
        yield grid[:, i: i + steps], grid[:, i + 1: i + steps + 1]


def clip(params, theta):
    norm = torch.tensor([0.0])
    for p in params:
        norm += (p.grad.data ** 2).sum()
    norm = norm.sqrt().item()
    if norm > theta:
        for p in params:
            p.grad.data *= (theta / norm)


cross_entropy = nn.CrossEntropyLoss()
for epoch in range(3):
    state = (torch.zeros(batch, hidden),)
    total, count = 0.0, 0
    for X, Y in consecutive(corpus, batch, steps):
        for s in state:
            s.detach_()
        outputs, state = rnn([one_hot(X[:, t], vocab) for t in range(X.shape[1])], state, params)
        y = torch.transpose(Y, 0, 1).contiguous().view(-1)
        l = cross_entropy(torch.cat(outputs, dim=0), y.long())
        if params[0].grad is not None:
            for p in params:
                p.grad.data.zero_()
        l.backward()
        clip(params, 1.0)
        for p in params:
            p.data -= 1.0 * p.grad
        total += l.item() * y.shape[0]
        count += y.shape[0]
    print(f"epoch {epoch + 1}, perplexity {math.exp(total / count):.2f}")

# ---- optimizers written by hand (chapter 7) ----
xs = torch.linspace(-1, 1, 40).view(20, 2)
ys = xs @ torch.tensor([[2.0], [-3.0]]) + 0.5


def train(update, states, hyper, epochs=3, batch_size=5):
    w = nn.Parameter(torch.full((2, 1), 0.1))
    b = nn.Parameter(torch.zeros(1))
    for _ in range(epochs):
        for i in range(0, 20, batch_size):
            l = ((xs[i: i + batch_size] @ w + b - ys[i: i + batch_size]) ** 2 / 2).mean()
            if w.grad is not None:
                w.grad.data.zero_()
                b.grad.data.zero_()
            l.backward()
            update([w, b], states, hyper)
            hyper["t"] = hyper.get("t", 1) + 1
    return ((xs @ w + b - ys) ** 2 / 2).mean().item()


def momentum(params, states, hyper):
    for p, v in zip(params, states):
        v.data = hyper["momentum"] * v.data + hyper["lr"] * p.grad.data
        p.data -= v.data


def adagrad(params, states, hyper):
    for p, s in zip(params, states):
        s.data += p.grad.data ** 2
        p.data -= hyper["lr"] * p.grad.data / torch.sqrt(s + 1e-6)


def rmsprop(params, states, hyper):
    for p, s in zip(params, states):
        s.data = hyper["gamma"] * s.data + (1 - hyper["gamma"]) * p.grad.data ** 2
        p.data -= hyper["lr"] * p.grad.data / torch.sqrt(s + 1e-6)


def adadelta(params, states, hyper):
    rho, eps = hyper["rho"], 1e-5
    for p, (s, delta) in zip(params, states):
        s[:] = rho * s + (1 - rho) * (p.grad.data ** 2)
        g = p.grad.data * torch.sqrt((delta + eps) / (s + eps))
        p.data -= g
        delta[:] = rho * delta + (1 - rho) * g * g


def adam(params, states, hyper):
    beta1, beta2, eps = 0.9, 0.999, 1e-6
    for p, (v, s) in zip(params, states):
        v[:] = beta1 * v + (1 - beta1) * p.grad.data
        s[:] = beta2 * s + (1 - beta2) * p.grad.data ** 2
        v_hat = v / (1 - beta1 ** hyper["t"])
        s_hat = s / (1 - beta2 ** hyper["t"])
        p.data -= hyper["lr"] * v_hat / (torch.sqrt(s_hat) + eps)


def zeros():
    return (torch.zeros((2, 1)), torch.zeros(1))


show("momentum", train(momentum, zeros(), {"lr": 0.05, "momentum": 0.5}))
show("adagrad", train(adagrad, zeros(), {"lr": 0.5}))
show("rmsprop", train(rmsprop, zeros(), {"lr": 0.05, "gamma": 0.9}))
show("adadelta", train(adadelta, tuple(zip(zeros(), zeros())), {"rho": 0.9}))
show("adam", train(adam, tuple(zip(zeros(), zeros())), {"lr": 0.1, "t": 1}))
