"""Backends: where jobs run, one package each, registered as types in provider.core.backend_registry.

    from provider.backends.settings import open_backend, open_local, settings_of_stack

    backend, stager = open_local()                              # this machine (the embedded default)
    backend, stager = open_backend(settings_of_stack(stack))     # a stack's backend and stager

Each is imported only when used (the Vertex one loads the SDK). The seam (the Backend protocol,
JobState, JobStatus) is provider.backends.base; what a backend type can do is its declaration's
``capabilities`` (README, "Adding a backend").
"""
