"""One page of a collection the emulator keeps (jobs, training pipelines, models, datasets):
newest first, the list filter of filters.py, ``readMask``, and page
tokens that hold a position (paging.py), so a page never shifts while the collection changes."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from provider.emulator import filters, paging

Json = dict[str, Any]
Walk = Callable[[tuple[str, str] | None], Iterable[Json]]


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def page(walk: Walk, render: Callable[[Json], Json], key: str, parent: str, params: dict[str, str],
         stored: Callable[[Json], Json] | None = None) -> Json:
    """``{key: [...], nextPageToken}``: the records ``walk(after)`` yields (newest first), rendered,
    those the filter keeps, ``pageSize`` of them. With ``stored`` (a record's view without its live
    state), a filter that reads no status is checked on that view, so only the items returned are
    rendered (the job service: rendering reads a job's local state)."""
    text = params.get("filter", "")
    keep = filters.compile_filter(text)
    size = paging.page_size(params.get("pageSize"))
    mask = [camel(f.strip()) for f in params.get("readMask", "").split(",") if f.strip()]
    request = (parent, key, text, ",".join(mask))
    found: list[Json] = []
    last: tuple[str, str] | None = None
    more = False
    view = stored if stored is not None and not keep.needs_status else render
    for record in walk(paging.decode(params.get("pageToken"), *request)):
        seen = view(record) if keep.fields else None
        if seen is not None and not keep.predicate(seen):
            continue
        if len(found) == size:
            more = True
            break
        found.append(seen if seen is not None and view is render else render(record))
        last = (record["create_time"], record["id"])
    if mask:
        found = [{k: v for k, v in item.items() if k in mask} for item in found]
    out: Json = {key: found}
    if more and last is not None:
        out["nextPageToken"] = paging.encode(last, *request)
    return out
