"""The math grader behind the ``rule`` reward: extraction, rejection, decision, then math-verify and the identity
stage (:mod:`rewards.math.grader` says the order). Nothing is imported here: sympy and math-verify load only in
the modules and processes that need them."""
