from setuptools import find_packages, setup

setup(
    name="trainjobs-example-ddp",
    version="0.1.0",
    description="Data-parallel training with PyTorch DistributedDataParallel across the replicas of a job",
    packages=find_packages(),
    # Exactly the CPU build that is available on the development machines; a looser range
    # would pull the newest release with several GB of CUDA packages.
    install_requires=["torch==2.13.0"],
)
