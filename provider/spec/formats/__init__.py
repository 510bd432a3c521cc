"""The input formats, one package each: ``native/``, ``legacy/`` (AI Platform ``trainingInput``
with gcloud's flags beside it) and ``vertex/`` (Vertex AI ``workerPoolSpecs``, camelCase or
the SDK's snake_case).

Each package holds its format's detection (the ``spec`` keys that mark it), its JSON Schema
fragment (``schema.py``) and its conversion into the model (``convert.py``), and exposes them
as one ``Format`` value (``base.py``). ``registry.py`` lists the formats in one table, which
``spec/parse.py`` (detection and conversion) and ``provider/spec/schema.py`` (the document schema)
read. ``schema_kit.py`` and ``schema_accelerators.py`` are the schema building blocks the
formats share.
"""
