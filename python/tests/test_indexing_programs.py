"""Programs of NumPy basic indexing (issue 18) through the bridge's encoder and NumPy interpreter:
a dropped axis and a new axis (a broadcast with an axis map) and negative steps (negative
coefficients), against NumPy indexing the same virtual array; comparisons and where are refused
by name (they are not native instructions; the local engine runs them on js)."""
import numpy as np
import pytest

from gpuflow_dask.encode import encode, unsupported_reason
from gpuflow_dask.program import decode, evaluate

ARANGE = np.arange(20, dtype=np.float64).reshape(4, 5)


def leaf(start, step, count):
    return {"kind": "leaf", "leaf": {"kind": "arange", "start": 0, "step": 1, "shape": [4, 5], "region": {"start": start, "step": step, "count": count}}}


def run(program):
    assert unsupported_reason(program) is None
    return evaluate(decode(encode(program, [])), [])


def test_index_drops_an_axis_and_a_negative_step_walks_back():
    # x[2, 4::-2]: row 2 dropped, columns 4, 2, 0.
    p = {"dtype": "float64", "shape": [3], "expr": {"kind": "broadcast", "arg": leaf([2, 4], [1, -2], [1, 3]), "from": [1, 3], "axes": [-1, 0]}}
    assert run(p).tolist() == ARANGE[2, 4::-2].tolist()


def test_new_axis_in_the_middle_and_both_axes_backwards():
    # x[::-1, None, ::-3] over the whole array.
    p = {"dtype": "float64", "shape": [4, 1, 2], "expr": {"kind": "broadcast", "arg": leaf([3, 4], [-1, -3], [4, 2]), "from": [4, 2], "axes": [0, 2]}}
    assert run(p).tolist() == ARANGE[::-1, None, ::-3].tolist()


def test_comparisons_encode_as_the_addon_s_binary_ops_and_where_is_refused_by_name():
    # native/program-code.ts's BINARY list (ops.h bEq..bGe follow bMax): a comparison is flat code.
    cmp = {"dtype": "float64", "shape": [4, 5], "expr": {"kind": "binary", "op": "gt", "a": leaf([0, 0], [1, 1], [4, 5]), "b": {"kind": "leaf", "leaf": {"kind": "fill", "value": 3}}}}
    assert unsupported_reason(cmp) is None
    where = {"dtype": "float64", "shape": [4, 5], "expr": {"kind": "where", "cond": leaf([0, 0], [1, 1], [4, 5]), "a": leaf([0, 0], [1, 1], [4, 5]), "b": leaf([0, 0], [1, 1], [4, 5])}}
    assert unsupported_reason(where) == "where"


def test_a_backward_region_off_the_array_is_refused():
    p = {"dtype": "float64", "shape": [3], "expr": {"kind": "broadcast", "arg": leaf([2, 3], [1, -2], [1, 3]), "from": [1, 3], "axes": [-1, 0]}}
    with pytest.raises(ValueError, match="leaves its array"):
        encode(p, [])
