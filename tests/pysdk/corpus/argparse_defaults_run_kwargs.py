# source: find_string id 62267808557, a public launcher (RockArtDetection) whose main() reads its settings with
#   argparse and calls create_and_run_vertex_pipeline(...): CustomContainerTrainingJob(display_name, container_uri),
#   run(**run_kwargs) with args, machine_type, replica_count, sync=False, and service_account added under
#   `if service_account:`.
# adapted: the options the original requires (--project_id, --gcs_bucket, --container_image) given defaults, so the
#   script runs with no arguments; init given the staging bucket from --gcs_bucket; the prints shortened.
import argparse

from google.cloud import aiplatform


def create_and_run_vertex_pipeline(
    project_id: str,
    region: str,
    gcs_bucket: str,
    container_image_uri: str,
    model_name: str = "retinanet",
    filter_type: str = "bilateral",
    feature_model: str = "resnet50",
    cluster_algo: str = "kmeans",
    service_account: str | None = None,
):
    aiplatform.init(project=project_id, location=region, staging_bucket=f"gs://{gcs_bucket}")

    pipeline_run_id = f"rockart-pipeline-{model_name}-{filter_type}"
    prep_job_name = f"{pipeline_run_id}-prep"
    prep_args = [
        "python", "-m", "src.cli", "pipeline",
        "--filter", filter_type,
        "--model", model_name,
        "--feature-model", feature_model,
        "--cluster-algo", cluster_algo,
    ]

    job = aiplatform.CustomContainerTrainingJob(
        display_name=prep_job_name,
        container_uri=container_image_uri,
    )

    run_kwargs = {
        "args": prep_args,
        "machine_type": "n1-standard-4",
        "replica_count": 1,
        "sync": False,
    }
    if service_account:
        run_kwargs["service_account"] = service_account

    job.run(**run_kwargs)
    print(f"[+] Vertex AI Pipeline Job submitted successfully: {prep_job_name}")


def main():
    parser = argparse.ArgumentParser(description="Launch End-to-End Vertex AI Pipeline for RockArtDetection.")
    parser.add_argument("--project_id", default="rockart-project", help="GCP Project ID")
    parser.add_argument("--region", default="us-central1", help="GCP Region")
    parser.add_argument("--gcs_bucket", default="rockart-bucket", help="GCS Bucket name")
    parser.add_argument("--container_image", default="us-central1-docker.pkg.dev/rockart-project/rockart/pipeline:latest")
    parser.add_argument("--model", default="retinanet", help="Detection model architecture")
    parser.add_argument("--filter", default="bilateral", help="Dataset filter")
    parser.add_argument("--feature-model", default="resnet50", help="Clustering feature extractor")
    parser.add_argument("--cluster-algo", default="kmeans", help="Clustering algorithm")
    parser.add_argument("--service_account", default="trainer@rockart-project.iam.gserviceaccount.com")

    args = parser.parse_args()

    create_and_run_vertex_pipeline(
        project_id=args.project_id,
        region=args.region,
        gcs_bucket=args.gcs_bucket,
        container_image_uri=args.container_image,
        model_name=args.model,
        filter_type=args.filter,
        feature_model=args.feature_model,
        cluster_algo=args.cluster_algo,
        service_account=args.service_account,
    )


if __name__ == "__main__":
    main()
