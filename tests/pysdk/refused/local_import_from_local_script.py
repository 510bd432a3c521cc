# source: find_string id 23134034904, a public LLM-weights loader (load the state dict on a Vertex AI VM): its
#   run_vertex_job() imports aiplatform inside itself and builds aiplatform.CustomJob.from_local_script(...), the
#   function picked by an argparse subcommand (set_defaults(run=...)), so it is never called where it can be read.
# adapted: shortened to the launcher's calls and the subcommand dispatch; docstrings and the local branch left out.
#   Before: "the script builds no Vertex AI training job" (the job built through the function's own import of
#   aiplatform, under CustomJob.from_local_script, was not seen): the wrong cause.
# expect: the script launches no Vertex AI training job where it can be read
# expect: CustomJob at local_import_from_local_script.py:20:11 (inside def run_vertex_job at line 16
import argparse


def run_local(model_name: str, state_dict_path: str) -> None:
    print(model_name, state_dict_path)


def run_vertex_job(model_name: str, state_dict_path: str, job_name: str, project: str, bucket: str,
                   location: str = "us-central1", machine_type: str = "e2-highmem-2", disk_size_gb: int = 100) -> None:
    from google.cloud import aiplatform
    aiplatform.init(project=project, staging_bucket=bucket, location=location)
    job = aiplatform.CustomJob.from_local_script(
        display_name=job_name, container_uri="us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.1-13:latest",
        script_path="local_import_from_local_script.py",
        args=["local", f"--model-name={model_name}", f"--state-dict-path={state_dict_path}"],
        machine_type=machine_type, boot_disk_size_gb=disk_size_gb, requirements=["transformers"])
    job.run()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    subparsers = parser.add_subparsers(required=True)
    parser_vertex = subparsers.add_parser("vertex")
    parser_vertex.add_argument("--job-name", required=True)
    parser_vertex.set_defaults(run=run_vertex_job)
    args = parser.parse_args()
    kwargs = args.__dict__.copy()
    kwargs.pop("run")
    args.run(**kwargs)
