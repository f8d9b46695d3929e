"""A stand-in for the `wandb` package for ported training scripts that log to it: tests copy this
file beside the script as wandb.py. It keeps what the script logs in memory (no network, no
files) and prints each step's scalars, so a test can read what was logged."""


class _Config(dict):
    def update(self, values=None, **more):
        super().update(values or {}, **more)


class Run:
    def __init__(self, **settings):
        self.settings, self.config, self.history = settings, _Config(), []

    def log(self, values, step=None, commit=None):
        self.history.append(dict(values))
        scalars = {k: v for k, v in values.items() if isinstance(v, (int, float))}
        print("wandb.log", " ".join(f"{k}={v}" for k, v in sorted(scalars.items())), flush=True)

    def finish(self):
        pass


class Histogram:
    def __init__(self, sequence=None, num_bins=64):
        self.sequence, self.num_bins = sequence, num_bins


class Image:
    def __init__(self, data_or_path, caption=None):
        self.data, self.caption = data_or_path, caption


run = None


def init(**settings):
    global run
    run = Run(**settings)
    return run


def log(values, step=None, commit=None):
    run.log(values, step, commit)
