"""``cudajit.core``: where ``numba.core`` names live, for programs that import them by Numba's path."""
