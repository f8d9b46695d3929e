"""Written as scripts for PyTorch 0.3-0.4 were (Variable, torch.FloatTensor, .data updates,
F.softmax without dim, TensorDataset batches, a saved state_dict), in PyTorch's own imports:
test_own_scripts.py ports it with tools/port_script.py and checks that glassgrad prints what
PyTorch prints running it as it is. Every value comes from fixed numbers, none from a seed.
--mnist ROOT also reads an MNIST folder through torchvision's old attribute names (train_data,
train_labels, test_data, test_labels), glassgrad only (it needs torchvision)."""
import sys

import numpy as np
import torch
import torch.nn.functional as F
import torch.utils.data as Data
from torch.autograd import Variable


def show(name, t):
    print(name, np.round(np.asarray(t.tolist(), dtype=np.float64), 4).tolist())


x = torch.FloatTensor([[1, 2], [3, 4]])
v = Variable(x, requires_grad=True)
out = torch.mean(v * v)
out.backward()
show("mean of squares", out.data)
show("its gradient", v.grad)
show("softmax without dim", F.softmax(Variable(torch.FloatTensor([[1, 2, 3], [1, 1, 1]]))))
show("long sum", torch.LongTensor([1, 2, 3]).sum())

# a line fitted with .data updates, the gradients zeroed by hand
inputs = torch.unsqueeze(torch.linspace(-1, 1, 20), dim=1)
targets = 3 * inputs + 0.5
w = Variable(torch.zeros(1, 1), requires_grad=True)
b = Variable(torch.zeros(1), requires_grad=True)
for step in range(50):
    loss = ((inputs.mm(w) + b - targets) ** 2).mean()
    loss.backward()
    w.data -= 0.2 * w.grad.data
    b.data -= 0.2 * b.grad.data
    w.grad.data.zero_()
    b.grad.data.zero_()
show("fitted w", w.data)
show("fitted b", b.data)

# batches of a TensorDataset in order
dataset = Data.TensorDataset(torch.linspace(1, 10, 10), torch.linspace(10, 1, 10))
for batch_x, batch_y in Data.DataLoader(dataset=dataset, batch_size=4, shuffle=False):
    show("batch x", batch_x)
    show("batch y", batch_y)

# a whole model saved and its state_dict loaded into a fresh one
net = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
for p in net.parameters():
    p.data.fill_(0.1)
torch.save(net.state_dict(), "net_params.pkl")
fresh = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
fresh.load_state_dict(torch.load("net_params.pkl"))
show("reloaded output", fresh(Variable(x)).data)

if len(sys.argv) > 2 and sys.argv[1] == "--mnist":
    import torchvision
    train = torchvision.datasets.MNIST(root=sys.argv[2], train=True, transform=torchvision.transforms.ToTensor())
    test = torchvision.datasets.MNIST(root=sys.argv[2], train=False)
    print("train_data", tuple(train.train_data.size()), "train_labels", tuple(train.train_labels.size()))
    test_x = torch.unsqueeze(test.test_data, dim=1).type(torch.FloatTensor)[:5] / 255.
    print("test_x", tuple(test_x.size()), "test_labels", test.test_labels[:5].tolist() == test.targets[:5].tolist())
