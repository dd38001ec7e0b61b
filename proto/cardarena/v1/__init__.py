"""Generated protocol stubs of package ``cardarena.v1`` (see the .proto files beside them)."""
