"""torch.optim.Optimizer's hooks (step pre/post, state_dict pre/post, load_state_dict pre/post)
called as PyTorch calls them, with the same arguments and order, on an optimizer of the base
step (SGD), one of its own (LBFGS) and one built by a user subclass; lr_scheduler._LRScheduler."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")


def _log_hooks(opt, log):
    handles = [
        opt.register_step_pre_hook(lambda o, args, kwargs: log.append(("step_pre", len(args), sorted(kwargs)))),
        opt.register_step_post_hook(lambda o, args, kwargs: log.append(("step_post", len(args), sorted(kwargs)))),
        opt.register_state_dict_pre_hook(lambda o: log.append(("sd_pre",))),
        opt.register_state_dict_post_hook(lambda o, sd: log.append(("sd_post", sorted(sd)))),
        opt.register_load_state_dict_pre_hook(lambda o, sd: log.append(("load_pre", sorted(sd)))),
        opt.register_load_state_dict_post_hook(lambda o: log.append(("load_post",))),
        opt.register_state_dict_pre_hook(lambda o: log.append(("sd_pre_first",)), prepend=True),
    ]
    return handles


def _exercise(lib, cls, **kwargs):
    p = lib.tensor([1.0, -2.0], dtype=lib.float64, requires_grad=True)
    opt = getattr(lib.optim, cls)([p], **kwargs)
    log = []
    handles = _log_hooks(opt, log)

    def closure():
        opt.zero_grad()
        loss = (p ** 2).sum()
        loss.backward()
        return loss
    opt.step(closure)
    opt.step(closure=closure)
    sd = opt.state_dict()
    opt.load_state_dict(sd)
    for h in handles:
        h.remove()
    opt.step(closure)
    opt.state_dict()
    return [entry if entry[0] not in ("sd_post", "load_pre") else (entry[0], [k for k in entry[1] if k != "optimizer"])
            for entry in log], p


@pytest.mark.parametrize("cls,kwargs", [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=0.1)),
                                        ("LBFGS", dict(lr=0.5, max_iter=3)), ("Rprop", {})])
def test_hooks_run_as_torchs(cls, kwargs):
    theirs, tp = _exercise(torch, cls, **kwargs)
    ours, gp = _exercise(gg, cls, **kwargs)
    assert ours == theirs
    np.testing.assert_allclose(gp.detach().numpy(), tp.detach().numpy(), rtol=1e-10)


def test_pre_hooks_may_replace_arguments_and_state_dicts():
    p = gg.tensor([1.0, 2.0], requires_grad=True)
    opt = gg.optim.SGD([p], lr=0.1)
    calls = []

    def closure():
        calls.append(1)
        opt.zero_grad()
        (p * p).sum().backward()
        return 0.0
    opt.register_step_pre_hook(lambda o, args, kwargs: ((o,), {"closure": closure}))
    opt.step()
    assert calls == [1]
    opt.register_step_pre_hook(lambda o, args, kwargs: "bad")
    with pytest.raises(RuntimeError, match="must return None or a tuple of \\(new_args, new_kwargs\\)"):
        opt.step()
    opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
    assert opt.state_dict()["extra"] == 1

    def drop_lr(o, sd):
        sd["param_groups"] = [{**g, "lr": 0.5} for g in sd["param_groups"]]
        return sd
    opt.register_load_state_dict_pre_hook(drop_lr)
    opt.load_state_dict(opt.state_dict())
    assert opt.param_groups[0]["lr"] == 0.5


def test_a_user_subclass_step_runs_the_hooks_once():
    class Doubled(gg.optim.SGD):
        def step(self, closure=None):
            super().step(closure)
            return super().step(closure)
    p = gg.tensor([1.0], requires_grad=True)
    opt = Doubled([p], lr=0.25)
    log = []
    opt.register_step_pre_hook(lambda o, a, k: log.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: log.append("post"))
    (p * 2).sum().backward()
    opt.step()
    assert log == ["pre", "post"]
    np.testing.assert_allclose(p.detach().numpy(), [0.0])


def test_lr_scheduler_old_base_name():
    assert issubclass(gg.optim.lr_scheduler._LRScheduler, gg.optim.lr_scheduler.LRScheduler)
    rates = []
    for lib in (torch, gg):
        class Halving(lib.optim.lr_scheduler._LRScheduler):
            def get_lr(self):
                return [g["lr"] * 0.5 for g in self.optimizer.param_groups]
        opt = lib.optim.SGD([lib.tensor([1.0], requires_grad=True)], lr=1.0)
        sched = Halving(opt)  # the initial step halves once
        opt.step()
        sched.step()
        rates.append(sched.get_last_lr())
    assert rates[0] == rates[1] == [0.25]
