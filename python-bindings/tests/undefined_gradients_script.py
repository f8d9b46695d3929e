"""Undefined gradients (PyTorch's None, not zeros), run with glassgrad or torch as `lib`:
test_undefined_gradients.py checks glassgrad's record against values hard-coded from PyTorch's
documented behaviour, test_torch_undefined_gradients.py against torch's own record."""


def _grad(t):
    return None if t.grad is None else t.grad.tolist()


def _function_classes(lib):
    class ScaleFirst(lib.autograd.Function):
        """a * 2 + b, whose backward gives b no gradient (None)."""

        @staticmethod
        def forward(ctx, a, b):
            return a * 2 + b

        @staticmethod
        def backward(ctx, g):
            return g * 2, None

    class Nothing(lib.autograd.Function):
        """a * 2, whose backward gives a no gradient."""

        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return None

    return ScaleFirst, Nothing


def custom_function_record(lib) -> dict:
    ScaleFirst, Nothing = _function_classes(lib)
    out = {}
    a, b = lib.ones(3, requires_grad=True), lib.ones(3, requires_grad=True)
    ScaleFirst.apply(a, b).sum().backward()
    out["none_for_b"] = (_grad(a), _grad(b))
    a, b = lib.ones(3, requires_grad=True), lib.ones(3, requires_grad=True)
    (Nothing.apply(a) + b).sum().backward()
    out["all_none"] = (_grad(a), _grad(b))
    a = lib.ones(3, requires_grad=True)
    (Nothing.apply(a) + a * 3).sum().backward()  # the other path still reaches a
    out["other_path"] = _grad(a)
    a = lib.ones(3, requires_grad=True)
    Nothing.apply(a * 1).sum().backward()  # through a computed input
    out["through_computed"] = _grad(a)
    a = lib.ones(3, requires_grad=True)
    a.grad = lib.full((3,), 5.0)
    Nothing.apply(a).sum().backward()  # an existing .grad is left as it is
    out["existing_grad"] = _grad(a)
    a = lib.ones(3, requires_grad=True)
    y = Nothing.apply(a)
    y.retain_grad()
    (y * 2).sum().backward()
    out["retained_output"] = (_grad(a), _grad(y))
    a = lib.ones(3, requires_grad=True)
    out["grad_allow_unused"] = [None if g is None else g.tolist()
                                for g in lib.autograd.grad(Nothing.apply(a).sum(), a, allow_unused=True)]
    a = lib.ones(3, requires_grad=True)
    out["grad_materialized"] = [g.tolist() for g in lib.autograd.grad(Nothing.apply(a).sum(), a,
                                                                      materialize_grads=True)]
    a = lib.ones(3, requires_grad=True)
    try:
        lib.autograd.grad(Nothing.apply(a).sum(), a)
        out["grad_unused_raises"] = False
    except RuntimeError as e:
        out["grad_unused_raises"] = "appears to not have been used in the graph" in str(e)
    return out


def norm_record(lib) -> dict:
    def run(f):
        x = lib.tensor([[1.0, 0.0, 2.0], [3.0, 1.0, 0.0]], requires_grad=True)
        y = f(x)
        y.sum().backward()
        return _grad(x)

    out = {
        "norm0": run(lambda x: x.norm(0)),
        "norm0_dim": run(lambda x: x.norm(0, dim=1)),
        "torch_norm0": run(lambda x: lib.norm(x, p=0)),
        "vector_norm0": run(lambda x: lib.linalg.vector_norm(x, ord=0, dim=1)),
        "linalg_norm0": run(lambda x: lib.linalg.norm(x[0], ord=0)),
        "dist0": run(lambda x: lib.dist(x, lib.ones(2, 3), p=0)),
        "pairwise_distance0": run(lambda x: lib.nn.functional.pairwise_distance(x, lib.ones(2, 3), p=0)),
        # cdist and pdist at p=0 give zeros (CdistBackward0, PdistBackward0), not None
        "cdist0": run(lambda x: lib.cdist(x, lib.ones(2, 3), p=0)),
        "pdist0": run(lambda x: lib.nn.functional.pdist(x, p=0)),
        "norm0_plus_sum": run(lambda x: x.norm(0) + x.sum()),
    }
    x = lib.tensor([[1.0, 0.0, 2.0], [3.0, 1.0, 0.0]], requires_grad=True)
    out["pdist_nodes"] = [lib.nn.functional.pdist(x, p).grad_fn.name() for p in (0, 1, 2, float("inf"))]
    x = lib.tensor([1.0, 0.0, 2.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    y.norm(0).backward()
    out["retained_before_norm0"] = (_grad(x), _grad(y))
    x = lib.tensor([1.0, 0.0, 2.0], requires_grad=True)
    out["grad_norm0"] = [None if g is None else g.tolist()
                         for g in lib.autograd.grad(x.norm(0), [x], allow_unused=True)]
    return out


def materialize_record(lib) -> dict:
    """set_materialize_grads: the backward sees None (False) or zeros (default) for an output
    no gradient reaches."""
    seen = []

    def two_outputs(materialize):
        class Two(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.set_materialize_grads(materialize)
                return a * 2, a * 3

            @staticmethod
            def backward(ctx, g1, g2):
                seen.append((None if g1 is None else g1.tolist(), None if g2 is None else g2.tolist()))
                total = None
                for g, k in ((g1, 2), (g2, 3)):
                    if g is not None:
                        total = g * k if total is None else total + g * k
                return total
        return Two

    for materialize in (True, False):
        a = lib.ones(2, requires_grad=True)
        first, _ = two_outputs(materialize).apply(a)
        first.sum().backward()
        seen.append(_grad(a))
    return {"seen": seen}


def hook_record(lib) -> dict:
    """Tensor hooks where the gradient is undefined: PyTorch's engine still reaches the tensor and
    calls its hooks (a leaf's too) with None; a tensor with a defined gradient on another path
    gets that one; a post-accumulate-grad hook still runs, after the tensor hooks; a Function
    reached only by undefined gradients runs its backward on zeros, defining its inputs'."""
    _, Nothing = _function_classes(lib)
    out = {}
    seen = []

    def log(name):
        def hook(g):
            seen.append((name, None if g is None else g.tolist()))
        return hook

    a = lib.ones(3, requires_grad=True)
    x = a * 1
    x.register_hook(log("x"))
    x.register_hook(log("x again"))
    a.register_hook(log("a"))
    Nothing.apply(x).sum().backward()
    out["through_computed"] = (list(seen), _grad(a))
    seen.clear()
    a = lib.ones(3, requires_grad=True)
    x = a * 1
    x.register_hook(log("x"))
    (Nothing.apply(x).sum() + x.sum()).backward()  # a defined contribution on another path
    out["other_path"] = (list(seen), _grad(a))
    seen.clear()
    a = lib.ones(3, requires_grad=True)
    a.register_post_accumulate_grad_hook(lambda t: seen.append(("post", _grad(t))))
    a.register_hook(log("a"))
    Nothing.apply(a).sum().backward()
    out["post_accumulate"] = list(seen)
    seen.clear()
    a, b = lib.ones(3, requires_grad=True), lib.ones(3, requires_grad=True)
    a.register_hook(log("a"))
    b.register_hook(log("b, not reached"))
    out["grad"] = ([None if g is None else g.tolist()
                    for g in lib.autograd.grad(Nothing.apply(a).sum() + b.detach().sum(), [a], allow_unused=True)],
                   list(seen))
    seen.clear()
    a = lib.ones(3, requires_grad=True)
    x = a * 1
    x.register_hook(lambda g: lib.full((3,), 7.0) if g is None else None)
    try:
        Nothing.apply(x).sum().backward()
        out["replaced_none"] = _grad(a)
    except RuntimeError as e:
        out["replaced_none"] = str(e).splitlines()[0]

    class Fives(lib.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * 3

        @staticmethod
        def backward(ctx, g):
            seen.append(("Fives.backward", g.tolist()))
            return lib.full((3,), 5.0)

    a = lib.ones(3, requires_grad=True)
    Nothing.apply(Fives.apply(a)).sum().backward()
    out["function_given_zeros"] = (list(seen), _grad(a))
    seen.clear()
    a = lib.ones(4, requires_grad=True)
    x = a * 1
    x.register_hook(log("x, not reached"))
    with lib.no_grad():
        v = x[1:]  # no edge to x: its gradient is not undefined, x is not reached
    (v * 2).sum().backward()
    out["no_grad_view"] = (list(seen), _grad(a))
    seen.clear()
    a, b = lib.ones(3, requires_grad=True), lib.ones(3, requires_grad=True)
    x = a * b
    x.grad_fn.register_prehook(lambda go: seen.append(("prehook", go)))
    x.grad_fn.register_hook(lambda gi, go: seen.append(("hook", gi, go)))
    Nothing.apply(x).sum().backward()
    out["node_hooks"] = list(seen)
    for replacing in (lambda n: n.register_prehook(lambda go: (lib.full((3,), 4.0),)),
                      lambda n: n.register_hook(lambda gi, go: (lib.full((3,), 4.0), None))):
        a = lib.ones(3, requires_grad=True)
        x = a * 1
        replacing(x.grad_fn)
        try:
            Nothing.apply(x).sum().backward()
            out.setdefault("node_hook_replaced_none", []).append(_grad(a))
        except RuntimeError as e:
            out.setdefault("node_hook_replaced_none", []).append(str(e).splitlines()[0])
    return out
