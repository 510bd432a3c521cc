"""A local Vertex AI emulator: the REST surface the real client uses, with jobs that really run.

``trainjobs emulator`` serves it (provider.cli.emulator); ``provider.emulator.server.Emulator``
embeds it (tests, benchmarks). Modules: server (HTTP), routes (URLs), service (the job
methods), store (records in the state dir), wire (the exact JSON, through the SDK's types),
validate (the project's validator, answering like Google), filters and paging (list),
persistent and persistent_routes (the PersistentResource API), storage
(the Cloud Storage subset that staging needs), errors (Google's error format).
"""
