"""grade's options that shape a mark: extensions from the command line and from a CSV file, each value checked
and named when it cannot be read."""

from __future__ import annotations

import argparse

import pytest

from autograder.cli.grade_options import read_extensions


def _args(*extension: str, extensions=None) -> argparse.Namespace:
    return argparse.Namespace(extension=list(extension), extensions=extensions)


def test_extensions_from_the_command_line_and_a_csv_file_are_one_sorted_set(tmp_path):
    table = tmp_path / "extensions.csv"
    table.write_text("\ufeffStudent,Extension,reason\nbo,36h,ill\n\ncy , 1d12h ,\n", encoding="utf-8")
    assert read_extensions(_args("ann=2d", "cy=36h", extensions=table)) == (
        ("ann", 172800.0),
        ("bo", 129600.0),
        ("cy", 129600.0),
    )
    assert read_extensions(_args()) is None  # none given: the folder's
    empty = tmp_path / "none.csv"
    empty.write_text("student,extension\n")
    assert read_extensions(_args(extensions=empty)) == ()  # given, and empty: no extensions


@pytest.mark.parametrize(
    "text, said",
    [
        ("student,days\nbo,2\n", "has the columns ['student', 'days']: give a header row student,extension"),
        ("student,extension\nbo,two days\n", "line 2: 'two days' is not a duration"),
        ("student,extension\n,2d\n", "line 2: ',2d' has no student or no extension"),
        ("student,extension\nbo,2d\nbo,3d\n", "line 3: 'bo' is given two extensions; give one"),
    ],
)
def test_a_csv_it_cannot_use_is_named_with_its_line(tmp_path, text, said):
    table = tmp_path / "extensions.csv"
    table.write_text(text)
    assert said in read_extensions(_args(extensions=table))
