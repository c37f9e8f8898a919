"""``make release`` (``python -m course.release``) on throw-away clones of this repository."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from course.edition import generate_editions, write_toc
from course.launch import Repository, read_repository
from course.paths import REPO_ROOT

pytestmark = pytest.mark.tooling  # git clones and `python -m course.release` in a child

# Git without the machine's or the user's configuration (signing, hooks), and with an identity.
GIT_ENV = {
    **os.environ,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "Instructor",
    "GIT_AUTHOR_EMAIL": "instructor@example.org",
    "GIT_COMMITTER_NAME": "Instructor",
    "GIT_COMMITTER_EMAIL": "instructor@example.org",
}


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], env=GIT_ENV, capture_output=True, text=True, check=True
    ).stdout.strip()


def commit_all(root: Path, message: str) -> None:
    git(root, "add", "--all")
    git(root, "commit", "-q", "-m", message)


def release(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "course.release", "--root", str(root)],
        cwd=REPO_ROOT,
        env=GIT_ENV,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )


def tag_target(root: Path, tag: str) -> str | None:
    """The commit ``tag`` names in ``root``, or None."""
    found = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "-q", "--verify", f"refs/tags/{tag}^{{commit}}"],
        capture_output=True,
        text=True,
        check=False,
    )
    return found.stdout.strip() if found.returncode == 0 else None


@pytest.fixture(scope="module")
def ready(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clone of this repository's HEAD without its tags, its editions regenerated and
    committed, so that it is ready to release whatever state HEAD's editions are in."""
    root = tmp_path_factory.mktemp("release") / "ready"
    subprocess.run(
        ["git", "clone", "-q", "--no-tags", str(REPO_ROOT), str(root)], env=GIT_ENV, check=True
    )
    generate_editions(
        root / "assignments", root / "book", repository=read_repository(root / "_config.yml")
    )
    write_toc(root / "book", root)
    if git(root, "status", "--porcelain"):
        commit_all(root, "Editions regenerated")
    return root


@pytest.fixture
def clone(ready: Path, tmp_path: Path) -> Path:
    """An instructor's clone of ``ready``: its remote ``origin``, on the book's branch."""
    root = tmp_path / "clone"
    subprocess.run(
        ["git", "clone", "-q", "--no-tags", str(ready), str(root)], env=GIT_ENV, check=True
    )
    return root


def setting(root: Path) -> Repository:
    return read_repository(root / "_config.yml")


def test_a_clean_clone_is_tagged_and_told_what_to_push(clone: Path) -> None:
    tag, branch = setting(clone).install_ref, setting(clone).branch
    done = release(clone)
    assert done.returncode == 0, done.stderr
    assert tag_target(clone, tag) == git(clone, "rev-parse", "HEAD")
    assert git(clone, "cat-file", "-t", f"refs/tags/{tag}") == "tag"  # annotated
    lines = done.stdout.splitlines()
    push_tag, push_branch = f"  git push origin {tag}", f"  git push origin {branch}"
    assert push_tag in lines and push_branch in lines
    assert lines.index(push_tag) < lines.index(push_branch)  # the branch push starts the build
    origin = git(clone, "remote", "get-url", "origin")
    assert f"note: origin is {origin}, but" in done.stdout  # a folder, not repository.url


def test_a_tag_already_at_head_is_left_as_it_is(clone: Path) -> None:
    tag = setting(clone).install_ref
    git(clone, "tag", "-a", tag, "-m", "released by hand")
    tag_object = git(clone, "rev-parse", f"refs/tags/{tag}")
    url = setting(clone).url.replace("https://github.com/", "git@github.com:") + ".git"
    git(clone, "remote", "set-url", "origin", url)
    done = release(clone)
    assert done.returncode == 0, done.stderr
    assert f"{tag} already tags HEAD" in done.stdout
    assert git(clone, "rev-parse", f"refs/tags/{tag}") == tag_object
    assert f"  git push origin {tag}" in done.stdout.splitlines()
    assert "note:" not in done.stdout  # the remote is the repository the config names


def test_a_dirty_tree_is_refused(clone: Path) -> None:
    with (clone / "README.md").open("a", encoding="utf-8") as readme:
        readme.write("\nAn edit not committed.\n")
    (clone / "notes.txt").write_text("untracked\n", encoding="utf-8")
    done = release(clone)
    assert done.returncode == 1
    assert "refused: the working tree is not clean" in done.stderr
    assert "README.md" in done.stderr and "notes.txt" in done.stderr
    assert tag_target(clone, setting(clone).install_ref) is None


def test_a_tag_naming_another_commit_is_refused(clone: Path) -> None:
    tag = setting(clone).install_ref
    git(clone, "tag", tag, "HEAD~1")
    done = release(clone)
    assert done.returncode == 1
    assert f"refused: the tag {tag} already names" in done.stderr
    assert "set a new repository.install_ref" in done.stderr
    assert tag_target(clone, tag) == git(clone, "rev-parse", "HEAD~1")


def test_stale_editions_are_refused(clone: Path) -> None:
    """A new install_ref committed without make edition: every install cell names the old tag."""
    config = clone / "_config.yml"
    old = setting(clone).install_ref
    config.write_text(
        config.read_text(encoding="utf-8").replace(
            f"install_ref: {old}", "install_ref: v0.0.1-next"
        ),
        encoding="utf-8",
    )
    commit_all(clone, "Bump install_ref only")
    done = release(clone)
    assert done.returncode == 1
    assert "refused: book/ is out of date for" in done.stderr
    assert "run make edition and commit" in done.stderr
    assert tag_target(clone, "v0.0.1-next") is None


def test_another_branch_than_the_books_is_refused(clone: Path) -> None:
    git(clone, "checkout", "-q", "-b", "drafts")
    done = release(clone)
    assert done.returncode == 1
    assert f"HEAD is on drafts, but the badges open the notebooks on {setting(clone).branch}" in (
        done.stderr
    )
