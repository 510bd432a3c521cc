"""What an AI Platform job runs: the master's custom container, or a Python package.

``masterConfig.imageUri`` makes a container job (``containerCommand`` / ``containerArgs``
beside it); otherwise the job runs ``pythonModule`` from ``packageUris`` (or gcloud's
``packages`` / ``packagePath`` beside trainingInput) on the prebuilt container of
``runtimeVersion`` and ``pythonVersion``. Each broken rule is a note citing job_rules.json.
"""

from __future__ import annotations

from provider.spec.formats.legacy.flags import effective
from provider.spec.formats.legacy.notes import Notes
from provider.spec.formats.legacy.pools import replica
from provider.spec.model import Application, Container, PythonPackage, Role
from provider.spec.reader import Node


def _container(master: Node, image: str, runtime: object, spec: Node, ti: Node, notes: Notes) -> Container:
    if runtime is not None:
        notes.error(
            "runtimeVersion and masterConfig.imageUri are both set",
            effective(spec, ti, "runtimeVersion")[1],
            "aip.runtime_or_image",
            allowed="either runtimeVersion (with pythonVersion) for a Python package, or masterConfig.imageUri",
        )
    _package_fields_beside_image(spec, ti, notes)
    return Container(
        image_uri=image,
        command=master.strs("containerCommand") or (),
        args=master.strs("containerArgs") or (),
        at={"": master.path, "image_uri": master.at("imageUri")},
    )


_PACKAGE_FIELDS = (("pythonVersion", "pythonVersion", "the Python version is the image's"),
                   ("pythonModule", "moduleName", "the image's ENTRYPOINT (or containerCommand) runs, not a module"),
                   ("packageUris", "packages", "the code is the image's, no package is installed"))


def _package_fields_beside_image(spec: Node, ti: Node, notes: Notes) -> None:
    """A package's fields beside masterConfig.imageUri (a TFX custom config writes pythonVersion there): the
    container job has no use for them, and Vertex AI's containerSpec no field for them: each is named, not
    dropped in silence (AI Platform needs packageUris only without a custom container, aip.packageUris)."""
    for field, flag, why in _PACKAGE_FIELDS:
        value, path = effective(spec, ti, flag) if flag in spec else (ti.raw(field), ti.at(field))
        if value is not None:
            notes.warn(f"trainingInput.{field} is not sent to Vertex AI: the job runs the custom container "
                       f"masterConfig.imageUri, so {why}", path, "aip.runtime_or_image")
    if "packagePath" in spec:  # --package-path: gcloud builds and uploads it (packageUris) even beside an image
        notes.warn(f"packagePath {spec.raw('packagePath')!r} (--package-path) is not built nor sent to Vertex AI: the job "
                   "runs the custom container masterConfig.imageUri, whose own code runs; to run the package, give "
                   "the job a Vertex AI prebuilt training image as executorImageUri (--runtime-version) instead of "
                   "the image", spec.at("packagePath"), "aip.runtime_or_image")


def _stray_container_fields(master: Node | None, notes: Notes) -> None:
    """containerCommand / containerArgs without a custom container image."""
    for key in ("containerCommand", "containerArgs"):
        if master is not None and key in master:
            notes.error(
                f"masterConfig.{key} is set but there is no custom container image",
                master.at(key),
                "aip.container_command_args",
                allowed="containerCommand/containerArgs only with masterConfig.imageUri",
            )


def _package(spec: Node, ti: Node, notes: Notes) -> PythonPackage:
    runtime, runtime_path = effective(spec, ti, "runtimeVersion")
    python, python_path = effective(spec, ti, "pythonVersion")
    module, module_path = effective(spec, ti, "moduleName")
    # gcloud's --packages replaces trainingInput.packageUris, like every other flag; its local files
    # are uploaded with the job (gcloud stages them beside the built package), as extraPackages are.
    written = (spec.strs("packages") if "packages" in spec else ti.strs("packageUris")) or ()
    local = tuple(u for u in written if not u.startswith("gs://")) if "packages" in spec else ()
    uris = tuple(u for u in written if u not in local)
    uris_path = spec.at("packages") if "packages" in spec else ti.at("packageUris")
    source_path = spec.text("packagePath")
    if not isinstance(module, str) or not module:
        notes.error(
            "no Python module to run: set trainingInput.pythonModule or moduleName",
            module_path,
            "aip.pythonModule",
            allowed="a module name such as trainer.task, or masterConfig.imageUri for a custom container",
        )
        module = ""
    if not written and source_path is None:
        notes.error(
            "no training package: set trainingInput.packageUris, packages or packagePath",
            uris_path,
            "aip.gcloud.packages_needed",
            allowed="gs:// package URIs, or packagePath (a local directory packaged like gcloud --package-path)",
        )
    return PythonPackage(
        module=str(module),
        source_path=source_path,
        package_uris=uris,
        extra_packages=local,
        runtime_version=runtime if isinstance(runtime, str) else None,
        python_version=python if isinstance(python, str) else None,
        at={
            "": ti.path,
            "module": module_path,
            "source_path": spec.at("packagePath"),
            "package_uris": uris_path,
            "extra_packages": uris_path,
            "runtime_version": runtime_path,
            "python_version": python_path,
        },
    )


def _args_or_container_args(spec: Node, ti: Node, notes: Notes) -> None:
    """AI Platform refuses trainingInput.args (gcloud's ``-- ARGS``) beside any replica's containerCommand or
    containerArgs (job_rules.json aip.container_command_args: each is mutually exclusive with it)."""
    if not effective(spec, ti, "args")[0]:
        return
    for role in Role:
        cfg = replica(ti, role)
        for key in ("containerCommand", "containerArgs"):
            if cfg is not None and key in cfg:
                notes.error(
                    f"{role.legacy_prefix}Config.{key} and trainingInput.args are both set: AI Platform refuses "
                    "them together (each is mutually exclusive with trainingInput.args)",
                    cfg.at(key),
                    "aip.container_command_args",
                    allowed=f"the arguments in {role.legacy_prefix}Config.containerArgs (with containerCommand), "
                    "or in trainingInput.args (gcloud: after --) with no containerCommand/containerArgs",
                )


def application(spec: Node, ti: Node, notes: Notes) -> Application:
    """The job's application; ``ti`` is trainingInput with gcloud's flags laid over it."""
    _args_or_container_args(spec, ti, notes)
    master = replica(ti, Role.CHIEF)
    image = master.text("imageUri") if master else None
    if master is not None and image is not None:
        return _container(master, image, effective(spec, ti, "runtimeVersion")[0], spec, ti, notes)
    _stray_container_fields(master, notes)
    return _package(spec, ti, notes)
