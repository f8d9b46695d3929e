"""Module traversal as PyTorch documents it: a parameter or module reachable by two names (tied
embedding and output weights, a layer used twice) comes once from named_parameters /
parameters / named_modules / children (remove_duplicate=False lists every name), recurse=False
lists a module's own entries, and state_dict keeps every name (a tied weight under both), so an
optimizer given model.parameters() sees each tensor once (nanoGPT's weight tying)."""
import glassgrad as gg
import glassgrad.nn as nn


class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(10, 4)
        self.shared = nn.Linear(4, 4)
        self.again = self.shared
        self.head = nn.Linear(4, 10, bias=False)
        self.wte.weight = self.head.weight
        self.register_buffer("mask", gg.ones(4))


def test_tied_and_shared_entries_come_once():
    m = Tied()
    assert [n for n, _ in m.named_parameters()] == ["wte.weight", "shared.weight", "shared.bias"]
    assert len(list(m.parameters())) == 3
    assert [n for n, _ in m.named_parameters(remove_duplicate=False)] == [
        "wte.weight", "shared.weight", "shared.bias", "again.weight", "again.bias", "head.weight"]
    assert [n for n, _ in m.named_modules()] == ["", "wte", "shared", "head"]
    assert [n for n, _ in m.named_modules(remove_duplicate=False)] == ["", "wte", "shared", "again", "head"]
    assert [n for n, _ in m.named_children()] == ["wte", "shared", "head"]
    assert list(m.state_dict()) == ["mask", "wte.weight", "shared.weight", "shared.bias", "again.weight",
                                    "again.bias", "head.weight"]


def test_recurse_false_lists_a_module_s_own_entries():
    m = Tied()
    m.scale = nn.Parameter(gg.ones(1))
    assert [n for n, _ in m.named_parameters(recurse=False)] == ["scale"]
    assert [n for n, _ in m.named_buffers(recurse=False)] == ["mask"]
    assert len(list(m.buffers(recurse=False))) == 1 and len(list(m.parameters(recurse=False))) == 1
    assert [n for n, _ in m.named_parameters(prefix="model")][:2] == ["model.scale", "model.wte.weight"]


def test_an_optimizer_over_tied_weights_takes_each_once_and_trains_it():
    m = Tied()
    opt = gg.optim.AdamW(m.parameters(), lr=0.1)
    x = gg.tensor([1, 2, 3])
    before = m.head.weight.detach().numpy().copy()
    loss = m.head(m.again(m.wte(x))).sum()
    loss.backward()
    opt.step()
    assert m.wte.weight is m.head.weight
    assert (m.head.weight.detach().numpy() != before).any()


def test_cuda_seeding_names_seed_the_one_generator():
    gg.cuda.manual_seed(5)
    a = gg.rand(3)
    gg.manual_seed(5)
    assert (gg.rand(3).cpu().numpy() == a.cpu().numpy()).all()
    gg.cuda.manual_seed_all(5)
    assert gg.cuda.initial_seed() == gg.initial_seed() == 5


def test_module_zero_grad_sets_none_or_writes_zeros():
    m = Tied()
    m.shared(gg.ones(2, 4)).sum().backward()
    held = m.shared.weight.grad
    m.zero_grad(set_to_none=False)
    assert (held.numpy() == 0).all() and m.shared.weight.grad is not None
    m.zero_grad()
    assert m.shared.weight.grad is None
