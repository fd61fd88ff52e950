"""Perturbation laws of the DP-FTPL family (seed 002, Wang & Zhu; spec ``seed_002.md`` §4-5).

An FTPL policy draws one sample theta_i per arm from a law built from the arm's
history and pulls the argmax; Lemma 8 (DP) / Lemma 9 (GDP) turn CDF
inequalities between the law and its neighbour into privacy.  One module per law:

==================  ===========================================  ======================
module / law        definition                                    used by
==================  ===========================================  ======================
``gaussian``        N(R/N, v/N); v = 2 by default (spec §5.1)     DP-FTPL-Gauss (Alg. 1)
``beta``            Beta(R+1+k, N-R+1+k), k = floor(N/8) + 1      DP-FTPL-Beta (Alg. 2)
``lemma15``         Laplace(x0, 1/(N eps)) truncated to x0 +- A,   DP-FTPL-New (Alg. 3),
                    A = ln(1 + (e^eps - 1)/(2 delta))/(N eps)      GDP-Elim-New (Alg. 4)
==================  ===========================================  ======================

Each module holds the law's compiled scalar kernels (cdf, sf, pdf, a draw of the exact law),
its law object (``GaussianLaw``, ``BetaLaw``, ``Lemma15Law``: vectorised ``cdf/sf/pdf(x)``,
``sample(size, seed)``, ``support()``, ``breakpoints()``, ``neighbour(...)``), the draw the
policies make (``gauss_perturbation``, ``beta_perturbation``, ``lemma15_lattice_draw``: the
Gaussian and Lemma 15 draws float-safe on a lattice, :mod:`dpbench.mechanisms.lattice`), its
engine component and its catalog mechanism (``dpbench.sampler("ftpl_gauss" | "ftpl_beta" |
"lemma15", ...)``): one arm's perturbation with ``pulls`` observations, of which one (the
input x in [0, 1]) may change and the others sum to ``others``, so any two inputs are
neighbours in the sense of Definition 1; the component's ``privatize`` is the policies' draw,
so the audit checks what runs.  The special functions (incomplete beta, normal quantile) are
in :mod:`dpbench.mechanisms.special`.  This package re-exports each module's public names.
"""
from ._common import FeasibilityFamily
from .gaussian import (
    GAUSS_START_RULES,
    GAUSS_VARIANCE,
    GaussianLaw,
    GaussPerturbation,
    GaussPerturbationMechanism,
    gauss_cdf,
    gauss_lattice_delta,
    gauss_lattice_bound,
    gauss_lattice_plan,
    gauss_lattice_step,
    gauss_lattice_theta,
    gauss_pdf,
    gauss_perturbation,
    gauss_perturbation_float,
    gauss_sample,
    gauss_sd,
    gauss_sf,
    gauss_start_phase,
)
from .beta import (
    BETA_START_RULES,
    BetaLaw,
    BetaPerturbation,
    BetaPerturbationMechanism,
    beta_cdf,
    beta_pdf,
    beta_perturbation,
    beta_sample,
    beta_sf,
    beta_shapes,
    beta_start_phase,
)
from .lemma15 import (
    Lemma15Law,
    Lemma15Mechanism,
    Lemma15Perturbation,
    lemma15_c,
    lemma15_cdf,
    lemma15_draw,
    lemma15_from_uniform,
    lemma15_lattice,
    lemma15_lattice_draw,
    lemma15_lattice_law,
    lemma15_lattice_steps,
    lemma15_lattice_theta,
    lemma15_lower_tail,
    lemma15_pdf,
    lemma15_predraw,
    lemma15_sample,
    lemma15_sf,
    lemma15_step_scale,
    lemma15_tail_radius,
    lemma15_tail_radius_parts,
    lemma15_width,
    open_uniform,
)

from ...plugins import import_folder  # noqa: E402  (after the re-exports above)

import_folder(__name__)
#: the laws the CDF checker of Lemmas 8/9 (verify.cdf_feasibility) is run on: every law class of a
#: module of this folder that declares what the checker asks (FeasibilityFamily); a new law is its module
FEASIBILITY_LAWS = tuple(FeasibilityFamily.__subclasses__())
