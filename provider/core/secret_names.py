"""Which names of environment variables say their value is a secret: one rule for every reader and check (the
readers of scripts and notebooks keep such a value out of the spec: provider.gcloud.secrets; a spec that holds one
is warned about: provider.validation.rules.inputs).

The name is cut into words at ``_`` (``GITHUB_API_TOKEN`` -> GITHUB, API, TOKEN); it looks secret when one word is,
or ends with, one of SECRET_WORDS (``APIKEY``, ``DB_PASSWD``, ``OAUTH``), in any case. ``PWD`` and ``OLDPWD`` alone
are bash's folders, not passwords.
"""

from __future__ import annotations

SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "PASS", "PWD", "CREDENTIAL",
                "CREDENTIALS", "CREDS", "PRIVATE", "AUTH", "COOKIE", "SIGNATURE", "SALT", "DSN", "PAT", "BEARER",
                "JWT", "WEBHOOK")
_NOT_SECRET = ("PWD", "OLDPWD")  # bash's current and previous folders


def looks_secret(name: str) -> bool:
    """Whether a variable's name says its value is a secret (the module docstring's rule)."""
    upper = name.upper()
    if upper in _NOT_SECRET:
        return False
    words = [w.removesuffix("S") if len(w) > 3 and w not in SECRET_WORDS else w for w in upper.split("_") if w]
    return any(w.endswith(secret) for w in words for secret in SECRET_WORDS)
