from setuptools import find_packages, setup

setup(name="trainjobs-test-family", version="0.1.0", packages=find_packages())
