"""The data root's public data: which sets exist, where each file comes from, and how the derived files are
built (:mod:`harness.datasets.fetch`, ``harness data fetch``)."""
