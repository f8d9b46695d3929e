# gradcheck: a layer you wrote, against finite differences, in float64.
import numpy as np

import glassgrad

rng = np.random.default_rng(0)


def swish(x, w):                       # a layer made of glassgrad ops: correct gradients
    h = x @ w.T
    return h * glassgrad.sigmoid(h)


print(glassgrad.debug.gradcheck(swish, [rng.standard_normal((4, 3)), rng.standard_normal((5, 3))]))


def swish_buggy(x, w):                 # detach() hides a factor from backward: a wrong gradient
    h = x @ w.T
    return h.detach() * glassgrad.sigmoid(h)


try:
    glassgrad.debug.gradcheck(swish_buggy, [rng.standard_normal((4, 3)), rng.standard_normal((5, 3))])
except glassgrad.debug.GradcheckError as e:
    print(e)
