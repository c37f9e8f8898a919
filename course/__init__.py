"""Course tooling for instructors and graders: the student-edition generator (`edition`), the
launch and install cells it writes (`launch`), the check-cell contract and its data (`checks`)
and where the course lives in the repository (`paths`).

Not part of what students install (pyproject.toml installs `servelab` only): run it from the
repository root, e.g. `python -m course.edition` or `python -m course.checks write`.
"""
