"""Integrity: anyone can check that the deals were fair and the stored results are the games'.

A season's key, commitment and deal seeds (``fairness``), the links of its chain of stored
records (``chain``), the check of a finished season from its published key (``verify``, also
over the public API: ``verify_api``) and the duplicate audit (``audit``). Above ratings
(a verified season's Elo is recomputed), below competition.
"""
