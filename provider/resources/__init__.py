"""Pulumi dynamic resources: training jobs, and the local equivalents of a team's cloud resources.

Importing this package imports pulumi: only the Pulumi program and the provider host do.
"""
