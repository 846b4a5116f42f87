"""`in_workers`: the build's work over this process and forked workers, as `map` would give it."""

from __future__ import annotations

import os
import threading

import pytest

from generator.workers import in_workers


class Unpicklable:
    """An item that cannot be sent to another process (a lock inside), as a build's items may hold."""

    def __init__(self, number: int):
        self.number = number
        self.lock = threading.Lock()


def square_with_pid(item: Unpicklable) -> tuple[int, int]:
    return item.number * item.number, os.getpid()


@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_results_come_back_in_order_and_items_are_not_sent_to_the_workers(jobs):
    items = [Unpicklable(number) for number in range(12)]
    results = list(in_workers(square_with_pid, items, jobs))
    assert [value for value, _ in results] == [number * number for number in range(12)]
    processes = {pid for _, pid in results}
    assert len(processes) <= jobs  # this process is one of the jobs: -j 2 forks one worker
    if jobs == 1:
        assert processes == {os.getpid()}


def fails_at(bad: int):
    def task(number: int) -> int:
        if number == bad:
            raise ValueError(f"item {number} is bad")
        return number

    return task


@pytest.mark.parametrize("bad", range(6))
def test_what_a_task_raised_is_raised_at_its_turn_after_the_results_before_it(bad):
    """Whichever process ran the item that failed (this one or a worker), the caller sees every result before
    it, then the error: as `map` gives them at -j 1."""
    seen: list[int] = []
    with pytest.raises(ValueError, match=f"item {bad} is bad"):
        for result in in_workers(fails_at(bad), list(range(6)), 2):
            seen.append(result)
    assert seen == list(range(bad))


def test_one_item_is_worked_on_here():
    assert list(in_workers(square_with_pid, [Unpicklable(3)], 2)) == [(9, os.getpid())]
