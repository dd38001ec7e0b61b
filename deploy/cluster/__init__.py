"""A cluster of hosts on one Linux machine (network namespaces) running the deploy guide (deploy/README.md)."""
