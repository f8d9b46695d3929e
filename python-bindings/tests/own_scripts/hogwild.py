"""Hogwild-style training: one model whose parameters are put in shared memory
(model.share_memory()), trained at once by several processes started with
glassgrad.multiprocessing, each over its own part of the data and with its own optimizer, with no
locking; the parent then sees the trained weights and tests the model."""
import argparse

import glassgrad.multiprocessing as mp
import glassgrad.nn as nn
import glassgrad.nn.functional as F
import glassgrad.optim as optim
import glassgrad.torch as torch
from glassgrad.utils.data import DataLoader, Subset
from glassgrad.vision import datasets, transforms


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 5)
        self.fc = nn.Linear(4 * 12 * 12, 10)

    def forward(self, x):
        return F.log_softmax(self.fc(torch.flatten(F.max_pool2d(F.relu(self.conv(x)), 2), 1)), dim=1)


def dataset(root, train):
    return datasets.MNIST(root, train=train, transform=transforms.Compose([transforms.ToTensor()]))


def train(rank, args, model):
    torch.manual_seed(args.seed + rank)
    data = dataset(args.data, True)
    part = Subset(data, list(range(rank, len(data), args.num_processes)))
    opt = optim.SGD(model.parameters(), lr=0.05, momentum=0.5)
    for x, y in DataLoader(part, batch_size=16, shuffle=True):
        opt.zero_grad()
        loss = F.nll_loss(model(x), y)
        loss.backward()
        opt.step()
        print(f"process {rank} loss {loss.item():.4f}", flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data")
    p.add_argument("--num-processes", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    torch.manual_seed(args.seed)
    model = Net()
    model.share_memory()
    before = model.fc.weight.detach().numpy().copy()  # the values now (a NumPy copy is taken at once)
    processes = []
    for rank in range(args.num_processes):
        proc = mp.Process(target=train, args=(rank, args, model))
        proc.start()
        processes.append(proc)
    for proc in processes:
        proc.join()
        assert proc.exitcode == 0, f"process exited with {proc.exitcode}"
    changed = float(abs(model.fc.weight.detach().numpy() - before).max())
    print(f"shared weights changed by the processes: {changed > 0} ({changed:.2e})")
    model.eval()
    with torch.no_grad():
        x, y = next(iter(DataLoader(dataset(args.data, False), batch_size=1000)))
        out = model(x)
        print(f"Test set: Average loss: {F.nll_loss(out, y).item():.4f}, "
              f"Accuracy: {out.argmax(1).eq(y).sum().item()}/{y.size(0)}")


if __name__ == "__main__":
    main()
