"""TensorBoard time series data: writeTensorboardRunData, writeTensorboardExperimentData,
readTensorboardTimeSeriesData and batchRead, as Vertex AI's v1 REST reference has them.

Points are appended, one JSON line each, to ``<state>/tensorboard_data/<digest of the time
series name>.jsonl``; a write first checks every time series it names exists in that run and
has that value type, so a refused write stores nothing. Each write raises the time series'
``metadata.maxStep`` and ``maxWallTime`` (TensorboardTimeSeries.Metadata). A read answers at
most ``maxDataPoints`` points (absent or 0: 1000, Vertex AI's default; -1 none left out),
evenly spread over the steps, the last one always kept; ``filter`` is not emulated and is
refused by name.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any

from provider.backends.local.store import FILE_MODE, now, private_dir
from provider.emulator import wire
from provider.emulator.errors import invalid, not_found
from provider.emulator.nested import KINDS, NestedService, violation
from provider.emulator.resource_store import ResourceStore

Json = dict[str, Any]
DEFAULT_POINTS = 1000


class TensorboardData:
    def __init__(self, state_dir: Path, records: ResourceStore, nested: NestedService) -> None:
        self.dir = state_dir / "tensorboard_data"
        self.records = records
        self.nested = nested
        self._lock = threading.Lock()

    def open(self) -> None:
        private_dir(self.dir)

    def file(self, series: str) -> Path:
        return self.dir / (hashlib.sha256(series.encode()).hexdigest()[:32] + ".jsonl")

    # -- writing --------------------------------------------------------------------------------
    def _checked(self, run: str, batch: list[Json], at: str) -> list[tuple[Json, list[Json]]]:
        self.nested.record(KINDS["runs"], run)
        out = []
        for i, data in enumerate(batch):
            series_id = data.get("tensorboardTimeSeriesId")
            if not series_id:
                raise violation(f"{at}[{i}].tensorboard_time_series_id", "Required field is not set.")
            record = self.records.get(f"{run}/timeSeries/{series_id}")
            if record is None:
                raise not_found(f"The TensorboardTimeSeries {run}/timeSeries/{series_id} does not exist: create it "
                                "first (tensorboardTimeSeries.create).")
            kind = record["body"].get("valueType")
            given = data.get("valueType")
            if given and given != kind:
                raise violation(f"{at}[{i}].value_type", f"The time series {series_id} holds {kind} values, "
                                                         f"not {given}.")
            out.append((record, list(data.get("values") or [])))
        return out

    def _append(self, checked: list[tuple[Json, list[Json]]]) -> None:
        with self._lock:
            for record, values in checked:
                if not values:
                    continue
                lines = "".join(json.dumps(v, separators=(",", ":")) + "\n" for v in values)
                fd = os.open(self.file(record["name"]), os.O_WRONLY | os.O_CREAT | os.O_APPEND, FILE_MODE)
                try:
                    os.write(fd, lines.encode())
                finally:
                    os.close(fd)
                meta = dict(record["body"].get("metadata") or {})
                steps = [int(v.get("step") or 0) for v in values]
                meta["maxStep"] = str(max([int(meta.get("maxStep") or 0), *steps]))
                walls = [str(v["wallTime"]) for v in values if v.get("wallTime")]
                if walls:
                    meta["maxWallTime"] = max([str(meta.get("maxWallTime") or ""), *walls])
                current = self.records.get(record["name"]) or record
                self.records.put({**current, "body": {**current["body"], "metadata": meta}, "update_time": now()})

    def write_run(self, run: str, raw: bytes) -> Json:
        body = wire.parse("WriteTensorboardRunDataRequest", raw)
        self._append(self._checked(run, body.get("timeSeriesData") or [], "time_series_data"))
        return {}

    def write_experiment(self, experiment: str, raw: bytes) -> Json:
        body = wire.parse("WriteTensorboardExperimentDataRequest", raw)
        self.nested.record(KINDS["experiments"], experiment)
        checked = []
        for i, request in enumerate(body.get("writeRunDataRequests") or []):
            run = str(request.get("tensorboardRun") or "")
            if not run.startswith(experiment + "/runs/"):
                raise violation(f"write_run_data_requests[{i}].tensorboard_run",
                                f"{run!r} is not a run of {experiment}.")
            checked += self._checked(run, request.get("timeSeriesData") or [],
                                     f"write_run_data_requests[{i}].time_series_data")
        self._append(checked)
        return {}

    # -- reading --------------------------------------------------------------------------------
    def points(self, series: str) -> list[Json]:
        try:
            text = self.file(series).read_text()
        except FileNotFoundError:
            return []
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def series_data(self, series: str, max_points: int) -> Json:
        record = self.nested.record(KINDS["timeSeries"], series)
        values = sorted(self.points(series), key=lambda v: int(v.get("step") or 0))
        if 0 < max_points < len(values):
            stride = len(values) / max_points
            picked = [values[int(i * stride)] for i in range(max_points - 1)]
            values = [*picked, values[-1]]
        return {"tensorboardTimeSeriesId": record["id"], "valueType": record["body"].get("valueType"),
                "values": values}

    def read(self, series: str, params: dict[str, str]) -> Json:
        if params.get("filter"):
            raise invalid("readTensorboardTimeSeriesData's filter is not emulated by trainjobs: leave it out and "
                          "select the points you need from the answer.")
        raw = params.get("maxDataPoints") or "0"
        try:
            wanted = int(raw)
        except ValueError:
            raise violation("max_data_points", f"{raw!r} is not an integer.") from None
        if wanted < -1:
            raise violation("max_data_points", "Must be positive, 0 (the default, 1000) or -1 (every point).")
        return {"timeSeriesData": self.series_data(series, wanted or DEFAULT_POINTS)}

    def batch_read(self, tensorboard: str, names: list[str]) -> Json:
        self.nested.record(KINDS["tensorboards"], tensorboard)
        if not names:
            raise violation("time_series", "Required field is not set: name one time series or more.")
        for name in names:
            if not name.startswith(tensorboard + "/"):
                raise violation("time_series", f"{name!r} is not a time series of {tensorboard}.")
        return {"timeSeriesData": [self.series_data(name, DEFAULT_POINTS) for name in names]}
