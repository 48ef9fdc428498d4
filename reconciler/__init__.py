"""orgctl: declare an organization portal's configuration in YAML and converge it."""

__version__ = "0.1.0"
