"""Compatibility import: the Vertex AI format lives in ``provider/spec/formats/vertex/``.

Kept only because ``provider/emulator/validate.py`` (another owner's module) still imports
``snake`` from ``provider.spec.vertex``; delete this file once that import names
``provider.spec.formats.vertex.keys``.
"""

from provider.spec.formats.vertex.keys import snake as snake
