"""A package whose build, once it is installed from its sdist (which holds PKG-INFO), takes an hour:
it writes its pid to $SLOWBUILD_PIDFILE and sleeps, so that a test can cancel a job while its
environment is being built. Built from the source tree (staging), it builds at once."""

import os
import time

from setuptools import find_packages, setup

if os.path.exists(os.path.join(os.path.dirname(os.path.abspath(__file__)), "PKG-INFO")):
    pidfile = os.environ.get("SLOWBUILD_PIDFILE")
    if pidfile:
        with open(pidfile, "a") as f:
            f.write(f"{os.getpid()}\n")
    time.sleep(3600)

setup(name="trainjobs-test-slowbuild", version="0.1.0", packages=find_packages())
