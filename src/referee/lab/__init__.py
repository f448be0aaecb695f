"""The balance lab: formula rule packs, exact analysis of any pack, group battles, reports.

`referee.lab.formula` is a bottom module (it imports only `referee.errors` and numpy) so that
`referee.systems.msv.rules` can read formula packs; the rest of the package sits beside
`referee.analysis`. This `__init__` imports nothing, to keep that arrow one-way.
"""
