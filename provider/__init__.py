"""trainjobs: ML training jobs as code, for Vertex AI, a local backend and Pulumi.

The package is small on purpose at import time: the validate path needs only PyYAML and
jsonschema-rs; the Vertex AI SDK and Pulumi are imported inside the modules that use them.
"""

__version__ = "0.1.0"
