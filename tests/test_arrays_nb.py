"""The hot loops' array copies do what slice assignment does."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from oklasim._kernels.arrays_nb import copy_into_nb, copy_rows_nb


@given(st.integers(1, 6), st.integers(0, 300), st.integers(0, 2**31))
def test_copies_match_slice_assignment(rows, columns, seed):
    rng = np.random.default_rng(seed)
    source = rng.integers(-(2**62), 2**62, size=(rows, columns))
    target = np.zeros_like(source)
    copy_rows_nb(target, source)
    assert np.array_equal(target, source)
    if columns >= 2:  # into part of a row, as the advisor copies a stock order into a board's deck
        row = np.zeros(columns + 5, dtype=np.int64)
        copy_into_nb(row[3 : 3 + columns // 2], source[0, : columns // 2])
        expected = np.zeros_like(row)
        expected[3 : 3 + columns // 2] = source[0, : columns // 2]
        assert np.array_equal(row, expected)
