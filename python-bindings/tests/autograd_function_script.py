"""A script of custom autograd.Function behaviours PyTorch documents, run with either library
(test_autograd_function_node.py, test_torch_autograd_function_node.py): what it records, as
plain Python values."""


def run(L) -> dict:
    out: dict = {}

    class Sq(L.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_backward(x)
            ctx.k = k
            return x * x * k

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g * ctx.k, None

    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = Sq.apply(x, 3.0)
    node = y.grad_fn
    out["node"] = (type(node).__name__, node.name(), isinstance(node, L.autograd.function.BackwardCFunction),
                   isinstance(node, L.autograd.graph.Node), node._forward_cls is Sq, type(node) is Sq._backward_cls)
    out["node fields"] = ([t.tolist() for t in node.saved_tensors], node.needs_input_grad, node.k, node.metadata)
    out["next"] = [type(n).__name__ for n, _ in node.next_functions]
    g, none = node.apply(L.ones(2))
    out["apply"] = (g.tolist(), none)
    out["node below"] = type((y * 2).grad_fn.next_functions[0][0]).__name__

    class Add(L.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, g):
            out["needs_input_grad"] = ctx.needs_input_grad
            return g, g

    Add.apply(L.tensor([1.0], requires_grad=True), L.tensor([2.0])).sum().backward()

    class Dirty(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    a = L.tensor([1.0, 2.0], requires_grad=True)
    c = a * 1
    d = Dirty.apply(c)
    out["dirty"] = (d is c, type(c.grad_fn).__name__, c.tolist())
    d.sum().backward()
    out["dirty grad"] = a.grad.tolist()
    try:
        Dirty.apply(L.tensor([1.0], requires_grad=True))
        out["dirty leaf"] = "no error"
    except RuntimeError as e:
        out["dirty leaf"] = str(e).splitlines()[0]

    class MaxArg(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            i = x.argmax()
            ctx.mark_non_differentiable(i)
            return x.max(), i

        @staticmethod
        def backward(ctx, gv, gi):
            out["non-differentiable grad"] = (gi.tolist(), str(gi.dtype).rpartition(".")[2])
            return gv * L.ones(3)

    x = L.tensor([1.0, 3.0, 2.0], requires_grad=True)
    v, i = MaxArg.apply(x)
    out["non-differentiable"] = (v.requires_grad, i.requires_grad, i.grad_fn is None)
    v.backward()

    class Two(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            out["unmaterialized"] = (g1 is None, g2 is None)
            return (g1 * 2 if g1 is not None else 0) + (g2 * 3 if g2 is not None else 0)

    x = L.tensor([1.0], requires_grad=True)
    p, _q = Two.apply(x)
    p.sum().backward()
    out["unmaterialized grad"] = x.grad.tolist()
    return out
