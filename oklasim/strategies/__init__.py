"""The strategies: the registry that finds strategy families and resolves names such as ``greedy``,
``threshold:gin_only`` or ``random(knock_probability=0.2)`` (``registry``), the shipped families (``families``)."""
