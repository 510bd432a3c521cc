"""delete_outdated_tensorboard_experiments: TensorBoard experiments cleaned up by label, create and update time.

Source: GoogleCloudPlatform/vertex-ai-samples@cc0d791ef25a4f8a9bbd9b6c9ef4928b8b96c35a
notebooks/official/experiments/delete_outdated_tensorboard_experiments.ipynb (cells 16-34). The
notebook's cleanup functions are its own; the experiments they clean up are made first.
"""

from __future__ import annotations

from typing import Any

from tests.vertex.notebooks.conftest import LOCATION, PROJECT_ID

DETAILED_LOG = True


def test_clean_up_by_label_create_time_and_update_time(aiplatform: Any) -> None:
    aiplatform.init(project=PROJECT_ID, location=LOCATION)

    def clean_up_by_label(tensorboard_instance: Any, label_key: str, label_value: str) -> None:
        tensorboard_experiments = aiplatform.TensorboardExperiment.list(
            tensorboard_name=tensorboard_instance.resource_name
        )
        num_tensorboard_experiments = len(tensorboard_experiments)
        for i in range(num_tensorboard_experiments):
            tensorboard_experiment = tensorboard_experiments[i]
            labels = tensorboard_experiment.labels
            if label_key in labels and labels[label_key] == label_value:
                tensorboard_experiment.delete()

    def clean_up_by_create_time(tensorboard_instance: Any, create_time_cut: str) -> None:
        tensorboard_experiments = aiplatform.TensorboardExperiment.list(
            tensorboard_name=tensorboard_instance.resource_name, order_by="create_time"
        )
        num_tensorboard_experiments = len(tensorboard_experiments)
        for i in range(num_tensorboard_experiments):
            tensorboard_experiment = tensorboard_experiments[i]
            if str(tensorboard_experiment.create_time) < create_time_cut:
                tensorboard_experiment.delete()
            else:
                break

    def clean_up_by_update_time(tensorboard_instance: Any, update_time_cut: str) -> None:
        tensorboard_experiments = aiplatform.TensorboardExperiment.list(
            tensorboard_name=tensorboard_instance.resource_name, order_by="update_time"
        )
        num_tensorboard_experiments = len(tensorboard_experiments)
        for i in range(num_tensorboard_experiments):
            tensorboard_experiment = tensorboard_experiments[i]
            if str(tensorboard_experiment.update_time) < update_time_cut:
                tensorboard_experiment.delete()
            else:
                break

    # What there is to clean up: an instance with experiments, two of them labelled stale.
    tb = aiplatform.Tensorboard.create(display_name="to-clean", project=PROJECT_ID, location=LOCATION)
    made = [aiplatform.TensorboardExperiment.create(
        tensorboard_experiment_id=f"exp-{i}", tensorboard_name=tb.resource_name,
        labels={"stage": "stale" if i < 2 else "live"}) for i in range(6)]

    tensorboard_instances = aiplatform.Tensorboard.list(
        project=PROJECT_ID, location=LOCATION
    )
    assert tb.resource_name in [t.resource_name for t in tensorboard_instances]
    TENSORBOARD_INSTANCE_ID = tb.name
    TENSORBOARD_INSTANCE = aiplatform.Tensorboard(
        project=PROJECT_ID, location=LOCATION, tensorboard_name=TENSORBOARD_INSTANCE_ID
    )

    def names() -> list[str]:
        return sorted(e.name for e in aiplatform.TensorboardExperiment.list(tensorboard_name=tb.resource_name))

    clean_up_by_label(TENSORBOARD_INSTANCE, "stage", "stale")
    assert names() == ["exp-2", "exp-3", "exp-4", "exp-5"]
    CREATE_TIME_CUT = str(made[4].create_time)  # exp-2 and exp-3 were made before it
    clean_up_by_create_time(TENSORBOARD_INSTANCE, CREATE_TIME_CUT)
    assert names() == ["exp-4", "exp-5"]
    # Never updated since: exp-4's update time is older than exp-5's, so the cut at exp-5's removes exp-4 only.
    UPDATE_TIME_CUT = str(aiplatform.TensorboardExperiment(made[5].resource_name).update_time)
    clean_up_by_update_time(TENSORBOARD_INSTANCE, UPDATE_TIME_CUT)
    assert names() == ["exp-5"]
