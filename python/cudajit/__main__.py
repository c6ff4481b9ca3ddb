"""``python -m cudajit``: what cudajit finds on this machine, and a one-kernel self-test.

``--no-self-test`` skips the kernel (nothing is compiled).
"""
import argparse

from ._report import collect, render


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m cudajit", description=__doc__.splitlines()[0])
    parser.add_argument("--no-self-test", action="store_true", help="do not compile and run the test kernel")
    args = parser.parse_args(argv)
    print(render(collect(self_test=not args.no_self_test)))


if __name__ == "__main__":
    main()
