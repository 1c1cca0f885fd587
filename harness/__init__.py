"""Evaluation and reward-serving harness for RL of LLMs on reasoning.

The command line lives in :mod:`harness.cli`; everything it does is a library call:
:func:`harness.evaluate.evaluate_reward` scores a reward on a suite, :class:`harness.core.store.RunStore`
keeps the runs, :mod:`harness.report` renders them.
"""

__version__ = "0.1.0"
