"""``--worker-pool-spec=...,local-package-path=DIR,...`` -> a native spec that packages DIR.

With ``local-package-path`` in the first ``--worker-pool-spec``, gcloud builds a Docker image
(command_lib/ai/custom_jobs/custom_jobs_util.py ``UpdateWorkerPoolSpecsIfLocalPackageRequired``,
command_lib/ai/docker/build.py ``_MakeDockerfile``): FROM the ``executor-image-uri``, WORKDIR
``/usr/app``, ``pip install .`` of ``DIR/setup.py`` and ``-r DIR/requirements.txt`` when they exist,
``pip install`` of each ``extra-packages`` file and each ``requirements`` entry, a copy of the
folder that holds the script (``python-module=trainer.task`` is ``trainer/task.py``), and
``ENTRYPOINT ["python3", "-m", MODULE]`` (or ``python3 SCRIPT``). It pushes the image and every
non-empty pool runs it, with ``--args`` as the container's arguments.

trainjobs packages that same folder instead, as ``--package-path`` would
(``application.pythonPackage``: ``path`` DIR/trainer, ``module`` trainer.task, ``executorImage``
the executor image), so the job runs the same code on the same image, locally and on Vertex AI.
A script whose folder is not a Python package (``script=task.py`` at the top of DIR,
``script=src/train.py``, ``python-module=task``) makes that folder a flat package
(provider.packaging.files.is_flat): its top-level modules are installed as modules of their own,
so ``python -m task`` imports its siblings as ``python3 task.py`` does (``path`` DIR, ``module``
task). A flat folder's ``requirements.txt`` is installed with the package when trainjobs writes
its setup.py (the folder has no setup.py or pyproject.toml of its own), as its ``install_requires``;
the one above a package folder is not read (as gcloud's ``--package-path`` build never read it).
The ``requirements`` entries and ``extra-packages`` files (read relative to DIR, gcloud's build
context) become ``requirements`` and ``extraPackages`` of the package, which every backend
installs as package URIs (provider.packaging.extras). What cannot be kept says so in a note: an
``output-image-uri`` (no image is built), a ``requirements.txt`` beside a setup.py of the
package's own or above a package folder (a package installs what its ``setup.py`` declares),
``extra-dirs`` (only the package folder is packaged), and a script run as a module rather than a
file. What cannot be converted at all is an error: a shell script, a script at the top of a
folder that is a Python package (the repository itself included; a flat repository root, as in
``local-package-path=.`` run in a fresh folder, is packaged), and ``--command`` (it replaces the
entrypoint, so the script would not run).

DIR is read as gcloud reads it (``~`` expanded, relative to the current directory) and must be
a directory inside the repository that holds it (issue 9's boundary): nothing outside is read.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from provider.core.record import Record
from provider.gcloud import output_image, pool_checks
from provider.gcloud.command import GcloudError
from provider.spec.modules import module_file, runnable_module

LOCAL = "local-package-path"
_FLAG = "--worker-pool-spec"
_ROLES = ("chief", "workers", "parameterServers", "evaluators")
# The software keys that only the first pool may carry when it has a local package (gcloud's validation.py).
_SOFTWARE = ("executor-image-uri", "container-image-uri", "python-module", "script", "requirements",
             "extra-packages", "extra-dirs")
# CustomJobSpec fields of a --config that a native spec takes under the same name.
_SAME_NAME = ("network", "serviceAccount", "enableWebAccess", "enableDashboardAccess", "persistentResourceId",
              "reservedIpRanges", "tensorboard", "experiment", "experimentRun")


class Entry(Record):
    """What the image gcloud builds would run: the package folder to take and the module in it."""

    package_dir: Path  # absolute: DIR/<top folder>
    module: str
    image: str


def wants(pools: object) -> bool:
    """Whether these --worker-pool-spec values ask gcloud to build an image from a local package."""
    return isinstance(pools, list) and bool(pools) and isinstance(pools[0], dict) and LOCAL in pools[0]


def _fail(message: str) -> GcloudError:
    return GcloudError(f"Invalid value for [{_FLAG}]: {message}")


def _check_first(spec: dict[str, object]) -> None:
    """gcloud's own checks of the first pool (validation.py _ValidateWorkerPoolSoftwareWithLocalPackage)."""
    if "executor-image-uri" not in spec:
        raise _fail("Key [executor-image-uri] is required when `local-package-path` is specified.")
    if ("python-module" in spec) + ("script" in spec) != 1:
        raise _fail("Exactly one of keys [python-module, script] is required when `local-package-path` is "
                    "specified.")
    if "output-image-uri" in spec:
        wrong = output_image.problem(str(spec["output-image-uri"]))
        if wrong:
            raise _fail(wrong)
    if "container-image-uri" in spec:
        raise _fail("Key [container-image-uri] is not allowed with `local-package-path`: gcloud builds the image "
                    "from executor-image-uri")


def _check_rest(pools: list[Any]) -> None:
    for spec in pools[1:]:
        if not spec:
            continue
        if LOCAL in spec:
            raise _fail("Key [local-package-path] is only allowed in the first `--worker-pool-spec` flag.")
        extra = sorted(set(_SOFTWARE) & set(spec))
        if extra:
            raise _fail(f"Keys [{', '.join(extra)}] are not allowed: A local package has been specified in the first "
                        "`--worker-pool-spec` flag and to be used for all workers, do not specify these keys elsewhere.")


def _directory(text: str, cwd: Path) -> Path:
    from provider.document.boundary import inside, repository_root

    where = Path(os.path.abspath(cwd / os.path.expanduser(text)))
    real = Path(os.path.realpath(where))
    if not real.is_dir():
        raise _fail(f"Directory '{where}' is not found.")
    root = Path(os.path.realpath(repository_root(cwd)))
    if not inside(real, root):
        raise _fail(f"local-package-path {text} resolves to {real}, outside the repository {root}; allowed: a "
                    "directory inside the repository (trainjobs reads, packages and uploads only its files)")
    return real


def _module(spec: dict[str, object]) -> tuple[str, str]:
    """(module, the file it is, relative to DIR), for python-module or a Python script."""
    module = spec.get("python-module")
    if isinstance(module, str):
        return module, module.replace(".", "/") + ".py"
    script = str(spec.get("script"))
    parts = Path(script).parts
    if not script.endswith(".py") or not parts or ".." in parts or Path(script).is_absolute():
        raise _fail(f"script={script} cannot be packaged: gcloud's image runs it as a file; trainjobs runs a module "
                    "of a package: allowed: script=NAME.py or FOLDER/NAME.py (run as python -m NAME or "
                    "FOLDER.NAME) or python-module=..., or container-image-uri of an image built beforehand")
    return ".".join(parts)[:-3], script


def _is_package(folder: Path) -> bool:
    return (folder / "__init__.py").is_file()


def _flat(base: Path, spec: dict[str, object], file: str) -> Entry | None:
    """The flat folder to package when the script's folder is not a Python package, else None.

    ``python3 FOLDER/task.py`` (and ``python3 -m task`` at the top of DIR) imports the script's
    siblings as top-level modules: packaging that folder with its modules as py_modules keeps them.
    """
    where = Path(file).parent
    key = f"python-module={spec['python-module']}" if "python-module" in spec else f"script={spec['script']}"
    if ("python-module" in spec and where != Path(".")) or (where != Path(".") and _is_package(base / where)):
        top = base / Path(file).parts[0]
        if not _is_package(top):  # packaging would take it as a flat folder, and python -m FOLDER.NAME would fail
            raise _fail(f"{key}: {spec[LOCAL]}/{Path(file).parts[0]} has no __init__.py, so trainjobs would "
                        f"package it as a folder of top-level modules; allowed: add {Path(file).parts[0]}/"
                        "__init__.py, or script=FOLDER/NAME.py with the script's folder holding no __init__.py")
        return None  # python -m trainer.task runs a module of the package trainer
    folder = base / where
    if _is_package(folder):
        why = "is a module at the top of local-package-path" if "python-module" in spec else "cannot be packaged"
        raise _fail(f"{key} {why}, but {spec[LOCAL]} is a Python package (it has __init__.py), which trainjobs "
                    "packages as that package: allowed: local-package-path=its parent with the module in that "
                    "package (trainer.task for DIR/trainer/task.py), or a folder of top-level modules without "
                    "__init__.py")
    _runnable(key, Path(file).stem, Path(file).stem)
    return Entry(folder, Path(file).stem, str(spec["executor-image-uri"]))


def _runnable(key: str, module: str, stem: str) -> None:
    """gcloud's image runs any script=NAME.py as python3 NAME.py; trainjobs runs python -m MODULE,
    which finds each part by its file or folder name: a hyphen is fine (my-train.py), a dot in
    the file's name or a leading digit is not."""
    if not (module_file(stem) and runnable_module(module)):
        raise _fail(f"{key}: trainjobs runs it as python -m {module}, which python -m cannot find as a module "
                    "(gcloud's image runs the file itself); allowed: a script named as a module (letters, digits, _ "
                    "or -, beginning with a letter or _, such as train_model.py or my-train.py): rename it")


def _inside_repository(folder: Path, shown: object, cwd: Path) -> None:
    """The repository itself is packaged only as a flat folder (packaging.files.check_boundary):
    a root that is a Python package would take its setup.py from above the repository."""
    from provider.document.boundary import repository_root

    root = Path(os.path.realpath(repository_root(cwd)))
    if folder == root and _is_package(folder):
        raise _fail(f"local-package-path={shown} is the repository {root} itself, and a Python package (it has "
                    "__init__.py); trainjobs packages a package folder inside it: allowed: the folder that holds "
                    "the script and its modules, inside the repository (move them into one, e.g. trainer/)")


def entry(spec: dict[str, object], cwd: Path, notes: list[str]) -> Entry:
    """The package and module of the first pool; GcloudError for what gcloud or trainjobs refuses."""
    base = _directory(str(spec[LOCAL]), cwd)  # gcloud checks the directory first, then the keys
    _check_first(spec)
    module, file = _module(spec)
    if not (base / file).is_file():
        raise GcloudError(f"Invalid value for [{_FLAG}]: File '{file}' is not found under the package: "
                          f"'{spec[LOCAL]}'.")
    found = _flat(base, spec, file)
    if found is None:
        if "script" in spec:
            _runnable(f"script={spec['script']}", module, Path(file).stem)
        found = Entry(base / Path(file).parts[0], module, str(spec["executor-image-uri"]))
        if "script" in spec:
            notes.append(f"script={spec['script']} runs as python -m {module} (gcloud's image runs python3 "
                         f"{spec['script']}): imports of its sibling modules must be package imports")
    else:
        _inside_repository(found.package_dir, spec[LOCAL], cwd)
        how = f"python3 {spec['script']}" if "script" in spec else f"python3 -m {found.module}"
        where = Path(file).parent
        shown = str(spec[LOCAL]) if where == Path(".") else f"{spec[LOCAL]}/{where.as_posix()}"
        notes.append(f"{shown} is a folder of top-level modules: trainjobs "
                     f"packages its .py files as modules of their own and runs python -m {found.module} (gcloud's "
                     f"image runs {how} in a copy of the folder): its sibling imports work; __file__ is the "
                     "installed module, and the working directory is not the folder")
    _warn_lost(spec, base, found.package_dir, notes)
    return found


def _warn_lost(spec: dict[str, object], base: Path, package_dir: Path, notes: list[str]) -> None:
    """Notes on what gcloud's image installs: what the package carries, and what it cannot."""
    if "output-image-uri" in spec:
        notes.append(f"output-image-uri={spec['output-image-uri']} is not kept: trainjobs builds no image; the "
                     "package runs on the executor image itself")
    from provider.packaging.files import declares_its_build, is_flat, project_dir

    # packaging takes setup.py and requirements.txt from the folder (flat) or the one above it (a package)
    project, own = project_dir(package_dir), declares_its_build(package_dir)
    flat = is_flat(package_dir)  # only a flat folder's requirements.txt is taken (packaging/requirements.py)
    carried = flat and project == base and not own and (base / "requirements.txt").is_file()
    if carried:
        notes.append(f"{spec[LOCAL]}/requirements.txt is installed with the package: the setup.py trainjobs writes "
                     "(the folder has none of its own) takes its lines as install_requires")
    kept = [f"{key}={';'.join(map(str, v)) if isinstance(v, list) else v}"
            for key in ("requirements", "extra-packages") if (v := spec.get(key))]
    if kept:
        notes.append(f"{', '.join(kept)} installed with the package, as gcloud's image installs them: "
                     "application.pythonPackage.requirements and extraPackages, staged as package URIs beside it")
    if spec.get("extra-dirs"):
        dirs = spec["extra-dirs"]
        notes.append(f"extra-dirs={';'.join(map(str, dirs)) if isinstance(dirs, list) else dirs} not kept: gcloud's "
                     "image copies them; trainjobs packages only the package folder (keep data in Cloud Storage)")
    if not (base / "requirements.txt").is_file() or carried:
        return
    shown = _relative(project, base, str(spec[LOCAL]))
    where = (f"list them in install_requires of {shown}/setup.py" if (project / "setup.py").exists() or not
             (project / "pyproject.toml").exists() else f"list them in the dependencies of {shown}/pyproject.toml")
    notes.append(f"{spec[LOCAL]}/requirements.txt not kept: gcloud's image installs them; a package installs what "
                 f"the setup.py beside it declares: {where}")


def extra_files(spec: dict[str, object], cwd: Path) -> list[str]:
    """The ``extra-packages`` files, read as gcloud reads them: relative to local-package-path (its
    Docker build context; validation.py's "Package file ... is not found under the package"), and
    inside the repository. Absolute paths; the converter writes them relative to the spec."""
    from provider.document.boundary import inside, repository_root

    items = spec.get("extra-packages") or []
    base = _directory(str(spec[LOCAL]), cwd)
    root = Path(os.path.realpath(repository_root(cwd)))
    out = []
    for item in items if isinstance(items, list) else [items]:
        where = Path(os.path.normpath(base / os.path.expanduser(str(item))))
        if not where.is_file():
            raise _fail(f"Package file '{item}' is not found under the package: '{spec[LOCAL]}'.")
        if not inside(Path(os.path.realpath(where)), root):
            raise _fail(f"extra-packages {item} resolves to {os.path.realpath(where)}, outside the repository "
                        f"{root}; allowed: a file inside the repository (trainjobs reads and uploads only its files)")
        out.append(str(where))
    return out


def _relative(project: Path, base: Path, shown: str) -> str:
    if project == base:
        return shown
    try:
        return f"{shown}/{project.relative_to(base).as_posix()}"
    except ValueError:
        return str(project)


def _pools(pools: list[Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for role, raw in zip(_ROLES, pools, strict=False):
        if not raw:
            continue
        pool_checks.hardware(raw)  # gcloud's hardware checks (validation.py), for every pool
        pool: dict[str, Any] = {"machineType": raw["machine-type"]}
        if raw.get("replica-count", 1) != 1:
            pool["replicas"] = raw["replica-count"]
        if raw.get("accelerator-type"):
            pool["accelerator"] = {"type": raw["accelerator-type"],
                                   "count": raw.get("accelerator-count", 1)}
        out[role] = pool
    if len(pools) > len(_ROLES):
        raise _fail(f"at most {len(_ROLES)} worker pools; received {len(pools)}")
    return out


def _from_config(config: dict[str, Any] | None) -> dict[str, Any]:
    if not config:
        return {}
    out = {key: config[key] for key in _SAME_NAME if key in config}
    base = config.get("baseOutputDirectory")
    if isinstance(base, dict) and isinstance(base.get("outputUriPrefix"), str):
        out["baseOutputDirectory"] = base["outputUriPrefix"]
    scheduling = config.get("scheduling")
    if isinstance(scheduling, dict):  # Vertex AI's timeout is the native maxRunningTime; the rest keep their names
        out["scheduling"] = {("maxRunningTime" if k == "timeout" else k): v for k, v in scheduling.items()}
    taken = {*_SAME_NAME, "baseOutputDirectory", "scheduling"}
    left = sorted(set(config) - taken - {"workerPoolSpecs", "displayName"})
    if left:
        raise GcloudError(f"--config: {', '.join(left)} cannot be kept beside local-package-path (a native spec has "
                          f"no such field); allowed in the config: {', '.join(sorted(taken))}")
    return out


def document(values: dict[str, Any], config: dict[str, Any] | None, cwd: Path, notes: list[str]) -> dict[str, Any]:
    """The native spec body for a custom-jobs command whose first pool has a local package.

    ``values`` are the command's other flags, as build.py left them (camelCase, no config).
    """
    pools = values.pop("workerPoolSpecs")
    # gcloud's order (validation.py _ValidateSoftwareInWorkerPoolSpecArgs): the first pool's folder and keys, then
    # the other pools; --command, which gcloud takes, is refused after what gcloud refuses
    _directory(str(pools[0][LOCAL]), cwd)
    _check_first(pools[0])
    _check_rest(pools)
    if values.pop("command", None):
        raise GcloudError("--command replaces the entrypoint of the image gcloud builds from local-package-path, so "
                          "the script would not run; allowed: --args, or container-image-uri with --command")
    found = entry(pools[0], cwd, notes)
    if values.pop("pythonPackageUris", None):
        notes.append("--python-package-uris is not kept: gcloud's help disallows it with local-package-path, and "
                     "gcloud sends the image it builds without them")
    spec: dict[str, Any] = {**_from_config(config)}
    spec["workerPools"] = _pools(pools)
    package: dict[str, Any] = {"path": str(found.package_dir), "module": found.module, "executorImage": found.image}
    if pools[0].get("requirements"):
        package["requirements"] = list(pools[0]["requirements"])
    if pools[0].get("extra-packages"):
        package["extraPackages"] = extra_files(pools[0], cwd)
    spec["application"] = {"pythonPackage": package}
    args = values.pop("args", None)
    if args:
        spec["args"] = args
    spec.update(values)
    if not any(k in spec for k in ("baseOutputDirectory", "stagingBucket")):
        notes.append("gcloud pushes the image it builds and needs no bucket; trainjobs uploads the package instead: "
                     "to the spec's stagingBucket (convert --gcloud ... --staging-bucket gs://BUCKET writes it) or, "
                     "when a stack runs the spec, to the stack's team bucket (convert --gcloud ... --stack NAME)")
    return spec
