"""The core types every layer uses: errors, problems, labels and the Vertex AI request type.

Nothing here imports another part of provider/.
"""
