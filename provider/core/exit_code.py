"""The exit codes of every ``trainjobs`` command: one table, listed in README.md ("Exit codes").

It lives at the bottom layer because the errors that carry a code (provider.core.errors.UserError)
and the verdict of a check (provider.workspace) sit below the CLI. A script can tell a spec that
is wrong (1) from a job that failed (6) or was cancelled (7), and a mistyped command (2) from a job
or file that is not there (4) or a backend it cannot reach (5).
"""

from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    SUCCESS = 0  # done: the job succeeded, the spec is valid, the plan passes
    INVALID = 1  # the input is invalid: a spec's or stack file's problems, a policy violation, a refused request,
    # a job record that cannot be read
    USAGE = 2  # a bad command line: an unknown option or value, an unknown --replica or --stack
    INTERNAL = 3  # a bug in trainjobs (run again with TRAINJOBS_DEBUG=1 for the traceback)
    NOT_FOUND = 4  # a file, folder or job named that does not exist
    UNAVAILABLE = 5  # the backend cannot be reached or refuses us: the emulator down, no credentials, no quota
    JOB_FAILED = 6  # the job ended FAILED (run, logs --follow)
    JOB_CANCELLED = 7  # the job ended CANCELLED (run, logs --follow)
    INTERRUPTED = 130  # Ctrl-C (128 + SIGINT, as shells report it); a followed job keeps running

    @property
    def meaning(self) -> str:
        return _MEANING[self]


_MEANING = {
    ExitCode.SUCCESS: "success: the job succeeded, the specs are valid, the plan passes",
    ExitCode.INVALID: "invalid input: a spec or stack file has errors, a policy is violated, the backend refused "
                      "the request as invalid, a job's record cannot be read",
    ExitCode.USAGE: "usage error: an unknown command, option or value (an unknown --replica or --stack)",
    ExitCode.INTERNAL: "internal error: a bug in trainjobs",
    ExitCode.NOT_FOUND: "not found: a file, folder or job that does not exist",
    ExitCode.UNAVAILABLE: "backend unavailable: it cannot be reached, or refuses the caller (credentials, "
                          "permission, quota)",
    ExitCode.JOB_FAILED: "the job failed",
    ExitCode.JOB_CANCELLED: "the job was cancelled (or ran past its max running time or max wait)",
    ExitCode.INTERRUPTED: "interrupted (Ctrl-C); a followed job keeps running",
}

# A backend's error (its google.rpc code) as the exit code of the command that met it.
_OF_RPC = {
    "NOT_FOUND": ExitCode.NOT_FOUND,
    "INVALID_ARGUMENT": ExitCode.INVALID,
    "FAILED_PRECONDITION": ExitCode.INVALID,
    "ALREADY_EXISTS": ExitCode.INVALID,
    "OUT_OF_RANGE": ExitCode.INVALID,
    "DATA_LOSS": ExitCode.INVALID,  # a job's record that cannot be read: the message names the file and the fix
}


def of_rpc(code: str) -> ExitCode:
    """The exit code for a backend error with this google.rpc code name (any other: unavailable)."""
    return _OF_RPC.get(code, ExitCode.UNAVAILABLE)


def of_job_state(state: str) -> ExitCode:
    """The exit code of a command that followed a job to this end (a JobState value)."""
    return {"SUCCEEDED": ExitCode.SUCCESS, "CANCELLED": ExitCode.JOB_CANCELLED}.get(state, ExitCode.JOB_FAILED)
