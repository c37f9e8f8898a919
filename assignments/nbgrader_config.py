"""nbgrader configuration for servelab; the course root is the folder holding this file.

Every path is derived from this file's location, so nbgrader behaves the same from any working
directory and needs nothing in a home folder. The student edition of ``source/<id>/`` is written
to ``../book/<id>/`` (the release step), which is what the site renders and Colab opens.
"""

from pathlib import Path

COURSE_ROOT = Path(__file__).resolve().parent

c = get_config()  # noqa: F821  (provided by traitlets when it loads this file)

c.CourseDirectory.root = str(COURSE_ROOT)
c.CourseDirectory.source_directory = "source"
c.CourseDirectory.release_directory = str(COURSE_ROOT.parent / "book")
c.CourseDirectory.db_url = f"sqlite:///{COURSE_ROOT / 'gradebook.db'}"

# The student edition's answer cell: a value to replace, never `raise NotImplementedError()`.
c.ClearSolutions.code_stub = {
    "python": "answer = None  # replace None with the letter you choose, in quotes",
}
