import googleapiclient.discovery

settings_project = "projects/my-ml-project"
job_id = "trainer_20261127"
gsfilepath = "gs://my-ml-bucket/%s.tar.gz" % job_id
ml = googleapiclient.discovery.build("ml", "v1")
job_req = ml.projects().jobs().create(
    parent=settings_project,
    body={"jobId": job_id,
          "trainingInput": {"scaleTier": "BASIC",
                            # 'masterType': 'standard_gpu',
                            "packageUris": [gsfilepath],
                            "pythonModule": "trainer.task",
                            "region": "us-central1",
                            "runtimeVersion": "2.11",
                            "pythonVersion": "3.7",
                            }
          },
)
response = job_req.execute()
print(response)
