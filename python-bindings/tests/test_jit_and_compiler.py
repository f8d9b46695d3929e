"""glassgrad.jit and glassgrad.compiler against torch.jit and torch.compiler: scripted and traced
functions and modules give PyTorch's outputs and gradients and share the module's parameters;
decorators keep functions working; fork/wait, annotations and Futures; PyTorch 2.14's
deprecation warnings and errors; TorchScript files are refused with the fix; is_compiling is
true exactly while glassgrad.compile records a step. (The comparisons need PyTorch; the rest runs
without it.)"""
import typing
import warnings

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.torch as gt



def _quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return call()


class _Net:
    """The same two-layer net in either library, glassgrad's weights copied into torch's."""

    @staticmethod
    def make(lib):
        class Net(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.a, self.b = lib.nn.Linear(4, 6), lib.nn.Linear(6, 3)

            def forward(self, x):
                h = self.a(x).tanh()
                if not lib.jit.is_scripting():
                    h = h * 2
                return self.b(h)
        return Net().double()


def _pair(torch):
    ours, theirs = _Net.make(gg), _Net.make(torch)
    theirs.load_state_dict({k: torch.tensor(np.asarray(v)) for k, v in ours.state_dict().items()})
    return ours, theirs


X = np.random.default_rng(0).standard_normal((5, 4))


def _run(lib, model):
    x = lib.tensor(X, requires_grad=True)
    out = model(x)
    (out * lib.tensor(np.arange(15.0).reshape(5, 3))).sum().backward()
    return [out.detach().numpy(), x.grad.detach().numpy()] + [p.grad.detach().numpy() for p in model.parameters()]


@pytest.mark.parametrize("how", ["script", "trace"])
def test_scripted_and_traced_modules_give_pytorchs_numbers(how, torch):
    ours, theirs = _pair(torch)
    wrap = {"script": lambda lib, m: lib.jit.script(m),
            "trace": lambda lib, m: lib.jit.trace(m, lib.tensor(X))}[how]
    s_ours, s_theirs = _quiet(lambda: wrap(gg, ours)), _quiet(lambda: wrap(torch, theirs))
    assert isinstance(s_ours, gg.jit.ScriptModule) and isinstance(s_theirs, torch.jit.ScriptModule)
    assert isinstance(s_ours, gg.nn.Module)
    assert list(s_ours.state_dict()) == list(s_theirs.state_dict())
    assert s_ours.a.weight is ours.a.weight  # shared, as PyTorch's scripted module shares them
    for a, b in zip(_run(gg, s_ours), _run(torch, s_theirs)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    assert s_ours.original_name == s_theirs.original_name == "Net"


def test_decorated_functions_keep_working(torch):
    def body(lib):
        @lib.jit.script
        def scaled(x, k: float):
            return x * k + 1

        @lib.jit.ignore
        def helper(x):
            return x - 1

        @lib.jit.unused
        def never(x):
            return x

        @lib.jit.export
        def exported(x):
            return x.sum()

        traced = lib.jit.trace(lambda x: x.exp(), lib.tensor(X))
        x = lib.tensor(X)
        return [scaled(x, 3.0), helper(x), never(x), exported(x), traced(x), scaled.__name__]
    ours, theirs = _quiet(lambda: body(gg)), _quiet(lambda: body(torch))
    assert ours[-1] == "scaled"  # (PyTorch's ScriptFunction says "ScriptFunction")
    for a, b in zip(ours[:-1], theirs[:-1]):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12)


def test_script_module_subclass_with_script_methods(torch):
    def body(lib):
        class Old(lib.jit.ScriptModule):
            def __init__(self):
                super().__init__()
                self.lin = lib.nn.Linear(4, 2).double()

            @lib.jit.script_method
            def forward(self, x):
                return self.lin(x).relu()
        return Old()
    ours = _quiet(lambda: body(gg))
    theirs = _quiet(lambda: body(torch))
    theirs.load_state_dict({k: torch.tensor(np.asarray(v)) for k, v in ours.state_dict().items()})
    np.testing.assert_allclose(ours(gg.tensor(X)).detach().numpy(), theirs(torch.tensor(X)).detach().numpy(),
                               rtol=1e-12)


def _warned_and_raised(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            call()
            error = None
        except Exception as e:  # compared with PyTorch's
            error = (isinstance(e, RuntimeError), str(e).splitlines()[0])
    return [(w.category.__name__, str(w.message)) for w in caught][:1], error


def _linear(lib):
    return lib.nn.Linear(2, 2)


def _plain(x):
    return x


CALLS = {
    "script": lambda lib: lib.jit.script(_linear(lib)),
    "trace": lambda lib: lib.jit.trace(_linear(lib), lib.randn(1, 2)),
    "trace_module": lambda lib: lib.jit.trace_module(_linear(lib), {"forward": lib.randn(1, 2)}),
    "fork and wait": lambda lib: lib.jit.wait(lib.jit.fork(lib.sin, lib.ones(2))),
    "ignore(drop=True)": lambda lib: lib.jit.ignore(drop=True)(_plain),
    "script_method": lambda lib: lib.jit.script_method(_plain),
    "freeze an nn.Module": lambda lib: lib.jit.freeze(_linear(lib)),
    "freeze in training mode": lambda lib: lib.jit.freeze(_quiet(lambda: lib.jit.script(_linear(lib)).train())),
    "freeze in eval mode": lambda lib: lib.jit.freeze(_quiet(lambda: lib.jit.script(_linear(lib)).eval())),
    "optimize_for_inference of an nn.Module": lambda lib: lib.jit.optimize_for_inference(_linear(lib)),
    "script a Module class": lambda lib: lib.jit.script(type("C", (lib.nn.Module,), {"forward": lambda s, x: x})),
    "load a missing file": lambda lib: lib.jit.load("/nonexistent/glassgrad/model.pt"),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_warnings_and_errors_are_pytorchs(name, torch):
    ours, theirs = _warned_and_raised(lambda: CALLS[name](gg)), _warned_and_raised(lambda: CALLS[name](torch))
    assert ours[0] == theirs[0]
    if theirs[1] is None:
        assert ours[1] is None
    else:
        assert ours[1] is not None and ours[1][0] == theirs[1][0] and theirs[1][1] in ours[1][1], (ours, theirs)


def test_torchscript_files_are_refused_with_the_fix(tmp_path):
    scripted = _quiet(lambda: gg.jit.script(gg.nn.Linear(2, 2)))
    existing = tmp_path / "model.pt"
    existing.write_bytes(b"PK")
    for call in (lambda: gg.jit.save(scripted, str(tmp_path / "m.pt")), lambda: scripted.save("m.pt"),
                 lambda: gg.jit.load(str(existing)), lambda: scripted.code, lambda: scripted.graph,
                 lambda: gg.jit.script(len).code):
        with pytest.raises(gg.UnsupportedError, match="fix: .*glassgrad\\.(save|load)"):
            _quiet(call)


def test_annotations_and_futures_are_pytorchs(torch):
    for lib in (gg, torch):
        assert lib.jit.annotate(typing.List[int], [1]) == [1]
        assert lib.jit.Attribute(3, int) == (3, int) and lib.jit.Attribute(3, int).value == 3
        assert lib.jit.Final is typing.Final
        assert lib.jit.is_scripting() is False and lib.jit.is_tracing() is False
        assert lib.jit.isinstance([1, 2], typing.List[int]) and not lib.jit.isinstance([1, "a"], typing.List[int])
        assert lib.jit.isinstance({"a": 1}, typing.Dict[str, int]) and lib.jit.isinstance(None, typing.Optional[int])
        f = lib.futures.Future()
        assert not f.done()
        g = f.then(lambda done: done.wait() + 1)
        f.set_result(3)
        assert (f.wait(), f.value(), g.wait(), f.done()) == (3, 3, 4, True)
        with pytest.raises(RuntimeError, match="Attempting to mark a completed Future as complete again"):
            f.set_result(4)
        h = lib.futures.Future()
        h.set_exception(ValueError("boom"))
        with pytest.raises(ValueError, match="boom"):
            h.wait()
        assert lib.futures.wait_all([f, g]) == [3, 4]
        assert [done.wait() for done in lib.futures.collect_all([f, g]).wait()] == [3, 4]
        assert lib.fork(lambda a: a + 1, 1).wait() == 2 and lib.wait(lib.fork(lambda: 5)) == 5


def test_is_tracing_is_true_inside_trace():
    seen = []

    def fn(x):
        seen.append(gg.jit.is_tracing())
        return x + 1
    traced = _quiet(lambda: gg.jit.trace(fn, gg.ones(2)))
    traced(gg.ones(2))
    assert seen == [True, False]


def test_compiler_names_do_what_their_docs_say():
    model = gg.nn.Linear(3, 2)
    opt = gg.optim.SGD(model.parameters(), lr=0.1)
    seen = []

    def step(x):
        seen.append(gt.compiler.is_compiling())
        opt.zero_grad()
        loss = model(x).square().sum()
        loss.backward()
        opt.step()
        return loss
    compiled = gg.compile(step)
    for _ in range(4):
        compiled(gg.ones(4, 3))
    assert seen == [False, True]  # the plain first call, the recorded second; replays run no Python
    assert not gt.compiler.is_compiling() and not gt.compiler.is_dynamo_compiling()
    f = len
    for decorator in (gt.compiler.disable, gt.compiler.allow_in_graph, gt.compiler.assume_constant_result):
        assert decorator(f) is f
    assert gt.compiler.disable()(f) is f and gt.compiler.disable(recursive=False)(f) is f
    assert gt.compiler.compile is gg.compile
    gt.compiler.reset()
    gt.compiler.cudagraph_mark_step_begin()
    assert gt.compiler.is_exporting() is False
