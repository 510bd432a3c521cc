"""Python that launches Vertex AI training through the SDK (google-cloud-aiplatform), read statically.

``trainjobs convert train.py`` reads the script's statements in the order they run (provider/document/python_flow.py:
an ``if`` whose test is known, ``if __name__ == "__main__":`` too, a ``try``'s body, a function called at top level)
with the document layer's static evaluator (provider/document/python_values.py: nothing is executed), finds the SDK's calls (signatures.py: their
names and parameters, as the installed SDK declares them), binds each call's arguments (binding.py, into
arguments.py's ``Call``: an Unknown value is refused by name and place), and maps them to a spec body as
the SDK maps them to its request: ``aiplatform.init`` and ``CustomJob(...).run(...)`` (custom_job.py),
``HyperparameterTuningJob`` (tuning.py), ``CustomContainerTrainingJob`` / ``CustomPythonPackageTrainingJob``
(pipelines.py), ``CustomJob.from_local_script`` (local_script.py), ``CustomTrainingJob`` (script_training.py:
pipelines.py's job, its script packaged as from_local_script's). program.py walks the script (or a notebook's
code cells) and finds the one job it launches. shell_runs.py reads Python that runs a command instead
(``subprocess.run([...])``, ``os.system``): the line each call gives the shell, for ``convert`` to read a gcloud
training command from.
"""
