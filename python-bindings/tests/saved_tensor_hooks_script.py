"""A script of torch.autograd.graph.saved_tensors_hooks uses, run with either library
(test_saved_tensors_hooks.py, test_torch_saved_tensors_hooks.py): the hooks' calls as a log."""


def run(L) -> list:
    out: list = []
    log: list = []

    def pack(x):
        log.append(("pack", x.tolist()))
        return x

    def unpack(x):
        log.append(("unpack", x.tolist()))
        return x

    hooks = L.autograd.graph.saved_tensors_hooks
    a = L.ones(3, requires_grad=True)
    b = L.ones(3, requires_grad=True) * 2
    with hooks(pack, unpack):
        y = a * b  # mul saves other, then self
    log.append("backward")
    y.sum().backward()
    out.append(log[:])
    log.clear()

    x = L.tensor([1.0, 2.0], requires_grad=True)
    with hooks(pack, unpack):
        y = x.exp()  # saves its result
        z = (y * 2).sum()  # a number operand is not saved; sum saves nothing
        x.sin()  # not reached by the backward: packed, never unpacked
    log.append("backward")
    z.backward()
    out.append((log[:], [round(v, 5) for v in x.grad.tolist()]))
    log.clear()

    with hooks(pack, unpack):
        y = x.pow(2).sum()
    y.backward(retain_graph=True)  # unpacked by each backward through the graph
    y.backward()
    out.append(log[:])
    log.clear()

    with hooks(pack, unpack):
        with L.no_grad():
            x * x  # autograd records nothing: nothing packed
        x.detach() * x.detach()
    out.append(log[:])

    x.grad = None
    with L.autograd.graph.save_on_cpu():
        (x * x).sum().backward()
    out.append(x.grad.tolist())

    try:
        with L.autograd.graph.disable_saved_tensors_hooks("no saved tensor hooks here"):
            with hooks(pack, unpack):
                pass
    except RuntimeError as e:
        out.append(str(e))
    return out
