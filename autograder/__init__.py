"""Autograding servelab checks: a folder or zip of submitted notebooks → grades.csv and feedback.

Run `python -m autograder grade PATH... --out OUT`; the rules are in autograder/README.md.
"""
