"""The Vertex AI backend: jobs on Google Cloud through google-cloud-aiplatform's v1 JobServiceClient.

The SDK is imported only inside this package (and only when a method needs it), so the local
backend and ``trainjobs validate`` never load it. The state table, the error mapping and the
backoff policy are plain data and functions, shared with the emulator where it needs them.
"""

from provider.backends.vertex.backend import VertexBackend

__all__ = ["VertexBackend"]
