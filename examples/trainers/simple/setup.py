from setuptools import find_packages, setup

setup(
    name="trainjobs-example-simple",
    version="0.1.0",
    description="A small single-process trainer for trainjobs examples (no dependencies)",
    packages=find_packages(),
)
