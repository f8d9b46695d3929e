"""kl_divergence's closed forms between LowRankMultivariateNormal and MultivariateNormal (all three
orders torch registers), through the capacitance factors: no n x n matrix is inverted where one
side is low-rank. The trace term tr(Sigma_q^-1 Sigma_p) is expanded as torch's comments derive."""
from __future__ import annotations

from typing import Any

from .. import linalg
from .._shapes import diag_embed
from .._tensor import Tensor
from .kl import register_kl
from .low_rank_multivariate_normal import (LowRankMultivariateNormal, batch_lowrank_logdet,
                                           batch_lowrank_mahalanobis, batch_trace_xxt)
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis


def _same_event(p: Any, q: Any) -> None:
    if p.event_shape != q.event_shape:
        raise ValueError(f"kl_divergence({type(p).__name__}, {type(q).__name__}): KL-divergence between two (Low "
                         f"Rank) Multivariate Normals with different event shapes ({list(p.event_shape)} and "
                         f"{list(q.event_shape)}) cannot be computed")


def _q_terms(p: Any, q: LowRankMultivariateNormal) -> tuple:
    """(log det Sigma_q, Mahalanobis of the loc difference under q, A = C_q^-1 W_q^T D_q^-1)."""
    W, D = q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag
    log_det = batch_lowrank_logdet(D, q._capacitance_tril)
    term3 = batch_lowrank_mahalanobis(W, D, q.loc - p.loc, q._capacitance_tril)
    A = linalg.solve_triangular(q._capacitance_tril, W.mT / D.unsqueeze(-2), upper=False)
    return log_det, term3, A


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank_lowrank(p: LowRankMultivariateNormal, q: LowRankMultivariateNormal) -> Tensor:
    _same_event(p, q)
    q_log_det, term3, A = _q_terms(p, q)
    term1 = q_log_det - p._log_det()
    pW, pD, qD = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag, q._unbroadcasted_cov_diag
    term21 = (pD / qD).sum(-1)
    term22 = batch_trace_xxt(pW * qD.rsqrt().unsqueeze(-1))
    term23 = batch_trace_xxt(A * pD.sqrt().unsqueeze(-2))
    term24 = batch_trace_xxt(A @ pW)
    return 0.5 * (term1 + term21 + term22 - term23 - term24 + term3 - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_mvn_lowrank(p: MultivariateNormal, q: LowRankMultivariateNormal) -> Tensor:
    _same_event(p, q)
    q_log_det, term3, A = _q_terms(p, q)
    L = p._unbroadcasted_scale_tril
    term1 = q_log_det - 2 * L.diagonal(0, -2, -1).log().sum(-1)
    term2 = batch_trace_xxt(L * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1)) - batch_trace_xxt(A @ L)
    return 0.5 * (term1 + term2 + term3 - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrank_mvn(p: LowRankMultivariateNormal, q: MultivariateNormal) -> Tensor:
    import numpy as np
    _same_event(p, q)
    Lq, pW, pD = q._unbroadcasted_scale_tril, p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag
    term1 = 2 * Lq.diagonal(0, -2, -1).log().sum(-1) - p._log_det()
    term3 = _batch_mahalanobis(Lq, q.loc - p.loc)
    batch = tuple(np.broadcast_shapes(tuple(Lq.shape[:-2]), tuple(pW.shape[:-2])))
    n = p.event_shape[0]
    Lq_b = Lq.expand(*batch, n, n)
    term21 = batch_trace_xxt(linalg.solve_triangular(Lq_b, pW.expand(*batch, n, pW.shape[-1]), upper=False))
    term22 = batch_trace_xxt(linalg.solve_triangular(Lq_b, diag_embed(pD.sqrt()).expand(*batch, n, n), upper=False))
    return 0.5 * (term1 + term21 + term22 + term3 - n)
