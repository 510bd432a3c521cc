"""Stacks: one Pulumi stack per team and environment, configured in stacks/Pulumi.<stack>.yaml."""
