"""`restore`: a session's logs written back where they were, byte for byte, never over a live log. A log
the vault holds damaged is not written (nothing half-made is left) and is named; the session's other
logs are restored all the same."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path

from ...stages.agents import codex_place
from .readback import Stored, VaultReader, Version
from .save import first_value
from .store import Damaged, VaultError


@dataclass
class Restored:
    lines: list[str] = field(default_factory=list)
    damaged: list[str] = field(default_factory=list)
    """The session's logs that were not restored because the vault's copy is damaged, each with why."""


def restore(vault: VaultReader, session_id: str, output: Path | None, projects: Path, number: int | None = None,
            list_only: bool = False) -> Restored:
    """Write a session's logs back where they were in their project folder (under `projects`, or under
    `output`), byte for byte. A log already there is left as it is when it is the same, and stops the
    restore when it is not: nothing live is ever overwritten."""
    from ..manifest import file_hash

    logs = vault.versions_of(session_id)
    result = Restored(damaged=[f"{u.name}: the vault's copy is damaged ({u.reason})"
                               for u in vault.damaged_of(session_id)])
    if not logs:
        if result.damaged:
            raise VaultError(f"the vault {vault.folder} cannot restore session {session_id}: "
                             + "; ".join(result.damaged))
        raise VaultError(f"the vault {vault.folder} keeps no session {session_id}")
    by_folder: dict[str, list[tuple[Stored, list[Version]]]] = {}
    for stored, versions in logs:
        by_folder.setdefault(stored.place.project_path, []).append((stored, versions))
    # The same session saved from two places (an archive moved, a copy): the one seen last.
    folder = max(by_folder, key=lambda f: (max(s.last_seen for s, _ in by_folder[f]), f))
    chosen = sorted(by_folder[folder], key=lambda item: (item[0].place.agent_id != "", item[0].place.relpath))
    main = chosen[0][0]
    if list_only:
        for stored, versions in chosen:
            result.lines.append(f"{stored.name} (last seen {stored.last_seen}"
                                + (", gone from where it was" if not Path(stored.place.origin).exists() else "") + ")")
            for version in versions:
                result.lines.append(f"  version {version.number}: {version.size:,} bytes, saved {version.first_saved}"
                                    + (f" to {version.last_saved}" if version.last_saved != version.first_saved else ""))
        return result
    target_folder = (output if output is not None else projects / main.place.project_dir).expanduser().absolute()
    plan: list[tuple[Stored, Version, Path]] = []
    for stored, versions in chosen:
        wanted = number if number is not None and stored is main else (versions[-1].number if versions else 0)
        found = next((v for v in versions if v.number == wanted), None)
        if found is None:
            raise VaultError(f"the vault keeps versions 1 to {stored.number} of {stored.name}, not {wanted}")
        # A Codex rollout goes back where Codex keeps it (`~/.codex/sessions/YYYY/MM/DD/`), unless told where.
        codex_target = codex_place(Path(stored.place.relpath).name) if output is None else None
        plan.append((stored, found, codex_target or target_folder / stored.place.relpath))
    in_the_way = [target for _, version, target in plan
                  if (target.exists() or target.is_symlink()) and not (target.is_file() and file_hash(target) == version.sha1)]
    if in_the_way:
        raise VaultError(f"{in_the_way[0]}: a different log is there already; it is left as it is (restore "
                         f"elsewhere with -o DIR)" + (f", and {len(in_the_way) - 1} more" if len(in_the_way) > 1 else ""))
    written = same = restored = 0
    for stored, version, target in plan:
        if target.exists():
            same += 1
            continue
        try:
            written += vault.write_out(stored.place.origin, version.number, target)
            restored += 1
        except Damaged as error:
            result.damaged.append(f"{stored.name}: the vault's copy is damaged ({error.reason})")
    if restored or same or not result.damaged:
        into = plan[0][2].parent if plan and output is None and codex_place(Path(main.place.relpath).name) else target_folder
        result.lines.append(f"restored {main.place.session_id}: {restored} log{'s' if restored != 1 else ''} "
                            f"({written:,} bytes) into {into}"
                            + (f"; {same} already there, the same" if same else ""))
    others = sum(len(versions) - 1 for _, versions in chosen)
    if others and number is None:
        result.lines.append(f"the vault keeps {others} older version(s) too: see `sessionsite restore "
                            f"{main.place.session_id} --list`")
    if len(by_folder) > 1:
        result.lines.append("also kept from: " + ", ".join(sorted(set(by_folder) - {folder})))
    main_target = plan[0][2] if plan else target_folder / main.place.relpath
    if output is None and codex_place(Path(main.place.relpath).name) and main_target.exists():
        result.lines.append(f"resume it with: codex resume {main.place.session_id}")
    elif output is None and main.place.relpath.endswith(".jsonl") and main_target.exists():
        cwd = first_value(main_target, "cwd")
        where = f"cd {shlex.quote(cwd)} && " if cwd else ""
        result.lines.append(f"resume it with: {where}claude --resume {main.place.session_id}")
    return result
