"""The full index of a ledger: composition above ``ledger``, ``audit`` and ``perfmodel``.

``build.py`` builds it (the ledger's tables and views, the physics model's ``t_efficiency``, the audit's
``t_findings`` and the views over them in ``views/*.sql``); ``cache.py`` keeps it up to date on disk,
incrementally; ``viewdocs.py`` documents every view. Submodules are imported where used, so that a command
that only reads the cached index does not load the audit or the physics model.
"""
