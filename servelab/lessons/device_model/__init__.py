"""This device's step line and prompt reading, fitted once and read by the later chapters
(chapter 02 fits the line, chapter 04 the reading)."""
