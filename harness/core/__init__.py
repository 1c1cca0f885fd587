"""The foundation: what every other package stands on, and which knows no reward, suite or trainer.

The registry type, spec binding, optional imports, the generation backends, the run store, the item and score
types, answer-span helpers, package versions and child-server helpers. Nothing here imports ``rewards``,
``suites``, ``trainers`` or the rest of ``harness`` (``tests/core/test_floors.py`` checks it).
"""
