"""The trainjobs policy pack (pulumi preview --policy-pack policy). The policies are in trainjobs_policy.py."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pulumi_policy import EnforcementLevel, PolicyPack
from trainjobs_policy import POLICIES

PolicyPack(name="trainjobs", enforcement_level=EnforcementLevel.MANDATORY, policies=POLICIES)
