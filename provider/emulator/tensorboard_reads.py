"""TensorBoard's reads beyond a time series' points (tensorboard_data.py), as Vertex AI's v1 REST
reference has them (``projects.locations.tensorboards`` and its ``...runs.timeSeries``):

* ``readSize`` GET ``{tensorboard}:readSize``: ``storageSizeByte``, the bytes its time series'
  points take in the state dir plus its blobs in the emulated storage.
* ``readUsage`` GET ``{tensorboard}:readUsage``: ``monthlyUsageData``, its views by month (``YYYYMM``,
  UTC) and user, as ``perUserUsageData`` (``username``, ``viewCount``). Vertex AI's reference says what a
  view is: "the number of times the user has read data within the Tensorboard". The emulator serves
  no web TensorBoard app, so here a view is one request that reads its data points: a time series'
  ``:read``, the tensorboard's ``:batchRead``, an ``exportTensorboardTimeSeries`` (its first page:
  the pages that follow are the same read) and ``readBlobData``; what the console's experiments page
  and the SDK's readers send. A request that fails counts nothing. The emulator has no
  authentication, so the user is the one the emulator runs as (a local tool, one user). The counts
  are kept in the tensorboard's record: they survive a restart.
* ``exportTensorboardTimeSeries`` POST ``{timeSeries}:exportTensorboardTimeSeries``: its points,
  ``filter`` over ``step`` and ``wall_time`` (the list filter's operators), ``orderBy`` ``step``
  or ``wall_time`` (``desc`` allowed; by step when absent), ``pageSize`` (1000 by default, at most
  10000) and ``pageToken`` (an offset into that order: points are only ever appended).
* ``readBlobData`` GET ``{timeSeries}:readBlobData?blobIds=...``: the blobs of a BLOB_SEQUENCE
  time series (what the SDK's uploader writes for images, graphs and other blob plugins): the data
  a write carried inline, else the object the uploader put under the tensorboard's
  ``blobStoragePathPrefix`` (``tensorboard-{TB}/{EXPERIMENT}/{RUN}/{SERIES}/{ID}``); a blob that
  is neither is NOT_FOUND by name, and a scalar or tensor time series is refused (it has no blobs).

A Tensorboard's ``blobStoragePathPrefix`` is ``trainjobs-tensorboards/{project}`` in the emulated
storage: the bucket is made when a tensorboard is created or read, so the uploader can write there.
"""

from __future__ import annotations

import base64
import contextlib
import getpass
import time
from pathlib import Path
from typing import Any

from provider.emulator import paging, resource_filter, wire
from provider.emulator.errors import invalid, not_found
from provider.emulator.nested import BLOB_BUCKET, KINDS, blob_prefix, violation
from provider.emulator.tensorboard_data import TensorboardData

Json = dict[str, Any]
EXPORT_PAGE = 1000
MAX_EXPORT_PAGE = 10000
_ORDER = {"step": "step", "wall_time": "wallTime", "wallTime": "wallTime"}


def make_blob_bucket(storage_root: Path) -> None:
    (storage_root / BLOB_BUCKET).mkdir(parents=True, exist_ok=True)


class TensorboardReads:
    def __init__(self, data: TensorboardData, storage_root: Path) -> None:
        self.data = data
        self.nested = data.nested
        self.storage_root = storage_root

    def _blob_folder(self, tensorboard: str) -> Path:
        return self.storage_root.joinpath(*blob_prefix(tensorboard).split("/"), f"tensorboard-{tensorboard.split('/')[5]}")

    def read_size(self, tensorboard: str) -> Json:
        self.nested.record(KINDS["tensorboards"], tensorboard)
        size = 0
        for record in self.data.records.everywhere("timeSeries"):
            if record["name"].startswith(tensorboard + "/"):
                with contextlib.suppress(FileNotFoundError):
                    size += self.data.file(record["name"]).stat().st_size
        folder = self._blob_folder(tensorboard)
        if folder.is_dir():
            size += sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
        return {"storageSizeByte": str(size)}

    def read_usage(self, tensorboard: str) -> Json:
        views: dict[str, dict[str, int]] = self.nested.record(KINDS["tensorboards"], tensorboard).get("views") or {}
        return {"monthlyUsageData": {month: {"userUsageData": [{"username": user, "viewCount": str(count)}
                                                                for user, count in sorted(users.items())]}
                                     for month, users in sorted(views.items())}}

    def viewed(self, name: str) -> None:
        """One view of the tensorboard that ``name`` is or lies in (what readUsage counts), this month."""
        tensorboard = "/".join(name.split("/")[:6])  # projects/P/locations/L/tensorboards/T
        month, user = time.strftime("%Y%m", time.gmtime()), _user()
        records = self.data.records
        with records.lock:
            record = records.get(tensorboard)
            if record is None:
                return
            views = {m: dict(users) for m, users in (record.get("views") or {}).items()}
            views.setdefault(month, {})[user] = views.get(month, {}).get(user, 0) + 1
            records.put({**record, "views": views})

    def export(self, series: str, raw: bytes) -> Json:
        body = wire.parse("ExportTensorboardTimeSeriesDataRequest", raw)
        self.nested.record(KINDS["timeSeries"], series)
        text = str(body.get("filter") or "")
        keep = resource_filter.compile_filter(text, self.data.records)
        order = str(body.get("orderBy") or "step")
        words = order.split()
        field = _ORDER.get(words[0]) if words else None
        if field is None or len(words) > 2 or (len(words) == 2 and words[1].lower() not in ("asc", "desc")):
            raise invalid(f"Invalid order_by {order!r}: the points are ordered by step or wall_time, optionally "
                          "followed by asc or desc.")
        size = int(body.get("pageSize") or EXPORT_PAGE)
        if not 0 < size <= MAX_EXPORT_PAGE:
            raise violation("page_size", f"{size} is not between 1 and {MAX_EXPORT_PAGE}.")
        points = [p for p in self.data.points(series) if keep({**p, "step": int(p.get("step") or 0)})]
        points.sort(key=lambda p: int(p.get("step") or 0) if field == "step" else str(p.get("wallTime") or ""),
                    reverse=len(words) == 2 and words[1].lower() == "desc")
        request = (series, "export", text, order)
        after = paging.decode(body.get("pageToken"), *request)
        start = int(after[0]) if after is not None else 0
        out: Json = {"timeSeriesDataPoints": points[start:start + size]}
        if start + size < len(points):
            out["nextPageToken"] = paging.encode((str(start + size), "offset"), *request)
        if after is None:  # the pages that follow are the same read
            self.viewed(series)
        return out

    def read_blobs(self, series: str, ids: list[str]) -> Json:
        record = self.nested.record(KINDS["timeSeries"], series)
        kind = record["body"].get("valueType")
        if kind != "BLOB_SEQUENCE":
            raise invalid(f"The TensorboardTimeSeries {series} holds {kind} values, which have no blobs: "
                          "readBlobData reads a BLOB_SEQUENCE time series (read its points with :read).")
        if not ids:
            raise violation("blob_ids", "Required field is not set: name one blob or more.")
        inline = {b["id"]: b["data"] for p in self.data.points(series)
                  for b in (p.get("blobs") or {}).get("values") or [] if b.get("id") and b.get("data")}
        parts = series.split("/")  # projects/P/locations/L/tensorboards/T/experiments/E/runs/R/timeSeries/S
        folder = self._blob_folder("/".join(parts[:6])).joinpath(parts[7], parts[9], parts[11])
        blobs = []
        for blob_id in ids:
            if blob_id in inline:
                blobs.append({"id": blob_id, "data": inline[blob_id]})
                continue
            path = folder / blob_id
            if "/" in blob_id or blob_id in ("", ".", "..") or not path.is_file():
                where = f"gs://{blob_prefix(series)}/tensorboard-{parts[5]}/{parts[7]}/{parts[9]}/{parts[11]}/{blob_id}"
                raise not_found(f"The blob {blob_id!r} of {series} does not exist: no write carried its data and "
                                f"there is no object {where}.")
            blobs.append({"id": blob_id, "data": base64.b64encode(path.read_bytes()).decode()})
        self.viewed(series)
        return {"blobs": blobs}


def _user() -> str:
    """Who reads: the user the emulator runs as (it has no authentication)."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no login name and no passwd entry (a bare container)
        return "local"
