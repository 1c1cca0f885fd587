"""ANTLR's prediction automaton for latex2sympy's grammar, saved once and loaded by each rule-reward worker
(:mod:`rewards.math.dfa.snapshot`): its own subpackage, since it reaches into ANTLR's runtime classes, which
nothing else in :mod:`rewards.math` touches, and ships a data file of its own."""
