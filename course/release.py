"""``make release``: tag the commit whose student editions students will open, and say what to push.

The install cells install servelab from ``_config.yml``'s ``repository.install_ref``, a tag; the
badges open the notebooks on ``repository.branch``. This command refuses, naming the fix, when:

- the working tree has changes or untracked files (they would not be in the tagged commit);
- HEAD is not on ``repository.branch`` (the badges would open notebooks from another branch);
- the tag exists and names another commit (moving a published tag would change what students
  who already installed it get);
- an edition in ``book/`` or ``_toc.yml`` is not what ``make edition`` would write now
  (:func:`course.edition.stale_chapters`, the same check as the tests).

Otherwise it creates the tag, annotated (it records who released it and when, and ``git push
--follow-tags`` pushes it), or leaves it where it already names HEAD, and prints the two pushes:
the tag first, so that the branch push, which starts the Pages build, finds it.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from course.edition import stale_chapters, toc_text
from course.launch import Repository, RepositoryError, read_repository
from course.paths import REPO_ROOT


class Refused(Exception):
    """The repository is not in a state to release; the message says what to do."""


def git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=False
    )


def git_out(root: Path, *args: str) -> str:
    result = git(root, *args)
    if result.returncode != 0:
        raise Refused(f"git {' '.join(args)} failed: {result.stderr.strip()}")
    return result.stdout.strip()


def check_clean(root: Path) -> None:
    changes = git_out(root, "status", "--porcelain", "--untracked-files=normal").splitlines()
    if changes:
        listed = "\n  ".join(changes[:10]) + ("\n  ..." if len(changes) > 10 else "")
        raise Refused(f"the working tree is not clean; commit or remove these first:\n  {listed}")


def check_branch(root: Path, repository: Repository) -> None:
    branch = git(root, "symbolic-ref", "--quiet", "--short", "HEAD").stdout.strip()
    if branch != repository.branch:
        raise Refused(
            f"HEAD is on {branch or 'no branch'}, but the badges open the notebooks on "
            f"{repository.branch} (_config.yml repository.branch): check out {repository.branch}, "
            "or change repository.branch, run make edition and commit"
        )


def tagged_commit(root: Path, tag: str) -> str | None:
    """The commit ``tag`` names, or None where there is no such tag."""
    result = git(root, "rev-parse", "-q", "--verify", f"refs/tags/{tag}^{{commit}}")
    return result.stdout.strip() if result.returncode == 0 else None


def tag_is_at_head(root: Path, tag: str, head: str) -> bool:
    """Whether ``tag`` already names HEAD; refuses when it names another commit."""
    if git(root, "check-ref-format", f"refs/tags/{tag}").returncode != 0:
        raise Refused(f"repository.install_ref {tag!r} is not a valid tag name")
    commit = tagged_commit(root, tag)
    if commit is not None and commit != head:
        raise Refused(
            f"the tag {tag} already names {commit[:12]}, not HEAD ({head[:12]}). A published tag "
            f"is not moved. If students should install {tag}'s servelab, it is released: push the "
            "tag if the remote lacks it, then the branch. To release HEAD, set a new "
            "repository.install_ref in _config.yml, run make edition, commit and rerun make "
            "release"
        )
    return commit == head


def check_editions(root: Path, repository: Repository) -> None:
    stale = stale_chapters(root / "assignments", root / "book", repository=repository)
    if stale:
        raise Refused(f"book/ is out of date for {', '.join(stale)}: run make edition and commit")
    toc = root / "_toc.yml"
    if not toc.is_file() or toc.read_text(encoding="utf-8") != toc_text(root / "book", root):
        raise Refused("_toc.yml does not match book/: run make edition and commit")


def push_remote(root: Path, branch: str) -> str:
    """The branch's upstream remote, else ``origin``."""
    return git(root, "config", "--get", f"branch.{branch}.remote").stdout.strip() or "origin"


def _comparable(url: str) -> str:
    """``git@host:owner/name.git`` and ``https://host/owner/name`` compare equal."""
    url = url.strip().rstrip("/").removesuffix(".git").lower()
    if url.startswith("git@"):
        host, _, path = url.removeprefix("git@").partition(":")
        url = f"https://{host}/{path}"
    return url.replace("ssh://git@", "https://", 1)


def remote_note(root: Path, remote: str, repository: Repository) -> str | None:
    """A warning when the remote is not the repository the badges and install cells name."""
    address = git(root, "remote", "get-url", remote).stdout.strip()
    if _comparable(address) == _comparable(repository.url):
        return None
    return (
        f"note: {remote} is {address or 'not set'}, but _config.yml's repository.url is "
        f"{repository.url}: the badges and install cells use the url"
    )


def release(root: Path) -> list[str]:
    """Check ``root``, tag HEAD with ``install_ref`` if needed; returns the lines to print."""
    repository = read_repository(root / "_config.yml")
    tag = repository.install_ref
    check_clean(root)
    check_branch(root, repository)
    head = git_out(root, "rev-parse", "HEAD")
    already = tag_is_at_head(root, tag, head)
    check_editions(root, repository)
    if already:
        done = f"release: {tag} already tags HEAD ({head[:12]}); nothing to tag"
    else:
        git_out(
            root,
            "tag",
            "-a",
            tag,
            "-m",
            f"servelab {tag}: the version the install cells "
            "of this commit's student edition install",
        )
        done = f"release: tagged HEAD ({head[:12]}) {tag}"
    remote = push_remote(root, repository.branch)
    lines = [
        done,
        "Push the tag first, then the branch (its push starts the site's build):",
        f"  git push {remote} {tag}",
        f"  git push {remote} {repository.branch}",
    ]
    note = remote_note(root, remote, repository)
    return [*lines, note] if note else lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m course.release",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--root", type=Path, default=REPO_ROOT, help="the repository to release (default: this one)"
    )
    args = parser.parse_args(argv)
    try:
        lines = release(args.root.resolve())
    except (Refused, RepositoryError) as refusal:
        print(f"release: refused: {refusal}", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
