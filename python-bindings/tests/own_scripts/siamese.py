"""A siamese network on pairs of MNIST-format digits: a torchvision-layout ResNet-18 with its
first convolution replaced for one channel and its classifier dropped (children()[:-1]) embeds
both images with shared weights, the two embeddings are concatenated and scored by a Linear layer
and a sigmoid, and BCELoss trains it to say whether the two digits are the same class."""
import argparse

import glassgrad.nn as nn
import glassgrad.optim as optim
import glassgrad.torch as torch
from glassgrad.utils.data import DataLoader, Dataset
from glassgrad.vision import datasets, models, transforms


class Pairs(Dataset):
    """Pair i: image i and, alternately, an image of the same class (target 1) or of another (0)."""

    def __init__(self, root, train):
        self.data = datasets.MNIST(root, train=train, transform=transforms.ToTensor())
        labels = [int(self.data[i][1]) for i in range(len(self.data))]
        self.by_class = {c: [i for i, lab in enumerate(labels) if lab == c] for c in set(labels)}
        self.labels = labels
        self.gen = torch.Generator().manual_seed(0)

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        same = i % 2 == 0
        cls = self.labels[i]
        choices = self.by_class[cls] if same else [j for j, lab in enumerate(self.labels) if lab != cls] or [i]
        j = choices[int(torch.randint(len(choices), (1,), generator=self.gen))]
        target = torch.tensor(1.0 if self.labels[j] == cls else 0.0)
        return self.data[i][0], self.data[j][0], target


class Siamese(nn.Module):
    def __init__(self):
        super().__init__()
        resnet = models.resnet18(weights=None)
        resnet.conv1 = nn.Conv2d(1, 64, kernel_size=7, stride=2, padding=3, bias=False)
        features = resnet.fc.in_features
        self.embed = nn.Sequential(*list(resnet.children())[:-1])
        self.score = nn.Sequential(nn.Linear(2 * features, 32), nn.ReLU(inplace=True), nn.Linear(32, 1))
        self.sigmoid = nn.Sigmoid()

    def forward(self, a, b):
        ea, eb = self.embed(a).view(a.size(0), -1), self.embed(b).view(b.size(0), -1)
        return self.sigmoid(self.score(torch.cat((ea, eb), 1)))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data")
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--max-steps", type=int, default=None)
    args = p.parse_args()
    torch.manual_seed(0)
    train = DataLoader(Pairs(args.data, True), batch_size=args.batch_size, shuffle=True)
    test = DataLoader(Pairs(args.data, False), batch_size=args.batch_size)
    model = Siamese()
    criterion = nn.BCELoss()
    opt = optim.Adadelta(model.parameters(), lr=1.0)
    model.train()
    for i, (a, b, target) in enumerate(train):
        if i == args.max_steps:
            break
        opt.zero_grad()
        loss = criterion(model(a, b).squeeze(), target)
        loss.backward()
        opt.step()
        print(f"step {i} loss {loss.item():.4f}")
    model.eval()
    total = correct = 0
    with torch.no_grad():
        for a, b, target in test:
            out = model(a, b).squeeze()
            total += criterion(out, target).item() * target.size(0)
            correct += (torch.where(out > 0.5, 1, 0) == target).sum().item()
    print(f"Test set: Average loss: {total / len(test.dataset):.4f}, Accuracy: {correct}/{len(test.dataset)}")
    torch.save(model.state_dict(), "siamese.pt")


if __name__ == "__main__":
    main()
