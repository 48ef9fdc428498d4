"""Allow `python -m reconciler`, the same entry point as the `orgctl` console script."""

from reconciler.cli import main

if __name__ == "__main__":
    main()
