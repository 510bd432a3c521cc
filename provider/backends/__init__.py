"""Backends: where jobs run. Each is imported only when used (the Vertex one loads the SDK).

    from provider.backends.settings import BackendSettings, open_backend, open_local

    backend, stager = open_local()                                  # this machine (the embedded default)
    backend, stager = open_backend(BackendSettings.of_stack(stack))  # a stack's backend and stager

The seam (the Backend protocol, JobState, JobStatus) is provider.backends.base.
"""
