"""The balance lab: exact analysis of any rule pack, group battles, reports.

Formula rule packs are read by the rule systems (`referee.systems.formula`); the lab sits
beside `referee.analysis` and above both.
"""
