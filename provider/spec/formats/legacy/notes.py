"""The AI Platform format's own findings, collected while its body is read.

Each note cites a rule id of ``tools/catalog/reference/job_rules.json`` (or another catalog
source); the validator turns them into problems with the line they point at.
"""

from __future__ import annotations

from provider.spec.model import DocPath, Note

JOB_RULES = "tools/catalog/reference/job_rules.json"


class Notes(list[Note]):
    """Errors and warnings of the AI Platform rules, in the order they were found."""

    def error(self, message: str, path: DocPath, rule: str, allowed: str | None = None) -> None:
        self.append(Note(message, path, rule, source=JOB_RULES, allowed=allowed, error=True))

    def warn(self, message: str, path: DocPath, rule: str, source: str | None = None) -> None:
        self.append(Note(message, path, rule, source=source or JOB_RULES))
