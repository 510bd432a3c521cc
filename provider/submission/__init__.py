"""Submission: a checked spec -> its staged package -> the exact Vertex AI request -> a backend.

launch.py (the steps), request.py (model -> request), diffing.py (what a change does to a job),
emit.py (model -> a native spec, for trainjobs convert).
"""
