"""``trainjobs console``: a local web UI over the jobs trainjobs can see (optional extra ``trainjobs[console]``).

Layers, each its own module: ``sources`` (a stack -> its backend; the CLI can share it),
``views`` (JobStatus -> what a page shows), ``usage`` (a stack's GPUs, GPU-hours and cost, from
provider.gitops), ``charts`` (SVG drawn on the server), ``app`` (the Starlette routes). Nothing
here is imported by the validate path.
"""
