from googleapiclient import discovery


class APIwrapper:
    pass


job_name = "census_test"
training_inputs = {
    "scaleTier": "CUSTOM",
    "masterType": "complex_model_m",
    "workerType": "complex_model_m",
    "parameterServerType": "large_model",
    "workerCount": 9,
    "parameterServerCount": 3,
    "packageUris": ["gs://relna-mlengine/trainer-0.1.tar.gz"],
    "pythonModule": "trainer.task",
    "args": ["--train-files", "gs://relna/data/adult.data.csv", "--eval-files", "gs://relna/data/adult.test.csv"],
    "region": "europe-west1",
    "jobDir": "gs://relna-mlengine/" + str(job_name),
    "runtimeVersion": "2.11",
    "pythonVersion": "3.7",
}
job_spec = {"jobId": job_name, "trainingInput": training_inputs}

project_name = "relna"
project_id = "projects/{}".format(project_name)
cloudml = discovery.build("ml", "v1")
request = cloudml.projects().jobs().create(body=job_spec, parent=project_id)
response = request.execute()
