"""The local backend: any spec runs on this machine the way Vertex AI would run it.

Kept empty on purpose: the detached supervisor imports its submodules and nothing else, so
it stays small in memory. The backend class lives in provider.backends.local.backend.
"""
