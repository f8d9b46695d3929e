"""Recurrent ops: RNNSequence (tanh, relu), LSTMSequence (with and without a projection),
GRUSequence and their backward ops, over padded and packed sequences in both directions; and
PackSequence / PadPackedSequence.

The references run each sequence on its own (row b of the batch, its first length_b steps, in
the layer's direction), in float64: a formulation independent of the kernels' batched time loop
over rows that start and stop. The backward references are backpropagation through time written
out per sequence with the derivatives of docs/recurrent.md."""
import numpy as np

from glassgrad.testing import OpSpec


def _sig(v):
    return 1.0 / (1.0 + np.exp(-v))


def _layout(x, batch, batch_sizes):
    """Per sequence b: the row indices of its steps in time order (padded [T, B, I] rows are
    t * B + b)."""
    if batch_sizes is None:
        steps = x.shape[0]
        return [[t * batch + b for t in range(steps)] for b in range(batch)]
    offsets = np.concatenate([[0], np.cumsum(batch_sizes)[:-1]])
    return [[int(offsets[t]) + b for t in range(len(batch_sizes)) if batch_sizes[t] > b] for b in range(batch)]


def _rows(a):
    return a.reshape(-1, a.shape[-1])


def _cell_step(cell, xp, h, c, w_hh, b_hh_n, relu):
    """One step of one sequence from the input part xp (biases included, but b_hn for the GRU):
    (h, c, saved values)."""
    if cell == "lstm":
        p = xp + w_hh @ h
        H = c.shape[0]
        i, f, g, o = _sig(p[:H]), _sig(p[H:2 * H]), np.tanh(p[2 * H:3 * H]), _sig(p[3 * H:])
        c = f * c + i * g
        return o * np.tanh(c), c, np.concatenate([i, f, g, o, c])
    if cell == "gru":
        H = h.shape[0]
        rec = w_hh @ h
        r = _sig(xp[:H] + rec[:H])
        z = _sig(xp[H:2 * H] + rec[H:2 * H])
        hn = rec[2 * H:] + b_hh_n
        n = np.tanh(xp[2 * H:] + r * hn)
        return n + z * (h - n), None, np.concatenate([r, z, n, hn])
    p = xp + w_hh @ h
    return (np.maximum(p, 0) if relu else np.tanh(p)), None, None


def _forward(cell, x, w_ih, w_hh, h0, c0=None, b_ih=None, b_hh=None, w_hr=None, reverse=False, batch_sizes=None,
             nonlinearity="tanh"):
    dt = x.dtype
    x, w_ih, w_hh, h0 = (np.asarray(a, np.float64) for a in (x, w_ih, w_hh, h0))
    G, H = w_ih.shape[0], w_ih.shape[0] // {"lstm": 4, "gru": 3, "rnn": 1}[cell]
    B, out = h0.shape
    bias = np.zeros(G) if b_ih is None else np.asarray(b_ih, np.float64) + np.asarray(b_hh, np.float64)
    b_hh_n = np.zeros(H)
    if cell == "gru" and b_ih is not None:
        bias[2 * H:] = np.asarray(b_ih, np.float64)[2 * H:]
        b_hh_n = np.asarray(b_hh, np.float64)[2 * H:]
    xr = _rows(x)
    N = xr.shape[0]
    y = np.zeros((N, out))
    width = {"lstm": 6 * H if w_hr is not None else 5 * H, "gru": 4 * H, "rnn": 0}[cell]
    reserve = np.zeros((N, width))
    hn, cn = h0.copy(), None if c0 is None else np.asarray(c0, np.float64).copy()
    for b, rows in enumerate(_layout(x, B, batch_sizes)):
        h = h0[b]
        c = None if c0 is None else cn[b]
        for n in (rows[::-1] if reverse else rows):
            hp, c, saved = _cell_step(cell, w_ih @ xr[n] + bias, h, c, w_hh, b_hh_n, nonlinearity == "relu")
            h = np.asarray(w_hr, np.float64) @ hp if w_hr is not None else hp
            y[n] = h
            if saved is not None:
                reserve[n, :saved.shape[0]] = saved
                if w_hr is not None:
                    reserve[n, 5 * H:] = hp
        hn[b] = h
        if c0 is not None:
            cn[b] = c
    y = y.reshape(x.shape[:-1] + (out,))
    outs = [y, hn] + ([cn] if cell == "lstm" else []) + ([reserve] if width else [])
    return tuple(o.astype(dt) for o in outs)


def _backward(cell, grad_y, grad_hn, grad_cn, x, w_ih, w_hh, h0, c0, y, reserve, w_hr, reverse, batch_sizes, relu,
              input_grad=True, bias=True):
    """BPTT of one layer and direction, per sequence, from the forward's saved values (y and the
    reserve): (dx, dw_ih, dw_hh, dh0, [dc0], db_ih, [db_hh], [dw_hr]) as the op returns them."""
    dt = x.dtype
    f64 = lambda a: None if a is None else np.asarray(a, np.float64)
    x, w_ih, w_hh, h0, c0, y, reserve, w_hr = map(f64, (x, w_ih, w_hh, h0, c0, y, reserve, w_hr))
    grad_y, grad_hn, grad_cn = map(f64, (grad_y, grad_hn, grad_cn))
    G = w_ih.shape[0]
    H = G // {"lstm": 4, "gru": 3, "rnn": 1}[cell]
    B = h0.shape[0]
    xr, yr, gyr = _rows(x), _rows(y), _rows(grad_y)
    dx = np.zeros_like(xr)
    dw_ih, dw_hh = np.zeros_like(w_ih), np.zeros_like(w_hh)
    db_ih, db_hh = np.zeros(G), np.zeros(G)
    dw_hr = None if w_hr is None else np.zeros_like(w_hr)
    dh0 = np.zeros_like(h0)
    dc0 = None if c0 is None else np.zeros_like(c0)
    for b, rows in enumerate(_layout(x, B, batch_sizes)):
        order = rows[::-1] if reverse else rows
        dh = grad_hn[b].copy()
        dc = None if c0 is None else grad_cn[b].copy()
        for k in range(len(order) - 1, -1, -1):
            n = order[k]
            h_prev = yr[order[k - 1]] if k > 0 else h0[b]
            dh = dh + gyr[n]
            if cell == "lstm":
                i, f, g, o, c_t = (reserve[n, q * H:(q + 1) * H] for q in range(5))
                c_prev = reserve[order[k - 1], 4 * H:5 * H] if k > 0 else c0[b]
                if w_hr is not None:
                    dw_hr += np.outer(dh, reserve[n, 5 * H:6 * H])
                    dhp = w_hr.T @ dh
                else:
                    dhp = dh
                tc = np.tanh(c_t)
                dct = dc + dhp * o * (1 - tc ** 2)
                dp = np.concatenate([dct * g * i * (1 - i), dct * c_prev * f * (1 - f), dct * i * (1 - g ** 2),
                                     dhp * tc * o * (1 - o)])
                dph = dp
                dc = dct * f
                direct = 0
            elif cell == "gru":
                r, z, nn, hn = (reserve[n, q * H:(q + 1) * H] for q in range(4))
                dpn = dh * (1 - z) * (1 - nn ** 2)
                dpz = dh * (h_prev - nn) * z * (1 - z)
                dpr = dpn * hn * r * (1 - r)
                dp = np.concatenate([dpr, dpz, dpn])
                dph = np.concatenate([dpr, dpz, dpn * r])
                direct = dh * z
            else:
                h_t = yr[n]
                dp = dh * ((h_t > 0) if relu else (1 - h_t ** 2))
                dph = dp
                direct = 0
            dx[n] = w_ih.T @ dp
            dw_ih += np.outer(dp, xr[n])
            dw_hh += np.outer(dph, h_prev)
            db_ih += dp
            db_hh += dph
            dh = direct + w_hh.T @ dph
        dh0[b] = dh
        if c0 is not None:
            dc0[b] = dc
    dx = dx.reshape(x.shape) if input_grad else np.zeros(0)
    if not bias:
        db_ih = db_hh = np.zeros(0)
    outs = [dx, dw_ih, dw_hh, dh0] + ([dc0] if cell == "lstm" else []) + [db_ih]
    if cell == "gru":
        outs.append(db_hh)
    if cell == "lstm":
        outs.append(dw_hr if dw_hr is not None else np.zeros(0))
    return tuple(o.astype(dt) for o in outs)


# ---- the references in the ops' signatures -------------------------------------------------


def rnn_ref(x, w_ih, w_hh, h0, b_ih=None, b_hh=None, nonlinearity="tanh", reverse=False, batch_sizes=None):
    return _forward("rnn", x, w_ih, w_hh, h0, None, b_ih, b_hh, None, reverse, batch_sizes, nonlinearity)


def lstm_ref(x, w_ih, w_hh, h0, c0, b_ih=None, b_hh=None, w_hr=None, reverse=False, batch_sizes=None):
    return _forward("lstm", x, w_ih, w_hh, h0, c0, b_ih, b_hh, w_hr, reverse, batch_sizes)


def gru_ref(x, w_ih, w_hh, h0, b_ih=None, b_hh=None, reverse=False, batch_sizes=None):
    return _forward("gru", x, w_ih, w_hh, h0, None, b_ih, b_hh, None, reverse, batch_sizes)


def pack_ref(padded, batch_sizes, sorted_indices=None, batch_first=False):
    p = np.swapaxes(padded, 0, 1) if batch_first else padded
    order = list(range(p.shape[1])) if sorted_indices is None else list(sorted_indices)
    rows = [p[t, order[j]] for t, bs in enumerate(batch_sizes) for j in range(bs)]
    return np.stack(rows) if rows else np.zeros((0,) + p.shape[2:], p.dtype)


def unpack_ref(packed, batch_sizes, total_length, sorted_indices=None, batch_first=False, padding_value=0.0,
               batch=None):
    batch = batch_sizes[0] if batch is None else batch
    out = np.full((total_length, batch) + packed.shape[1:], padding_value, dtype=packed.dtype)
    order = list(range(batch)) if sorted_indices is None else list(sorted_indices)
    k = 0
    for t, bs in enumerate(batch_sizes):
        for j in range(bs):
            out[t, order[j]] = packed[k]
            k += 1
    return np.swapaxes(out, 0, 1) if batch_first else out


# ---- inputs ---------------------------------------------------------------------------------

B, I, H, P = 3, 4, 5, 2   # odd sizes: batch, input, hidden, projection
GATES = {"rnn": 1, "lstm": 4, "gru": 3}


def _lengths(n):
    """Decreasing sequence lengths of a packed batch of B with n steps at most."""
    return [n, max(n - 1, 1), 1][:B]


def _batch_sizes(n):
    lengths = _lengths(n)
    return [sum(1 for L in lengths if L > t) for t in range(n)]


class Case:
    """One configuration of a recurrent op: its cell, direction, packing, biases, projection."""

    def __init__(self, cell, reverse=False, packed=False, bias=True, proj=False, relu=False):
        self.cell, self.reverse, self.packed, self.bias, self.proj, self.relu = cell, reverse, packed, bias, proj, relu
        self.op = {"rnn": "RNNSequence", "lstm": "LSTMSequence", "gru": "GRUSequence"}[cell]
        words = [cell + ("_relu" if relu else ""), "reverse" if reverse else "forward",
                 "packed" if packed else "padded"] + ([] if bias else ["nobias"]) + (["proj"] if proj else [])
        self.name = "-".join(words)

    def attrs(self, n):
        a = {"reverse": self.reverse}
        if self.packed:
            a["batch_sizes"] = _batch_sizes(n)
        if self.cell == "rnn":
            a["nonlinearity"] = "relu" if self.relu else "tanh"
        return a

    def out_size(self):
        return P if self.proj else H

    def forward_inputs(self, rng, dtype, n):
        G = GATES[self.cell] * H
        rows = sum(_batch_sizes(n)) if self.packed else None
        x = rng.standard_normal((rows, I) if self.packed else (n, B, I))
        scale = 0.5
        arrays = [x, scale * rng.standard_normal((G, I)), scale * rng.standard_normal((G, self.out_size())),
                  rng.standard_normal((B, self.out_size()))]
        if self.cell == "lstm":
            arrays.append(rng.standard_normal((B, H)))
        if self.bias or self.proj:
            arrays += [scale * rng.standard_normal(G), scale * rng.standard_normal(G)]
        if self.proj:
            arrays.append(scale * rng.standard_normal((P, H)))
        return [a.astype(dtype) for a in arrays]

    def reference(self, *arrays, **attrs):
        ref = {"rnn": rnn_ref, "lstm": lstm_ref, "gru": gru_ref}[self.cell]
        return ref(*arrays, **attrs)

    def backward_inputs(self, rng, dtype, n):
        fwd = self.forward_inputs(rng, dtype, n)
        outs = self.reference(*fwd, **self.attrs(n))
        states = 3 if self.cell == "lstm" else 2
        grads = [rng.standard_normal(o.shape).astype(dtype) for o in outs[:states]]
        arrays = grads + fwd[:4] + ([fwd[4]] if self.cell == "lstm" else []) + [outs[0]]
        if self.cell != "rnn":
            arrays.append(outs[-1])
        if self.proj:
            arrays.append(fwd[-1])
        return arrays

    def backward_reference(self, *arrays, reverse=False, batch_sizes=None, nonlinearity="tanh", input_grad=True,
                           bias=True):
        lstm = self.cell == "lstm"
        k = 3 if lstm else 2
        grad_cn = arrays[2] if lstm else None
        x, w_ih, w_hh, h0 = arrays[k:k + 4]
        c0 = arrays[k + 4] if lstm else None
        y = arrays[k + 5] if lstm else arrays[k + 4]
        reserve = None if self.cell == "rnn" else arrays[k + 6] if lstm else arrays[k + 5]
        w_hr = arrays[-1] if self.proj else None
        return _backward(self.cell, arrays[0], arrays[1], grad_cn, x, w_ih, w_hh, h0, c0, y, reserve, w_hr, reverse,
                         batch_sizes, nonlinearity == "relu", input_grad, bias)


def _forward_spec(case):
    k = 5 if case.cell == "lstm" else 4
    n_inputs = k + (2 if case.bias or case.proj else 0) + (1 if case.proj else 0)
    states = (0, 1, 2) if case.cell == "lstm" else (0, 1)  # the reserve carries no gradient
    return OpSpec(case.op, case.reference, case.forward_inputs, attrs=case.attrs, grad=tuple(range(n_inputs)),
                  grad_outputs=states,
                  sizes=(1, 2, 5), grad_sizes=(3,), name=f"{case.op}-{case.name}", noncontiguous=False,
                  rtol={"float32": 2e-4, "float64": 1e-9}, atol={"float32": 2e-5, "float64": 1e-10})


def _backward_spec(case, input_grad=True):
    """The backward op against BPTT from the reference forward's y and reserve (the generator
    runs the forward reference for them)."""
    def attrs(n):
        a = case.attrs(n)
        a.update(input_grad=input_grad, bias=case.bias or case.proj)
        return a

    return OpSpec(case.op + "Backward", case.backward_reference, case.backward_inputs, attrs=attrs, sizes=(1, 2, 5),
                  name=f"{case.op}Backward-{case.name}" + ("" if input_grad else "-no-dx"), noncontiguous=False,
                  rtol={"float32": 5e-4, "float64": 1e-8}, atol={"float32": 5e-5, "float64": 1e-9})


CASES = [
    Case("rnn"), Case("rnn", relu=True, reverse=True), Case("rnn", packed=True), Case("rnn", packed=True, reverse=True,
                                                                                     bias=False),
    Case("lstm"), Case("lstm", reverse=True), Case("lstm", packed=True), Case("lstm", packed=True, reverse=True),
    Case("lstm", bias=False), Case("lstm", proj=True), Case("lstm", proj=True, packed=True, reverse=True),
    Case("gru"), Case("gru", reverse=True, bias=False), Case("gru", packed=True), Case("gru", packed=True, reverse=True),
]


def _pack_inputs(rng, dtype, n):
    return [(rng.standard_normal((n, B, 2, 3)) * 10).astype(dtype)]


def _unpack_inputs(rng, dtype, n):
    return [(rng.standard_normal((sum(_batch_sizes(n)), 2, 3)) * 10).astype(dtype)]


PACK_SPECS = [
    OpSpec("PackSequence", pack_ref, _pack_inputs, attrs=lambda n: {"batch_sizes": _batch_sizes(n)},
           dtypes=("float32", "float64", "int64"), grad=(0,), sizes=(1, 2, 5), name="PackSequence"),
    OpSpec("PackSequence", pack_ref,
           lambda rng, dtype, n: [np.swapaxes(_pack_inputs(rng, dtype, n)[0], 0, 1).copy()],
           attrs=lambda n: {"batch_sizes": _batch_sizes(n), "sorted_indices": [2, 0, 1], "batch_first": True},
           grad=(0,), sizes=(1, 4), name="PackSequence-sorted-batch_first"),
    OpSpec("PadPackedSequence", unpack_ref, _unpack_inputs,
           attrs=lambda n: {"batch_sizes": _batch_sizes(n), "total_length": n + 2, "padding_value": -1.5},
           dtypes=("float32", "float64", "int64"), grad=(0,), sizes=(1, 2, 5), name="PadPackedSequence"),
    OpSpec("PadPackedSequence", unpack_ref, _unpack_inputs,
           attrs=lambda n: {"batch_sizes": _batch_sizes(n), "total_length": n, "sorted_indices": [1, 2, 0],
                            "batch_first": True},
           grad=(0,), sizes=(1, 4), name="PadPackedSequence-sorted-batch_first"),
]

SPECS = ([_forward_spec(c) for c in CASES] + [_backward_spec(c) for c in CASES]
         + [_backward_spec(Case("lstm"), input_grad=False), _backward_spec(Case("gru", packed=True), input_grad=False)]
         + PACK_SPECS)
