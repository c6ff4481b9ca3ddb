"""Import paths of numba-cuda's ``numba.cuda._internal`` that programs and numba-cuda's tests use."""
