"""A stand-in for the `gym` package (CartPole-v0, CartPole-v1 and Pendulum-v1 only) for ported
reinforcement-learning scripts: tests copy this file into a folder on the script's path as gym.py.

The dynamics, observation dtypes, episode limits (200, 500 and 200 steps) and the reset/step
signatures follow gym 0.26's documented environments: reset(seed=None) -> (obs, info) and
step(a) -> (obs, reward, terminated, truncated, info). With GYM_STAND_IN_API=0.21 in the
environment it keeps the older API instead (reset() -> obs, step(a) -> (obs, reward, done,
info), env.seed(n)), the one scripts written before gym 0.26 call."""
import math
import os

import numpy as np

LEGACY = os.environ.get("GYM_STAND_IN_API") == "0.21"


class Box:
    # as gym's Box: low and high are float32 arrays of the space's shape
    def __init__(self, low, high, shape):
        self.low, self.high = np.full(shape, low, np.float32), np.full(shape, high, np.float32)
        self.shape, self.dtype, self.rng = shape, np.dtype(np.float32), np.random.default_rng()

    def seed(self, seed=None):
        self.rng = np.random.default_rng(seed)
        return [seed]

    def sample(self):
        return self.rng.uniform(self.low, self.high).astype(np.float32)


class Discrete:
    def __init__(self, n):
        self.n, self.shape, self.rng = n, (), np.random.default_rng()

    def seed(self, seed=None):
        self.rng = np.random.default_rng(seed)
        return [seed]

    def sample(self):
        return int(self.rng.integers(self.n))


class CartPole:
    # CartPole-v1: the cart-pole of Barto, Sutton and Anderson, Euler steps of 0.02 s
    gravity, masscart, masspole, length, force_mag, tau = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02
    theta_threshold, x_threshold, max_steps = 12 * 2 * math.pi / 360, 2.4, 500

    def __init__(self):
        self.observation_space = Box(-np.inf, np.inf, (4,))
        self.action_space = Discrete(2)
        self.rng, self.state = np.random.default_rng(), None

    def _reset(self):
        self.state, self.t = self.rng.uniform(-0.05, 0.05, 4), 0
        return self.state.astype(np.float32)

    def _step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = self.force_mag if int(action) == 1 else -self.force_mag
        total, pole_ml = self.masscart + self.masspole, self.masspole * self.length
        cos, sin = math.cos(theta), math.sin(theta)
        temp = (force + pole_ml * theta_dot ** 2 * sin) / total
        theta_acc = (self.gravity * sin - cos * temp) / (self.length * (4 / 3 - self.masspole * cos ** 2 / total))
        x_acc = temp - pole_ml * theta_acc * cos / total
        self.state = np.array([x + self.tau * x_dot, x_dot + self.tau * x_acc,
                               theta + self.tau * theta_dot, theta_dot + self.tau * theta_acc])
        self.t += 1
        terminated = bool(abs(self.state[0]) > self.x_threshold or abs(self.state[2]) > self.theta_threshold)
        return self.state.astype(np.float32), 1.0, terminated, self.t >= self.max_steps


class Pendulum:
    # Pendulum-v1: torque in [-2, 2], angular speed clipped to [-8, 8], steps of 0.05 s
    max_speed, max_torque, dt, g, m, l, max_steps = 8.0, 2.0, 0.05, 10.0, 1.0, 1.0, 200

    def __init__(self):
        self.observation_space = Box(-np.inf, np.inf, (3,))
        self.action_space = Box(-2.0, 2.0, (1,))
        self.rng, self.state = np.random.default_rng(), None

    def _obs(self):
        th, thdot = self.state
        return np.array([math.cos(th), math.sin(th), thdot], dtype=np.float32)

    def _reset(self):
        self.state, self.t = self.rng.uniform([-math.pi, -1.0], [math.pi, 1.0]), 0
        return self._obs()

    def _step(self, u):
        th, thdot = self.state
        u = float(np.clip(np.asarray(u, dtype=np.float64).reshape(-1)[0], -self.max_torque, self.max_torque))
        angle = ((th + math.pi) % (2 * math.pi)) - math.pi
        cost = angle ** 2 + 0.1 * thdot ** 2 + 0.001 * u ** 2
        thdot = np.clip(thdot + (3 * self.g / (2 * self.l) * math.sin(th) + 3.0 / (self.m * self.l ** 2) * u) * self.dt,
                        -self.max_speed, self.max_speed)
        self.state = np.array([th + thdot * self.dt, thdot])
        self.t += 1
        return self._obs(), -cost, False, self.t >= self.max_steps


class Env:
    """gym.make's result: the environment behind its time limit."""

    def __init__(self, inner, max_episode_steps=None, autoreset=False):
        self.inner, self.autoreset = inner, autoreset
        if max_episode_steps is not None:
            inner.max_steps = max_episode_steps
        self.observation_space, self.action_space = inner.observation_space, inner.action_space

    def reset(self, seed=None, options=None):
        if seed is not None:
            self.inner.rng = np.random.default_rng(seed)
        obs = self.inner._reset()
        return obs if LEGACY else (obs, {})

    def step(self, action):
        if self.inner.state is None:
            raise RuntimeError("Cannot call env.step() before calling env.reset()")
        obs, reward, terminated, truncated = self.inner._step(action)
        if LEGACY:
            return obs, reward, terminated or truncated, {}
        if self.autoreset and (terminated or truncated):
            obs = self.inner._reset()
        return obs, reward, terminated, truncated, {}

    @property
    def _max_episode_steps(self):  # gym's TimeLimit's attribute, which scripts read
        return self.inner.max_steps

    def seed(self, seed=None):
        if not LEGACY:
            raise AttributeError("'TimeLimit' object has no attribute 'seed'")
        self.inner.rng = np.random.default_rng(seed)

    def render(self):
        pass

    def close(self):
        pass


# name -> (environment, the episode limit gym registers it with): CartPole-v0 is v1's cart-pole
# limited to 200 steps; Pendulum-v0 has v1's dynamics
ENVIRONMENTS = {"CartPole-v0": (CartPole, 200), "CartPole-v1": (CartPole, 500), "Pendulum-v0": (Pendulum, 200),
                "Pendulum-v1": (Pendulum, 200)}


class Wrapper:
    """gym.Wrapper: the wrapped environment's spaces and methods, by attribute."""

    def __init__(self, env):
        self.env = env
        self.observation_space, self.action_space = env.observation_space, env.action_space

    def __getattr__(self, name):
        if name.startswith("__") or name == "env":
            raise AttributeError(name)
        return getattr(self.env, name)

    def step(self, action):
        return self.env.step(action)

    def reset(self, **kwargs):
        return self.env.reset(**kwargs)


class ActionWrapper(Wrapper):
    """gym.ActionWrapper: step() passes action(a) on. As in the gym before 0.10 that notebooks of
    its time subclass, action() calls the subclass's _action() when it defines one."""

    def step(self, action):
        return self.env.step(self.action(action))

    def action(self, action):
        if type(self)._action is not ActionWrapper._action:
            return self._action(action)
        raise NotImplementedError

    def _action(self, action):
        raise NotImplementedError


def make(name, max_episode_steps=None, autoreset=False, render_mode=None):
    environment, limit = ENVIRONMENTS[name]
    return Env(environment(), max_episode_steps or limit, autoreset)


class logger:
    level = 30

    @classmethod
    def set_level(cls, level):
        cls.level = level
