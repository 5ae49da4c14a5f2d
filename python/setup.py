# SPDX-License-Identifier: Apache-2.0
# Pure Python: `pip install ./python` (no compiled extension, no network:
# setuptools from the system does the build).
from setuptools import setup

setup(
    name="rankmap",
    version="0.1.0",
    description="Read rankmap maps; build and verify framework process groups",
    license="Apache-2.0",
    classifiers=["License :: OSI Approved :: Apache Software License"],
    packages=["rankmap"],
    python_requires=">=3.8",
    extras_require={"yaml": ["PyYAML"], "torch": ["torch"]},
)
