"""Compatibility import: the reader moved to ``provider/spec/formats/vertex/proto_forms.py``.

Kept only because ``provider/validation/validator.py`` (another owner's module) still imports
``provider.spec.proto_forms``; delete this file once that import names the new home.
"""

from provider.spec.formats.vertex.proto_forms import Forms as Forms
from provider.spec.formats.vertex.proto_forms import Style as Style
from provider.spec.formats.vertex.proto_forms import read as read
