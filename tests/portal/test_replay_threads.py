"""A cached replay book read by several requests at once (found by ``benchmarks.probe_security``).

A book's log sentences are written when the log is first read, by advancing a trailing copy of the
game.  Requests run in a thread pool, and the books are cached and shared (an imported record by its
digest, a stored game by its id): four requests reading one new book at once all advanced that copy
together, and most answered 500 ("it is nobody's turn: a random outcome is due").
"""

from __future__ import annotations

import threading
from typing import Any

from benchmarks.probe_floods import bomb_record
from ludothek.services.community.history import ReplayBook, imported_names


def test_one_book_read_by_four_threads_at_once_gives_each_the_whole_log() -> None:
    for seed in range(7, 12):
        record = bomb_record(300, 200, seed=seed)
        expected = ReplayBook(record, imported_names(record))
        want = expected.log(expected.length, "all", "en")
        book = ReplayBook(record, imported_names(record))
        barrier = threading.Barrier(4)
        got: list[Any] = []

        def read(book: ReplayBook = book, barrier: threading.Barrier = barrier, got: list[Any] = got) -> None:
            barrier.wait()
            try:
                got.append(book.log(book.length, "all", "en"))
            except Exception as exc:  # the failure itself is what the test reports
                got.append(exc)

        threads = [threading.Thread(target=read) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert [g if isinstance(g, Exception) else len(g) for g in got] == [len(want)] * 4
        assert all(g == want for g in got)
