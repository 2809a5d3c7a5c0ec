# The package's version: the Swift package's (Sources/AdminUnlocks/PackageVersion.swift), which
# the tests compare with the loaded library's au_version().
__version__ = "0.1.0"
