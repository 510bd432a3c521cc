"""Python that launches Vertex AI training through the SDK (google-cloud-aiplatform), read statically.

``trainjobs convert train.py`` reads the script's top-level statements with the document layer's
static evaluator (provider/document/python_values.py: nothing is executed), finds the SDK's calls
(signatures.py: their names and parameters, as the installed SDK declares them), binds each call's
arguments (arguments.py: an Unknown value is refused by name and position), and maps them to a spec
body as the SDK maps them to its request: ``aiplatform.init`` and ``CustomJob(...).run(...)``
(custom_job.py), ``HyperparameterTuningJob`` (tuning.py); what a spec cannot carry is refused or
noted by name (training_jobs.py: the TrainingPipeline classes and ``CustomJob.from_local_script``).
program.py walks the script and finds the one job it launches.
"""
