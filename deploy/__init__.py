"""Deployment: the compose file, the Kubernetes manifests, and the cluster harness (deploy.cluster)."""
