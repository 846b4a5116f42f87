"""Which entries of a log are seen twice (`DuplicateEntries`): a resumed session replays the entries of the one
it continues, and a log may hold an entry written again. Each entry is known by two 8-byte digests, of its uuid
and of its uuid with its time, kept in a `DigestSet` that stays small for a session of any length.
"""

from __future__ import annotations

import hashlib
from array import array
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Collection

from .summarize import uuid_digest


def replay_digest(uuid: str, timestamp: Any) -> bytes:
    """An entry as a resumed session replays it: the same uuid and the same time. An entry that shares only
    the uuid is another entry."""
    return uuid_digest(f"{uuid}\0{timestamp}")


def entry_digests(uuid: str, timestamp: Any) -> tuple[bytes, bytes]:
    """`uuid_digest(uuid)` and `replay_digest(uuid, timestamp)`, in one call: they are made for every entry.
    The replay digest goes on from the uuid's, which is hashed once (each character is encoded on its own,
    so the two parts encode as their sum does)."""
    of_uuid = _DIGEST_HASHER.copy()
    of_uuid.update(uuid.encode("utf-8", "replace"))
    of_replay = of_uuid.copy()
    of_replay.update(f"\0{timestamp}".encode("utf-8", "replace"))
    return of_uuid.digest(), of_replay.digest()


_DIGEST_HASHER = hashlib.blake2b(digest_size=8)
"""As `uuid_digest` makes its digests."""


class Seen(Enum):
    """What an entry's uuid and time say about it (`DuplicateEntries.see`)."""

    NEW = "new"
    """Not seen before: shown."""
    IN_CONTINUED_SESSION = "in continued session"
    """A replay (uuid and time) of an entry of the session this one continues, which shows it: left out."""
    IN_THIS_FILE = "in this file"
    """The same entry (uuid and time) written again in this file, as a resumed session replays it: left out."""
    UUID_IN_THIS_FILE = "uuid in this file"
    """Another entry of this file has its uuid, at another time (or the same entry written again at another
    time: it cannot be told apart): both shown."""
    UUID_IN_CONTINUED_SESSION = "uuid in continued session"
    """An entry of the session this one continues has its uuid, at another time: both shown."""


# Held here for `DuplicateEntries.see`, which says one of them for every entry: a member looked up on its enum
# costs a Python call.
_NEW, _IN_CONTINUED_SESSION, _IN_THIS_FILE = Seen.NEW, Seen.IN_CONTINUED_SESSION, Seen.IN_THIS_FILE
_UUID_IN_THIS_FILE, _UUID_IN_CONTINUED_SESSION = Seen.UUID_IN_THIS_FILE, Seen.UUID_IN_CONTINUED_SESSION


class DigestSet:
    """A set of 8-byte digests. A small one is a set of numbers (some 60 bytes a digest, asked of at C speed);
    past `SMALL` digests they move into one array (open addressing, at most half full), which holds a
    digest in 16 to 32 bytes: a set of bytes objects took some 75, 75 MB for a session of 500,000 entries."""

    SMALL = 1 << 16

    def __init__(self) -> None:
        self.numbers: set[int] | None = set()
        """The digests as numbers while there are at most `SMALL`; then None, and they are in `table`."""
        self.table = array("Q", bytes(8 << 10))
        self.count = 0
        self.zero = False
        """Whether the digest of eight zero bytes is in the table: 0 marks a free slot there."""

    def _slot(self, number: int) -> tuple[int, bool]:
        """Where `number` is, or the free slot where it would go; and whether it is there."""
        table = self.table
        mask = len(table) - 1
        slot = number & mask  # a digest's bits are as good as random
        while found := table[slot]:
            if found == number:
                return slot, True
            slot = (slot + 1) & mask
        return slot, False

    def __contains__(self, digest: object) -> bool:
        if not isinstance(digest, bytes):
            return False
        number = int.from_bytes(digest, "little")
        if self.numbers is not None:
            return number in self.numbers
        return self._slot(number)[1] if number else self.zero

    def __len__(self) -> int:
        return len(self.numbers) if self.numbers is not None else self.count + self.zero

    def add(self, digest: bytes) -> None:
        self.put(digest)

    def put(self, digest: bytes) -> bool:
        """Add `digest`; whether it was in already. One call, where asking and then adding took two, and
        each entry of a session is asked of twice."""
        number = int.from_bytes(digest, "little")
        numbers = self.numbers
        if numbers is None:
            return self._put_in_table(number)
        size = len(numbers)
        numbers.add(number)
        if len(numbers) == size:
            return True
        if size >= self.SMALL:
            self._move_to_table(numbers)
        return False

    def put_first_then_second(self, first: bytes, second: bytes) -> tuple[bool, bool]:
        """Put `first`, and `second` when `first` was not in yet: whether each was in already ((True, True)
        when `first` was, `second` not asked of). Both in one call: it is made for every entry."""
        numbers = self.numbers
        if numbers is None or first == second:
            if self.put(first):
                return True, True
            return False, self.put(second)
        size = len(numbers)
        numbers.add(int.from_bytes(first, "little"))
        if len(numbers) == size:
            return True, True
        numbers.add(int.from_bytes(second, "little"))
        if len(numbers) > self.SMALL:
            self._move_to_table(numbers)
        return False, len(numbers) == size + 1

    def _move_to_table(self, numbers: set[int]) -> None:
        self.numbers = None
        slots = len(self.table)
        while slots < 2 * len(numbers):
            slots *= 2
        self.table = array("Q", bytes(8 * slots))
        for number in numbers:
            self._put_in_table(number)

    def _put_in_table(self, number: int) -> bool:
        if not number:
            there, self.zero = self.zero, True
            return there
        table = self.table
        mask = len(table) - 1
        slot = number & mask
        while found := table[slot]:
            if found == number:
                return True
            slot = (slot + 1) & mask
        table[slot] = number
        self.count += 1
        if 2 * self.count > len(table):
            old, self.table = table, array("Q", bytes(16 * len(table)))
            for number in old:
                if number:
                    self.table[self._slot(number)[0]] = number
        return False


@dataclass
class DuplicateEntries:
    """Which entries of one session were seen before, by uuid and by uuid with time, as 8-byte digests
    (a session may hold millions). An entry is the same entry when both match: Claude Code writes it again
    when a session is resumed. A uuid alone that matches is another entry that happens to share it."""

    continued: Collection[bytes] = frozenset()
    """Digests (`uuid_digest` and `replay_digest`) of the entries of the session this one continues."""
    seen: DigestSet = field(default_factory=DigestSet)
    """Digests of the uuids seen, and of the uuids with their times."""
    uuid_digests: bytearray = field(default_factory=bytearray)
    """Of each uuid kept, in file order: `link` needs the latest entry."""
    replay_digests: bytearray = field(default_factory=bytearray)
    """Of each uuid kept with its time, in the same order."""
    replayed: int = 0
    """Entries left out as replays of the continued session's."""

    def see(self, uuid: str, timestamp: Any) -> Seen:
        """Note an entry; what it is. Every entry not left out is remembered under its own uuid."""
        # `entry_digests`, inline (it is asked for every entry)
        of_uuid = _DIGEST_HASHER.copy()
        of_uuid.update(uuid.encode("utf-8", "replace"))
        of_replay = of_uuid.copy()
        of_replay.update(f"\0{timestamp}".encode("utf-8", "replace"))
        digest, replay = of_uuid.digest(), of_replay.digest()
        continued = self.continued
        if continued and digest in continued and replay in continued:
            self.replayed += 1
            return _IN_CONTINUED_SESSION
        seen = self.seen
        if digest == replay:  # as unlikely as any collision of two digests; asked of one at a time to stay exact
            if replay in seen:
                return _IN_THIS_FILE
            found = _UUID_IN_THIS_FILE if digest in seen else None
            seen.add(digest)
        else:
            # The replay digest is only ever added with its uuid's: when it is in, so is the uuid's.
            replay_there, digest_there = seen.put_first_then_second(replay, digest)
            if replay_there:
                return _IN_THIS_FILE
            found = _UUID_IN_THIS_FILE if digest_there else None
        if found is None:
            found = _UUID_IN_CONTINUED_SESSION if continued and digest in continued else _NEW
        self.uuid_digests += digest
        self.replay_digests += replay
        return found
