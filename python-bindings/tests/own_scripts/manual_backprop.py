"""Gradients written by hand and compared with autograd's, in the form of a course's "backprop by
hand" lecture: a character MLP with a batch norm written out, its forward pass chunked into named
steps whose gradients are kept (`retain_grad`), each hand-written gradient checked against `.grad`
by exact equality (`torch.all(dt == t.grad)`) and `torch.allclose`; then the cross-entropy and
batch-norm backward in closed form, a training loop that uses only the hand-written gradients
under `no_grad`, and the activation statistics printed through `torch.histogram`. Written with
PyTorch's imports: test_own_scripts.py ports it with tools/port_script.py and compares what it
prints with PyTorch's run. Every value comes from fixed numbers, none from a seed."""
import torch
import torch.nn.functional as F

vocab, block, n_embd, n_hidden, n = 11, 3, 4, 16, 8


def fixed(*shape, scale=1.0, phase=0.0):
    """Deterministic values that are not zeros: a sine over the elements."""
    count = 1
    for s in shape:
        count *= s
    return (torch.sin(torch.arange(count, dtype=torch.float32) * 0.7 + phase) * scale).view(*shape)


def cmp(s, dt, t):
    app = torch.allclose(dt, t.grad, rtol=1e-4, atol=1e-6)
    print(f"{s:15s} | shape: {str(tuple(dt.shape)):8s} | approximate: {str(app):5s}")
    return app


C = fixed(vocab, n_embd, phase=0.1)
W1 = fixed(n_embd * block, n_hidden, scale=(5 / 3) / (n_embd * block) ** 0.5, phase=0.2)
b1 = fixed(n_hidden, scale=0.1, phase=0.3)
W2 = fixed(n_hidden, vocab, scale=0.1, phase=0.4)
b2 = fixed(vocab, scale=0.1, phase=0.5)
bngain = fixed(1, n_hidden, scale=0.1, phase=0.6) + 1.0
bnbias = fixed(1, n_hidden, scale=0.1, phase=0.7)
parameters = [C, W1, b1, W2, b2, bngain, bnbias]
for p in parameters:
    p.requires_grad = True
Xb = (torch.arange(n * block) * 7 % vocab).view(n, block)
Yb = torch.arange(n) * 5 % vocab

# forward pass, one named step at a time
emb = C[Xb]
embcat = emb.view(emb.shape[0], -1)
hprebn = embcat @ W1 + b1
bnmeani = 1 / n * hprebn.sum(0, keepdim=True)
bndiff = hprebn - bnmeani
bndiff2 = bndiff**2
bnvar = 1 / (n - 1) * (bndiff2).sum(0, keepdim=True)
bnvar_inv = (bnvar + 1e-5)**-0.5
bnraw = bndiff * bnvar_inv
hpreact = bngain * bnraw + bnbias
h = torch.tanh(hpreact)
logits = h @ W2 + b2
logit_maxes = logits.max(1, keepdim=True).values
norm_logits = logits - logit_maxes
counts = norm_logits.exp()
counts_sum = counts.sum(1, keepdims=True)
counts_sum_inv = counts_sum**-1
probs = counts * counts_sum_inv
logprobs = probs.log()
loss = -logprobs[range(n), Yb].mean()
for p in parameters:
    p.grad = None
steps = [logprobs, probs, counts, counts_sum, counts_sum_inv, norm_logits, logit_maxes, logits, h, hpreact,
         bnraw, bnvar_inv, bnvar, bndiff2, bndiff, hprebn, bnmeani, embcat, emb]
for t in steps:
    t.retain_grad()
loss.backward()
print(f"loss {loss.item():.4f}")

# the same gradients by hand, step by step backwards
dlogprobs = torch.zeros_like(logprobs)
dlogprobs[range(n), Yb] = -1.0 / n
dprobs = (1.0 / probs) * dlogprobs
dcounts_sum_inv = (counts * dprobs).sum(1, keepdim=True)
dcounts = counts_sum_inv * dprobs
dcounts_sum = (-counts_sum**-2) * dcounts_sum_inv
dcounts += torch.ones_like(counts) * dcounts_sum
dnorm_logits = counts * dcounts
dlogits = dnorm_logits.clone()
dlogit_maxes = (-dnorm_logits).sum(1, keepdim=True)
dlogits += F.one_hot(logits.max(1).indices, num_classes=logits.shape[1]) * dlogit_maxes
dh = dlogits @ W2.T
dW2 = h.T @ dlogits
db2 = dlogits.sum(0)
dhpreact = (1.0 - h**2) * dh
dbngain = (bnraw * dhpreact).sum(0, keepdim=True)
dbnraw = bngain * dhpreact
dbnbias = dhpreact.sum(0, keepdim=True)
dbndiff = bnvar_inv * dbnraw
dbnvar_inv = (bndiff * dbnraw).sum(0, keepdim=True)
dbnvar = (-0.5 * (bnvar + 1e-5)**-1.5) * dbnvar_inv
dbndiff2 = (1.0 / (n - 1)) * torch.ones_like(bndiff2) * dbnvar
dbndiff += (2 * bndiff) * dbndiff2
dhprebn = dbndiff.clone()
dbnmeani = (-dbndiff).sum(0)
dhprebn += 1.0 / n * (torch.ones_like(hprebn) * dbnmeani)
dembcat = dhprebn @ W1.T
dW1 = embcat.T @ dhprebn
db1 = dhprebn.sum(0)
demb = dembcat.view(emb.shape)
dC = torch.zeros_like(C)
for k in range(Xb.shape[0]):
    for j in range(Xb.shape[1]):
        ix = Xb[k, j]
        dC[ix] += demb[k, j]  # a 0-d index tensor picks the row

checks = [("logprobs", dlogprobs, logprobs), ("probs", dprobs, probs), ("counts_sum_inv", dcounts_sum_inv, counts_sum_inv),
          ("counts_sum", dcounts_sum, counts_sum), ("counts", dcounts, counts), ("norm_logits", dnorm_logits, norm_logits),
          ("logit_maxes", dlogit_maxes, logit_maxes), ("logits", dlogits, logits), ("h", dh, h), ("W2", dW2, W2),
          ("b2", db2, b2), ("hpreact", dhpreact, hpreact), ("bngain", dbngain, bngain), ("bnbias", dbnbias, bnbias),
          ("bnraw", dbnraw, bnraw), ("bnvar_inv", dbnvar_inv, bnvar_inv), ("bnvar", dbnvar, bnvar),
          ("bndiff2", dbndiff2, bndiff2), ("bndiff", dbndiff, bndiff), ("bnmeani", dbnmeani, bnmeani),
          ("hprebn", dhprebn, hprebn), ("embcat", dembcat, embcat), ("W1", dW1, W1), ("b1", db1, b1),
          ("emb", demb, emb), ("C", dC, C)]
agree = [cmp(*c) for c in checks]
print("exact where autograd's steps are the same:", bool(torch.all(dlogprobs == logprobs.grad).item()))

# cross entropy and batch norm backward in one expression each
loss_fast = F.cross_entropy(logits, Yb)
print(f"cross_entropy agrees: {abs(loss_fast.item() - loss.item()) < 1e-5}")
dlogits = F.softmax(logits, 1)
dlogits[range(n), Yb] -= 1
dlogits /= n
agree.append(cmp("logits (fast)", dlogits, logits))
hpreact_fast = (bngain * (hprebn - hprebn.mean(0, keepdim=True))
                / torch.sqrt(hprebn.var(0, keepdim=True, unbiased=True) + 1e-5) + bnbias)
print(f"batch norm agrees: {(hpreact_fast - hpreact).abs().max().item() < 1e-5}")
dhprebn = bngain * bnvar_inv / n * (n * dhpreact - dhpreact.sum(0) - n / (n - 1) * bnraw * (dhpreact * bnraw).sum(0))
agree.append(cmp("hprebn (fast)", dhprebn, hprebn))
print("all agree:", all(agree))

# training with the hand-written gradients only
with torch.no_grad():
    for step in range(30):
        emb = C[Xb]
        embcat = emb.view(emb.shape[0], -1)
        hprebn = embcat @ W1 + b1
        bnmean = hprebn.mean(0, keepdim=True)
        bnvar = hprebn.var(0, keepdim=True, unbiased=True)
        bnvar_inv = (bnvar + 1e-5)**-0.5
        bnraw = (hprebn - bnmean) * bnvar_inv
        hpreact = bngain * bnraw + bnbias
        h = torch.tanh(hpreact)
        logits = h @ W2 + b2
        loss = F.cross_entropy(logits, Yb)
        dlogits = F.softmax(logits, 1)
        dlogits[range(n), Yb] -= 1
        dlogits /= n
        dh = dlogits @ W2.T
        dW2, db2 = h.T @ dlogits, dlogits.sum(0)
        dhpreact = (1.0 - h**2) * dh
        dbngain = (bnraw * dhpreact).sum(0, keepdim=True)
        dbnbias = dhpreact.sum(0, keepdim=True)
        dhprebn = bngain * bnvar_inv / n * (n * dhpreact - dhpreact.sum(0) - n / (n - 1) * bnraw * (dhpreact * bnraw).sum(0))
        dembcat = dhprebn @ W1.T
        dW1, db1 = embcat.T @ dhprebn, dhprebn.sum(0)
        demb = dembcat.view(emb.shape)
        dC = torch.zeros_like(C)
        dC.index_add_(0, Xb.view(-1), demb.view(-1, n_embd))
        for p, grad in zip(parameters, [dC, dW1, db1, dW2, db2, dbngain, dbnbias]):
            p.data += -0.5 * grad
        if step % 10 == 0 or step == 29:
            print(f"step {step:2d} loss {loss.item():.4f}")


@torch.no_grad()
def statistics(t):
    counts, edges = torch.histogram(t, bins=5, density=True)
    print("tanh: mean %+.2f, std %.2f, saturated: %.2f%%" % (t.mean(), t.std(), (t.abs() > 0.97).float().mean() * 100))
    print("histogram", [round(v, 3) for v in counts.tolist()], [round(v, 3) for v in edges.tolist()])


statistics(h)
