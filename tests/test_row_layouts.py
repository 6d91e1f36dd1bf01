"""The kernels' row layouts (``oklasim._kernels.layout``): declared once as records of named fields, every exported
offset inside its record and no two fields overlapping."""

import dataclasses

import pytest

from oklasim._kernels import layout as L
from oklasim.game.rules import Rules

# Each record and the prefix of the names it exports.
RECORDS = [(L.RULES, "R_"), (L.VIEW, "V_"), (L.HAND_RECORD, "H_"), (L.ERROR, "ER_"), (L.BOARD, "S_"),
           (L.GAME_RECORD, "G_")]
# Names with a record's prefix that are not its fields' offsets: sizes and ends.
NOT_OFFSETS = {"V_SIZE", "V_LOG_END", "V_STYLE_END"}


def slots(record: L.Record) -> list[tuple[int, int, str]]:
    return sorted((offset, offset + width, name) for name, (offset, width) in record.fields.items())


@pytest.mark.parametrize("record,prefix", RECORDS, ids=[r.name for r, _ in RECORDS])
def test_fields_tile_the_record_without_overlap(record, prefix):
    end = 0
    for start, stop, name in slots(record):
        assert start == end, f"{record.name}: {name} starts at {start}, the field before ends at {end}"
        end = stop
    assert end == record.size


@pytest.mark.parametrize("record,prefix", RECORDS, ids=[r.name for r, _ in RECORDS])
def test_every_exported_offset_is_its_fields(record, prefix):
    exported = {name: value for name, value in vars(L).items() if name.startswith(prefix) and name.isupper()
                and isinstance(value, int) and name not in NOT_OFFSETS}
    for name, value in exported.items():
        field = name[len(prefix):].lower()
        assert record.fields[field][0] == value, name
    assert set(record.fields) <= {name[len(prefix):].lower() for name in exported}  # every field has its name


def test_sizes_and_bounds():
    assert (L.N_RULE_FIELDS, L.V_SIZE, L.N_HAND_FIELDS, L.ERROR_FIELDS, L.N_GAME_FIELDS) == (
        L.RULES.size, L.VIEW.size, L.HAND_RECORD.size, L.ERROR.size, L.GAME_RECORD.size)
    assert L.BOARD.size <= L.V_SIZE  # the hidden row is a row of the board
    assert L.V_LOG_END == L.V_LOG + L.LOG_SLOTS and L.V_STYLE_END == L.V_SIZE
    assert [f.name for f in dataclasses.fields(Rules)] == list(L.RULES.fields)  # packed in the rules' order


def test_a_field_declared_twice_is_refused():
    record = L.Record("test")
    record.field("a", 2)
    assert record.field("b") == 2 and record.size == 3
    with pytest.raises(ValueError, match="declared twice"):
        record.field("a")
    with pytest.raises(ValueError, match="width 0"):
        record.field("c", 0)
