"""nn.RNN, nn.LSTM, nn.GRU, the cells and glassgrad.nn.utils.rnn against PyTorch (CPU, the same
weights): outputs, final states and every gradient for padded and packed sequences (sorted and
not, batch_first), initial states, projections, unbatched input, training steps, state_dicts
loading both ways, and the errors PyTorch raises. The argument table (argument_table.py) covers
each constructor argument on padded input; this file covers what a row cannot express (a pair
of states, a PackedSequence, dropout's masks). Skipped without torch."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad import nn
from glassgrad.nn.utils import rnn as rnn_utils

torch = pytest.importorskip("torch")


def _pair(mode, *args, seed=0, dtype="float64", **kwargs):
    """A glassgrad layer and the torch layer with its weights."""
    gg.manual_seed(seed)
    mine = getattr(nn, mode)(*args, **kwargs)
    if dtype == "float64":
        mine = mine.double()
    theirs = getattr(torch.nn, mode)(*args, **kwargs)
    theirs = theirs.double() if dtype == "float64" else theirs
    theirs.load_state_dict({k: torch.from_numpy(v.numpy()) for k, v in mine.state_dict().items()})
    return mine, theirs


def _flat(out):
    if isinstance(out, (rnn_utils.PackedSequence, torch.nn.utils.rnn.PackedSequence)):
        return [out.data]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return [out]


def _np(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else t.detach().numpy()


def _compare(mine, theirs, make_inputs, run=None, rtol=1e-9, atol=1e-10):
    """Runs both layers on the same inputs (make_inputs(framework) -> (args, leaves); run(layer,
    framework, *args) calls the layer, by default layer(*args)), then the backward of
    sum(out_k * u_k) over every output; compares outputs, input and parameter gradients."""
    run = run or (lambda layer, fw, *args: layer(*args))
    margs, mleaves = make_inputs(gg)
    targs, tleaves = make_inputs(torch)
    mout, tout = _flat(run(mine, gg, *margs)), _flat(run(theirs, torch, *targs))
    assert len(mout) == len(tout)
    rng = np.random.default_rng(1)
    mloss, tloss = None, None
    for k, (m, t) in enumerate(zip(mout, tout)):
        np.testing.assert_allclose(_np(m), _np(t), rtol=rtol, atol=atol, err_msg=f"output {k}")
        u = rng.standard_normal(tuple(t.shape)).astype(_np(t).dtype)
        mt, tt = (m * gg.tensor(u)).sum(), (t * torch.from_numpy(u)).sum()
        mloss, tloss = (mt, tt) if mloss is None else (mloss + mt, tloss + tt)
    mloss.backward()
    tloss.backward()
    for k, (m, t) in enumerate(zip(mleaves, tleaves)):
        np.testing.assert_allclose(_np(m.grad), _np(t.grad), rtol=rtol, atol=atol, err_msg=f"input gradient {k}")
    tparams = dict(theirs.named_parameters())
    for name, p in mine.named_parameters():
        np.testing.assert_allclose(_np(p.grad), _np(tparams[name].grad), rtol=rtol, atol=atol, err_msg=name)


def _leaf(fw, a):
    if fw is gg:
        return gg.tensor(a, requires_grad=True)
    return torch.tensor(a, requires_grad=True)


LENGTHS = [5, 2, 4, 1]  # unsorted, one of them the full length


def _padded(batch_first, feature=3, seed=2):
    x = np.random.default_rng(seed).standard_normal((5, 4, feature))
    return np.swapaxes(x, 0, 1).copy() if batch_first else x


def _utils(fw):
    return rnn_utils if fw is gg else torch.nn.utils.rnn


@pytest.mark.parametrize("mode,kwargs", [
    ("LSTM", {}), ("LSTM", {"num_layers": 2, "bidirectional": True}), ("LSTM", {"proj_size": 2, "bidirectional": True}),
    ("GRU", {"num_layers": 2}), ("GRU", {"bidirectional": True}),
    ("RNN", {"nonlinearity": "relu", "bidirectional": True}), ("RNN", {"num_layers": 3, "bias": False}),
])
@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("batch_first", [False, True])
def test_packed_sequence_matches_torch(mode, kwargs, enforce_sorted, batch_first):
    mine, theirs = _pair(mode, 3, 5, batch_first=batch_first, **kwargs)
    lengths = sorted(LENGTHS, reverse=True) if enforce_sorted else LENGTHS
    x = _padded(batch_first)

    def inputs(fw):
        leaf = _leaf(fw, x)
        packed = _utils(fw).pack_padded_sequence(leaf, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
        return (packed,), [leaf]
    _compare(mine, theirs, inputs)


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
def test_packed_output_unpacks_like_torch_with_initial_states(mode):
    """Initial states in the caller's batch order (permuted for the sorted pack and back)."""
    mine, theirs = _pair(mode, 3, 4, num_layers=2, bidirectional=True)
    x = _padded(True)
    rng = np.random.default_rng(3)
    h0, c0 = rng.standard_normal((4, 4, 4)), rng.standard_normal((4, 4, 4))

    def run(layer, fw, packed, h, c):
        out, hidden = layer(packed, (h, c) if mode == "LSTM" else h)
        padded, lens = _utils(fw).pad_packed_sequence(out, batch_first=True, total_length=6, padding_value=-2.0)
        assert list(np.asarray(lens)) == LENGTHS
        return padded, hidden

    def inputs(fw):
        leaves = [_leaf(fw, a) for a in (x, h0, c0)]
        packed = _utils(fw).pack_padded_sequence(leaves[0], LENGTHS, batch_first=True, enforce_sorted=False)
        return (packed, leaves[1], leaves[2]), leaves if mode == "LSTM" else leaves[:2]
    _compare(mine, theirs, inputs, run)


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("batched", [True, False])
def test_initial_states_and_unbatched_input_match_torch(mode, batched):
    mine, theirs = _pair(mode, 3, 4, num_layers=2, batch_first=True)
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 6, 3) if batched else (6, 3))
    hs = [rng.standard_normal((2, 2, 4) if batched else (2, 4)) for _ in range(2)]

    def inputs(fw):
        leaves = [_leaf(fw, a) for a in [x] + hs]
        state = (leaves[1], leaves[2]) if mode == "LSTM" else leaves[1]
        return (leaves[0], state), leaves if mode == "LSTM" else leaves[:2]
    _compare(mine, theirs, inputs)


@pytest.mark.parametrize("cell,states", [("LSTMCell", 2), ("GRUCell", 1), ("RNNCell", 1)])
@pytest.mark.parametrize("batched", [True, False])
def test_cells_over_several_steps_match_torch(cell, states, batched):
    """A cell unrolled by hand over 4 steps (the states feed the next step), gradients through all."""
    mine, theirs = _pair(cell, 3, 5, bias=cell != "GRUCell")
    rng = np.random.default_rng(6)
    xs = rng.standard_normal((4, 2, 3) if batched else (4, 3))
    h0 = [rng.standard_normal((2, 5) if batched else (5,)) for _ in range(states)]

    def run(c, fw, x, *h):
        outs = []
        state = tuple(h) if states == 2 else h[0]
        for t in range(4):
            state = c(x[t], state)
            outs.append(state)
        return outs

    def inputs(fw):
        leaves = [_leaf(fw, a) for a in [xs] + h0]
        return tuple(leaves), leaves
    _compare(mine, theirs, inputs, run)


def test_lstm_training_steps_match_torch_in_float32():
    """Five SGD steps of a 2-layer LSTM language-model head on float32 data: the same losses."""
    mine, theirs = _pair("LSTM", 4, 8, num_layers=2, dtype="float32")
    rng = np.random.default_rng(7)
    x = rng.standard_normal((6, 3, 4)).astype(np.float32)
    target = rng.standard_normal((6, 3, 8)).astype(np.float32)
    opt_m = gg.optim.SGD(mine.parameters(), lr=0.5)
    opt_t = torch.optim.SGD(theirs.parameters(), lr=0.5)
    for step in range(5):
        ym, _ = mine(gg.tensor(x))
        lm = ((ym - gg.tensor(target)) ** 2).mean()
        lm.backward()
        opt_m.step()
        opt_m.zero_grad()
        yt, _ = theirs(torch.from_numpy(x))
        lt = ((yt - torch.from_numpy(target)) ** 2).mean()
        lt.backward()
        opt_t.step()
        opt_t.zero_grad()
        assert lm.item() == pytest.approx(lt.item(), rel=2e-5), f"step {step}"


@pytest.mark.parametrize("mode,kwargs", [("LSTM", {"proj_size": 2, "num_layers": 2, "bidirectional": True}),
                                         ("GRU", {"bias": False}), ("RNN", {"nonlinearity": "relu"}),
                                         ("LSTMCell", {}), ("GRUCell", {"bias": False})])
def test_state_dicts_load_both_ways(mode, kwargs):
    mine = getattr(nn, mode)(3, 5, **kwargs)
    theirs = getattr(torch.nn, mode)(3, 5, **kwargs)
    assert list(mine.state_dict()) == list(theirs.state_dict())
    for (k, a), (_, b) in zip(mine.state_dict().items(), theirs.state_dict().items()):
        assert a.shape == tuple(b.shape), k
    theirs.load_state_dict({k: torch.from_numpy(v.numpy()) for k, v in mine.state_dict().items()})
    mine2 = getattr(nn, mode)(3, 5, **kwargs)
    mine2.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    for k, v in mine.state_dict().items():
        np.testing.assert_array_equal(mine2.state_dict()[k], v, err_msg=k)


def test_parameters_are_uniform_within_one_over_sqrt_hidden():
    gg.manual_seed(1)
    lstm = nn.LSTM(10, 16, num_layers=2, proj_size=4)
    bound = 1 / 4.0
    for name, p in lstm.named_parameters():
        a = p.detach().numpy()
        assert a.dtype == np.float32 and np.abs(a).max() <= bound and np.abs(a).max() > 0.8 * bound, name
    assert [n for n, _ in lstm.named_parameters()] == [n for n, _ in torch.nn.LSTM(10, 16, 2, proj_size=4).named_parameters()]


def test_dropout_between_layers_applies_in_training_only():
    gg.manual_seed(0)
    lstm = nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    x = gg.tensor(np.random.default_rng(0).standard_normal((5, 2, 3)).astype(np.float32))
    lstm.eval()
    a, b = lstm(x)[0].detach().numpy(), lstm(x)[0].detach().numpy()
    np.testing.assert_array_equal(a, b)
    lstm.train()
    c, d = lstm(x)[0].detach().numpy(), lstm(x)[0].detach().numpy()
    assert not np.array_equal(c, d) and not np.array_equal(a, c)
    with pytest.warns(UserWarning, match="dropout option adds dropout after all but last"):
        nn.GRU(3, 4, dropout=0.2)


def test_repr_and_helpers_are_pytorchs():
    assert repr(nn.LSTM(10, 20, 2, batch_first=True, proj_size=5)) == repr(torch.nn.LSTM(10, 20, 2, batch_first=True,
                                                                                        proj_size=5))
    assert repr(nn.RNN(3, 4, nonlinearity="relu", bidirectional=True)).startswith("RNN(3, 4")
    assert repr(nn.GRUCell(3, 4, bias=False)) == repr(torch.nn.GRUCell(3, 4, bias=False))
    lstm = nn.LSTM(3, 4, 2)
    lstm.flatten_parameters()
    assert len(lstm._flat_weights) == 8 and len(lstm.all_weights) == 2 and lstm.all_weights[1][0] is lstm.weight_ih_l1


@pytest.mark.parametrize("make,call,error,match", [
    (lambda: nn.LSTM(3, 4), lambda m: m(gg.zeros(2, 3, 3, 3)), RuntimeError, "Expected input to be 2D or 3D, got 4D"),
    (lambda: nn.LSTM(3, 4), lambda m: m(gg.zeros(5, 2, 7)), RuntimeError,
     r"input.size\(-1\) must be equal to input_size. Expected 3, got 7"),
    (lambda: nn.GRU(3, 4, 2), lambda m: m(gg.zeros(5, 2, 3), gg.zeros(1, 2, 4)), RuntimeError,
     r"Expected hidden size \(2, 2, 4\), got \[1, 2, 4\]"),
    (lambda: nn.LSTM(3, 4), lambda m: m(gg.zeros(5, 2, 3), (gg.zeros(1, 2, 4), gg.zeros(1, 3, 4))), RuntimeError,
     r"Expected hidden\[1\] size \(1, 2, 4\), got \[1, 3, 4\]"),
    (lambda: nn.RNN(3, 4), lambda m: m(gg.zeros(5, 3), gg.zeros(1, 2, 4)), RuntimeError,
     "For unbatched 2-D input, hx should also be 2-D but got 3-D tensor"),
    (lambda: nn.LSTM(3, 4, proj_size=4), None, ValueError, "proj_size has to be smaller than hidden_size"),
    (lambda: nn.GRU(3, 4, proj_size=2), None, ValueError, "proj_size argument is only supported for LSTM"),
    (lambda: nn.RNN(3, 4, nonlinearity="sigmoid"), None, ValueError, "Unknown nonlinearity 'sigmoid'"),
    (lambda: nn.LSTM(3, 4, dropout=1.5), None, ValueError, "dropout"),
    (lambda: nn.LSTM(3, 0), None, ValueError, "hidden_size"),
    (lambda: nn.LSTM(3, 4, num_layers=0), None, ValueError, "num_layers"),
    (lambda: nn.LSTM(3, 4.5), None, TypeError, "hidden_size"),
    (lambda: nn.LSTMCell(3, 4), lambda m: m(gg.zeros(2, 2, 3)), ValueError, "Expected input to be 1D or 2D, got 3D"),
    (lambda: nn.GRUCell(3, 4), lambda m: m(gg.zeros(2, 5)), RuntimeError, "inconsistent input_size: got 5 expected 3"),
])
def test_errors_are_pytorchs_and_name_a_fix(make, call, error, match):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(error, match=match) as e:
            m = make()
            call(m)
    assert isinstance(e.value, gg.GlassgradError) and "fix:" in str(e.value)


def test_input_dtype_mismatch_is_said_for_the_layer():
    lstm = nn.LSTM(3, 4)
    with pytest.raises(gg.DTypeError, match="LSTM.*the input is float64 but the layer's parameters are float32"):
        lstm(gg.tensor(np.zeros((2, 1, 3))))


# ---- glassgrad.nn.utils.rnn against torch.nn.utils.rnn -------------------------------------------


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_pad_sequence_matches_torch(batch_first, padding_side):
    rng = np.random.default_rng(8)
    seqs = [rng.standard_normal((n, 2, 3)) for n in (3, 5, 1)]
    mine = rnn_utils.pad_sequence([gg.tensor(s) for s in seqs], batch_first=batch_first, padding_value=-1.0,
                                  padding_side=padding_side)
    theirs = torch.nn.utils.rnn.pad_sequence([torch.from_numpy(s) for s in seqs], batch_first=batch_first,
                                             padding_value=-1.0, padding_side=padding_side)
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())


@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_pack_sequence_and_unpacking_match_torch(enforce_sorted):
    rng = np.random.default_rng(9)
    lens = [4, 3, 3, 1] if enforce_sorted else [1, 3, 4, 3]
    seqs = [rng.standard_normal((n, 2)) for n in lens]
    mine = rnn_utils.pack_sequence([gg.tensor(s) for s in seqs], enforce_sorted=enforce_sorted)
    theirs = torch.nn.utils.rnn.pack_sequence([torch.from_numpy(s) for s in seqs], enforce_sorted=enforce_sorted)
    np.testing.assert_array_equal(mine.data.numpy(), theirs.data.numpy())
    np.testing.assert_array_equal(mine.batch_sizes.numpy(), theirs.batch_sizes.numpy())
    for a, b in ((mine.sorted_indices, theirs.sorted_indices), (mine.unsorted_indices, theirs.unsorted_indices)):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert mine.batch_sizes.dtype == "int64" and mine.batch_sizes.device == "cpu"
    for got, want in zip(rnn_utils.unpack_sequence(mine), torch.nn.utils.rnn.unpack_sequence(theirs)):
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    padded, lengths = rnn_utils.pad_packed_sequence(mine, batch_first=True)
    tpadded, tlengths = torch.nn.utils.rnn.pad_packed_sequence(theirs, batch_first=True)
    np.testing.assert_array_equal(padded.numpy(), tpadded.numpy())
    np.testing.assert_array_equal(lengths.numpy(), tlengths.numpy())
    for got, want in zip(rnn_utils.unpad_sequence(padded, lengths, batch_first=True),
                         torch.nn.utils.rnn.unpad_sequence(tpadded, tlengths, batch_first=True)):
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_packing_gradients_flow_back_to_the_padded_input():
    x = np.random.default_rng(10).standard_normal((4, 3, 2))
    lens = [2, 4, 1]
    gx, tx = gg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    gp = rnn_utils.pack_padded_sequence(gx, lens, enforce_sorted=False)
    tp = torch.nn.utils.rnn.pack_padded_sequence(tx, lens, enforce_sorted=False)
    u = np.random.default_rng(11).standard_normal(tuple(tp.data.shape))
    (gp.data * gg.tensor(u)).sum().backward()
    (tp.data * torch.from_numpy(u)).sum().backward()
    np.testing.assert_array_equal(gx.grad.numpy(), tx.grad.numpy())


@pytest.mark.parametrize("call,match", [
    (lambda: rnn_utils.pack_padded_sequence(gg.zeros(4, 3, 2), [1, 3, 2]), "must be sorted in decreasing order"),
    (lambda: rnn_utils.pack_padded_sequence(gg.zeros(4, 3, 2), [3, 2, 0]), "Length of all samples has to be greater"),
    (lambda: rnn_utils.pack_padded_sequence(gg.zeros(4, 3, 2), [3, 2]), "Expected `len\\(lengths\\)` to be equal"),
    (lambda: rnn_utils.pad_packed_sequence(rnn_utils.pack_sequence([gg.zeros(3, 2)]), total_length=2),
     "Expected total_length to be at least the length of the longest sequence"),
])
def test_packing_errors_are_pytorchs(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_packed_sequence_is_a_namedtuple_with_pytorchs_fields_and_methods():
    p = rnn_utils.pack_sequence([gg.zeros(3, 2), gg.zeros(1, 2)])
    data, batch_sizes, sorted_indices, unsorted_indices = p
    assert p._fields == torch.nn.utils.rnn.PackedSequence._fields
    assert sorted_indices is None and unsorted_indices is None and not p.is_cuda
    assert p.double().data.dtype == "float64" and p.to("cpu").batch_sizes is batch_sizes


# ---- compiled steps ---------------------------------------------------------------------------------


def _training_step(model, opt):
    def step(x):
        y, (h, c) = model(x)
        loss = (y * y).mean() + (c * c).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss
    return step


def test_compiled_lstm_step_replays_the_eager_numbers():
    """glassgrad.compile traces a training step with a 2-layer LSTM once and replays its plan (the
    time loops included): the same parameters after three steps as the plain loop."""
    def build():
        gg.manual_seed(3)
        model = nn.LSTM(4, 6, num_layers=2)
        return model, gg.optim.SGD(model.parameters(), lr=0.1)
    x = gg.tensor(np.random.default_rng(0).standard_normal((7, 3, 4)).astype(np.float32))
    eager_model, eager_opt = build()
    eager = _training_step(eager_model, eager_opt)
    compiled_model, compiled_opt = build()
    compiled = gg.compile(_training_step(compiled_model, compiled_opt))
    for _ in range(3):
        a, b = eager(x).item(), compiled(x).item()
        assert a == pytest.approx(b, rel=1e-6)
    for (k, v), (_, w) in zip(eager_model.state_dict().items(), compiled_model.state_dict().items()):
        np.testing.assert_allclose(v, w, rtol=1e-6, atol=1e-7, err_msg=k)


# ---- thread counts -------------------------------------------------------------------------------


@pytest.fixture
def restore_threads():
    before = gg.get_num_threads()
    yield
    gg.set_num_threads(before)


def test_lstm_planned_with_one_thread_runs_with_more(restore_threads):
    """A plan's workspace is sized with the thread count of its time; a later call with more
    threads gets the same plan and must not use more packing space than it has (it once did:
    the GEMM split over the new thread count wrote past the workspace)."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((7, 9, 13))
    results = []
    for threads in (1, 2, 3):
        gg.set_num_threads(threads)
        gg.manual_seed(5)
        model = nn.LSTM(13, 67, num_layers=2, bidirectional=True).double()
        xt = gg.tensor(x, requires_grad=True)
        y, (h, c) = model(xt)
        ((y * y).sum() + (c * c).sum()).backward()
        results.append([y.detach().numpy(), xt.grad.numpy(), model.weight_hh_l0.grad.numpy()])
    for threads, got in zip((2, 3), results[1:]):
        for a, b in zip(results[0], got):
            np.testing.assert_array_equal(a, b, err_msg=f"{threads} threads")


# With several threads, an LSTM whose steps are big enough (batch * 4H * H multiply-adds from
# 65536) runs its time loops cut into slices of hidden units, one slice per thread
# (core-runtime/kernels/cpu/recurrent/lstm_units.h); the arithmetic is that of the one-thread
# loops, so the results are the same bits for any thread count.


def _lstm_run(threads, dtype, packed, seed=5):
    """Outputs and every gradient of a 2-layer bidirectional LSTM (13 inputs, 67 units, batch 9,
    7 steps: slices of 33 and 34 units with 2 threads) on random data."""
    gg.set_num_threads(threads)
    gg.manual_seed(seed)
    model = nn.LSTM(13, 67, num_layers=2, bidirectional=True)
    model = model.double() if dtype == np.float64 else model
    rng = np.random.default_rng(seed)
    x = gg.tensor(rng.standard_normal((7, 9, 13)).astype(dtype), requires_grad=True)
    h0 = gg.tensor(rng.standard_normal((4, 9, 67)).astype(dtype), requires_grad=True)
    c0 = gg.tensor(rng.standard_normal((4, 9, 67)).astype(dtype), requires_grad=True)
    lengths = [7, 7, 6, 5, 5, 3, 2, 2, 1]
    inp = rnn_utils.pack_padded_sequence(x, lengths) if packed else x
    y, (h, c) = model(inp, (h0, c0))
    y = rnn_utils.pad_packed_sequence(y)[0] if packed else y
    u = rng.standard_normal(tuple(y.shape)).astype(dtype)
    ((y * gg.tensor(u)).sum() + (h * h).sum() + (c * c).sum()).backward()
    out = {"y": y, "h": h, "c": c, "dx": x.grad, "dh0": h0.grad, "dc0": c0.grad}
    out.update({name: p.grad for name, p in model.named_parameters()})
    return {k: v.detach().numpy() for k, v in out.items()}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("packed", [False, True])
def test_lstm_results_do_not_depend_on_the_thread_count(dtype, packed, restore_threads):
    one = _lstm_run(1, dtype, packed)
    for threads in (2, 3):
        many = _lstm_run(threads, dtype, packed)
        for k in one:
            np.testing.assert_array_equal(one[k], many[k], err_msg=f"{k} with {threads} threads")


def test_lstm_cut_into_unit_slices_matches_torch(restore_threads):
    gg.set_num_threads(2)
    mine, theirs = _pair("LSTM", 13, 67, num_layers=2, bidirectional=True)
    rng = np.random.default_rng(4)
    x, h0, c0 = rng.standard_normal((7, 9, 13)), rng.standard_normal((4, 9, 67)), rng.standard_normal((4, 9, 67))

    def inputs(fw):
        leaves = [_leaf(fw, a) for a in (x, h0, c0)]
        return (leaves[0], (leaves[1], leaves[2])), leaves
    _compare(mine, theirs, inputs)


def test_compiled_lstm_step_runs_with_more_threads_than_it_was_planned_for(restore_threads):
    """A plan made with one thread has no room for the unit slices: with three threads the
    step still runs (in as many slices as its workspace holds) and gives the eager numbers."""
    def build():
        gg.manual_seed(3)
        model = nn.LSTM(16, 64, num_layers=2)
        return model, gg.optim.SGD(model.parameters(), lr=0.1)
    x = gg.tensor(np.random.default_rng(0).standard_normal((5, 17, 16)).astype(np.float32))
    gg.set_num_threads(1)
    eager_model, eager_opt = build()
    compiled_model, compiled_opt = build()
    eager, compiled = _training_step(eager_model, eager_opt), gg.compile(_training_step(compiled_model, compiled_opt))
    assert eager(x).item() == compiled(x).item()
    gg.set_num_threads(3)
    for _ in range(2):
        assert eager(x).item() == compiled(x).item()
    for (k, v), (_, w) in zip(eager_model.state_dict().items(), compiled_model.state_dict().items()):
        np.testing.assert_array_equal(v, w, err_msg=k)
