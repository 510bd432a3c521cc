"""GitOps: what a change to specs/ and stacks/ does to each stack, read from git without the cloud.

``trainjobs plan`` compares the specs of a base commit with the working tree and decides, job by
job, what ``pulumi up`` would do (provider.submission.diffing); ``trainjobs affected-stacks`` names the
stacks a change touches; ``trainjobs codeowners`` writes CODEOWNERS from the stacks' owners.
Nothing here imports Pulumi or the Vertex AI SDK.
"""
