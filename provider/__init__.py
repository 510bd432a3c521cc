"""trainjobs: ML training jobs as code, for Vertex AI, a local backend and Pulumi.

The package is small on purpose at import time: the validate path needs only PyYAML and
jsonschema-rs; the Vertex AI SDK and Pulumi are imported inside the modules that use them.
"""

__version__ = "0.1.0"

import warnings

# google-api-core warns, on import, that Python 3.11 support ends in 2027: noise in every
# command and in `pulumi up` output, not something a user of trainjobs can act on.
warnings.filterwarnings("ignore", category=FutureWarning, module=r"google\.api_core\._python_version_support")
