"""Recurrent networks in the form of a PyTorch 0.3 course's lecture scripts: one-hot characters fed
to `nn.RNN` one step at a time with the hidden state carried and the loss summed from `0`
(`loss += criterion(...)`), printed by `%` formatting and read back as `idx2char[idx.data[0]]`;
names padded into a LongTensor, sorted by length, packed for a bidirectional two-layer GRU whose
last hidden state classifies them; a character decoder sampled with `chr(torch.multinomial(...)[0])`;
and the two lines where PyTorch 2 stops such scripts (`loss.data[0]` of a 0-d loss, a 0-d target
for a batch of one row of scores), caught here. Written with PyTorch's imports:
test_own_scripts.py ports it with tools/port_script.py and compares what it prints with PyTorch's
run. Every value comes from fixed numbers, none from a seed."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import max, tensor
from torch.autograd import Variable
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
from torch.utils.data import DataLoader, Dataset


def fixed(module, scale=0.3):
    """Every parameter set to a sine over its elements: the same numbers in every framework."""
    with torch.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_((torch.sin(torch.arange(p.numel(), dtype=torch.float32) * 0.9 + i) * scale).view(p.shape))
    return module


# "hihell" -> "ihello", one character at a time
idx2char = ['h', 'i', 'e', 'l', 'o']
x_data, y_data = [0, 1, 0, 2, 3, 3], [1, 0, 2, 3, 3, 4]
one_hot = [[1 if i == x else 0 for i in range(5)] for x in x_data]
inputs, labels = Variable(torch.Tensor(one_hot)), Variable(torch.LongTensor(y_data))
rnn = fixed(nn.RNN(input_size=5, hidden_size=5, batch_first=True))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(rnn.parameters(), lr=0.1)
for epoch in range(40):
    optimizer.zero_grad()
    loss = 0
    hidden = Variable(torch.zeros(1, 1, 5))
    predicted = ""
    for one, label in zip(inputs, labels):
        out, hidden = rnn(one.view(1, 1, -1), hidden)
        output = out.view(-1, 5)
        val, idx = output.max(1)
        predicted += idx2char[idx.data[0]]
        loss += criterion(output, torch.LongTensor([label]))
    if epoch % 10 == 0 or epoch == 39:
        print("predicted string: %s, epoch: %d, loss: %1.3f" % (predicted, epoch + 1, loss.item()))
    loss.backward()
    optimizer.step()
# the whole sequence at once gives the steps' outputs
out, _ = rnn(inputs.view(1, 6, 5), Variable(torch.zeros(1, 1, 5)))
steps = []
hidden = Variable(torch.zeros(1, 1, 5))
for one in inputs:
    o, hidden = rnn(one.view(1, 1, -1), hidden)
    steps.append(o)
print("sequence agrees with steps:", torch.allclose(out, torch.cat(steps, 1), atol=1e-6))
try:
    print(loss.data[0])
except IndexError:
    print("loss.data[0]: IndexError")

# a softmax classifier's losses through the module imports a lecture used
loss = nn.CrossEntropyLoss()
Y_pred = tensor([[0.1, 0.2, 0.9], [1.1, 0.1, 0.2], [0.2, 2.1, 0.1]])
print(f"batch loss: {loss(Y_pred, tensor([2, 0, 1])).item():.4f} predicted: {max(Y_pred.data, 1)[1].tolist()}")
try:
    loss(Y_pred[:1], tensor([2])[0])
except ValueError:
    print("0-d target for one row: ValueError")


# names padded, sorted by length, packed for a bidirectional GRU
class Names(Dataset):
    def __init__(self):
        self.names = ["adylov", "solan", "hard", "san", "nakamura", "li", "schmidt", "rossi"]
        self.countries = ["Russian", "Russian", "English", "Korean", "Japanese", "Chinese", "German", "Italian"]

    def __getitem__(self, index):
        return self.names[index], self.countries[index]

    def __len__(self):
        return len(self.names)


dataset = Names()
countries = sorted(set(dataset.countries))
embedding = fixed(nn.Embedding(128, 8))
gru = fixed(nn.GRU(8, 8, 2, bidirectional=True))
fc = fixed(nn.Linear(8, len(countries)))
for names, batch_countries in DataLoader(dataset, batch_size=4, shuffle=False):
    seqs = [[ord(c) for c in name] for name in names]
    seq_lengths = torch.LongTensor([len(s) for s in seqs])
    seq_tensor = torch.zeros((len(seqs), seq_lengths.max())).long()
    for idx, (seq, seq_len) in enumerate(zip(seqs, seq_lengths)):
        seq_tensor[idx, :seq_len] = torch.LongTensor(seq)
    seq_lengths, perm_idx = seq_lengths.sort(0, descending=True)
    seq_tensor = seq_tensor[perm_idx]
    target = torch.LongTensor([countries.index(c) for c in batch_countries])[perm_idx]
    embedded = embedding(seq_tensor.t())
    packed = pack_padded_sequence(embedded, seq_lengths.data.cpu().numpy())
    gru.flatten_parameters()
    output, hidden = gru(packed, Variable(torch.zeros(4, len(seqs), 8)))
    padded, lengths = pad_packed_sequence(output)
    scores = fc(hidden[-1])
    pred = scores.data.max(1, keepdim=True)[1]
    correct = pred.eq(target.data.view_as(pred)).cpu().sum()
    nll = F.nll_loss(F.log_softmax(scores), target, size_average=False).data
    print(f"names {list(names)} lengths {lengths.tolist()} padded {list(padded.shape)} "
          f"nll {nll.item():.4f} correct {int(correct)}")

# a character decoder sampled with the temperature trick
decoder = fixed(nn.GRU(8, 8))
out_layer = fixed(nn.Linear(8, 128), scale=2.0)
dist = out_layer(decoder(embedding(torch.LongTensor([ord("W")])).view(1, 1, -1))[0]).data.view(-1).div(0.8).exp()
top_i = torch.multinomial(dist, 1)[0]
print("sampled a character:", isinstance(chr(top_i), str), "argmax:", ord(chr(dist.argmax())))
