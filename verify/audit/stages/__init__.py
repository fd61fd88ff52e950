"""The five stages of an audit, run once each and in order by :func:`verify.audit.audit`.

==========  ===========================================  =====================================
stage       reads                                        gives
==========  ===========================================  =====================================
validate    the caller's arguments                       an ``AuditPlan`` (claim, alpha, sizes,
                                                         pairs, features, resolution)
select      the plan; n_select outputs per input, pair   per layer: a ``Choice`` (candidate
                                                         event, pair, rare nominee)
refine      the choices; n_refine fresh outputs          per layer: a ``Refined`` event and
                                                         its eps(delta) curve's events
certify     the refined events; n fresh outputs          per layer: ``Certified`` counts,
                                                         bound and p-values; the curve
assemble    the certification                            the ``AuditResult``
==========  ===========================================  =====================================

The claim (eps, delta) and alpha enter at *validate* and are read from the plan afterwards;
each layer's share of alpha is fixed once the selection knows which layers have a statistic.
With a budget, :mod:`.sequential` runs select and refine before every round, on the outputs of
the rounds before it, and bets on each round's fresh outputs in place of *certify*.
"""
