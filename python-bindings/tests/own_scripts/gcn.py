"""A two-layer graph convolutional network on a random graph with planted classes: the
symmetrically normalized adjacency D^-1/2 (A + I) D^-1/2 built once as a sparse COO tensor
(torch.sparse.mm) and once dense (matmul), the two checked to agree, node classification trained
with Adam and weight decay on a training mask, accuracy on held-out nodes."""
import argparse

import glassgrad.nn as nn
import glassgrad.nn.functional as F
import glassgrad.torch as torch


class GraphConv(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(cin, cout))
        self.bias = nn.Parameter(torch.zeros(cout))
        nn.init.xavier_uniform_(self.weight)

    def forward(self, x, adj):
        support = x @ self.weight
        out = torch.sparse.mm(adj, support) if adj.is_sparse else adj @ support
        return out + self.bias


class GCN(nn.Module):
    def __init__(self, cin, hidden, classes):
        super().__init__()
        self.gc1, self.gc2 = GraphConv(cin, hidden), GraphConv(hidden, classes)

    def forward(self, x, adj):
        x = F.dropout(F.relu(self.gc1(x, adj)), 0.5, self.training)
        return F.log_softmax(self.gc2(x, adj), dim=1)


def graph(n, classes, features, gen):
    labels = torch.randint(classes, (n,), generator=gen)
    # features: a noisy one-hot of the class in the first columns
    x = torch.rand(n, features, generator=gen) * 0.5
    x[torch.arange(n), labels] += 1.0
    src = torch.randint(n, (4 * n,), generator=gen)
    dst = torch.randint(n, (4 * n,), generator=gen)
    keep = (labels[src] == labels[dst]) | (torch.rand(4 * n, generator=gen) < 0.2)  # mostly within a class
    src, dst = src[keep], dst[keep]
    dense = torch.zeros(n, n)
    dense[src, dst] = 1.0
    dense = ((dense + dense.t()) > 0).float() + torch.eye(n)
    d = dense.sum(1).pow(-0.5)
    dense = d.view(-1, 1) * dense * d.view(1, -1)
    rows, cols = dense.nonzero(as_tuple=True)
    sparse = torch.sparse_coo_tensor(torch.stack([rows, cols]), dense[rows, cols], (n, n))
    return x, labels, dense, sparse


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--nodes", type=int, default=200)
    p.add_argument("--epochs", type=int, default=30)
    args = p.parse_args()
    gen = torch.Generator().manual_seed(0)
    torch.manual_seed(0)
    x, labels, dense, sparse = graph(args.nodes, 3, 12, gen)
    print(f"edges {sparse._nnz()} sparse and dense products agree:",
          bool(torch.allclose(torch.sparse.mm(sparse, x), dense @ x, atol=1e-5)))
    train_idx, test_idx = torch.arange(0, args.nodes // 2), torch.arange(args.nodes // 2, args.nodes)
    model = GCN(12, 16, 3)
    opt = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
    for epoch in range(args.epochs):
        model.train()
        opt.zero_grad()
        out = model(x, sparse if epoch % 2 == 0 else dense)
        loss = F.nll_loss(out[train_idx], labels[train_idx])
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        pred = model(x, sparse).argmax(1)
    acc = (pred[test_idx] == labels[test_idx]).float().mean().item()
    print(f"loss_train: {loss.item():.4f} test accuracy: {acc:.3f}")


if __name__ == "__main__":
    main()
