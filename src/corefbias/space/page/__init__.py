"""The Space's page, one module per tab, each building its widgets and wiring its own events.

``shared`` (errors, the quick-read event options, ``StoredRuns``: the store's runs as widget updates),
``results`` (a finished job's status, scores table, charts and downloads, shown by Run and Score a file),
``run_tab``, ``score_tab``, ``explore_tab``, ``compare_tab`` and ``learn_tab``. ``corefbias.space.ui``
puts the tabs on one page and wires the events that cross tabs.
"""
