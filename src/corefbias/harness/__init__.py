"""Running models on benchmarks: the benchmark table, clusters → per-candidate decisions, the prediction
cache, the runner, and the run's outputs (results.json, report.md, summary.csv, instances, plots).

May import ``corefbias.measures``, ``corefbias.data`` and ``corefbias.models``; never ``hub``, ``space``
or ``cli``.
"""
