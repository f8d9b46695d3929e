# torch.profiler's names on glassgrad: which ops a training step runs, how often, and their host time.
import glassgrad as gg
from glassgrad.profiler import ProfilerActivity, profile, record_function, schedule

gg.manual_seed(0)
model = gg.nn.Sequential(gg.nn.Linear(64, 128), gg.nn.ReLU(), gg.nn.Linear(128, 10))
opt = gg.optim.SGD(model.parameters(), lr=0.01)
x, y = gg.randn(32, 64), gg.randint(0, 10, (32,))


def train_step():
    with record_function("forward"):
        loss = gg.nn.functional.cross_entropy(model(x), y)
    with record_function("backward+step"):
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss.item()  # the plan runs here: its op steps sit inside this block


def show(prof):
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=8))


# wait 1 step, warm up 1 (the first step compiles its plan), record 2, then show them
with profile(activities=[ProfilerActivity.CPU], record_shapes=True,
             schedule=schedule(wait=1, warmup=1, active=2, repeat=1), on_trace_ready=show) as prof:
    for _ in range(5):
        train_step()
        prof.step()
prof.export_chrome_trace("train_step_trace.json")  # open in chrome://tracing or ui.perfetto.dev
matmuls = [e for e in prof.events() if e.name == "MatMul"]
print(f"MatMul steps recorded: {len(matmuls)} (forward {sum(e.role == 'forward' for e in matmuls)}, "
      f"backward {sum(e.role == 'backward' for e in matmuls)})")
