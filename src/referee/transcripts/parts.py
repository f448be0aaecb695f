"""A long report written a part at a time: the one way the judge's writers (`render`,
`json_report`, `html_report`) turn many entries into text.

Each part is one printf-style format, the entry's format repeated once per entry of the part
and joined by the separator, with the entries' values given as its values (never as the
format): one pass of C for a part's thousands of entries, and no part held longer than it
takes to write it. Every part but the last ends in the separator, so the parts joined are
the entries joined.

>>> list(printf_parts("%d=%s", ", ", 5, 2, lambda a, b: [v for i in range(a, b) for v in (i, "x")]))
['0=x, 1=x, ', '2=x, 3=x, ', '4=x']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from itertools import repeat


def printf_parts(
    form: str,
    separator: str,
    count: int,
    size: int,
    values: Callable[[int, int], Iterable[object]],
) -> Iterator[str]:
    """`separator.join(form % entry for each of the count entries)`, `size` entries a part:
    `values(start, stop)` gives the values of entries `start` to `stop - 1`, flat, in
    order."""
    whole = separator.join(repeat(form, size)) + separator
    for start in range(0, count, size):
        stop = min(start + size, count)
        part = whole if stop < count else separator.join(repeat(form, stop - start))
        yield part % tuple(values(start, stop))
