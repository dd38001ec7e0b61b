#!/bin/sh
# Generates the protocol's Go code (package cardarenav1, in ./cardarenav1) from the .proto files,
# with protoc, protoc-gen-go and protoc-gen-go-grpc on PATH.
#
#   sh generate.sh [PROTO_DIR]      # PROTO_DIR: the repository's proto/ folder (default ../../proto)
#
# The .proto files name no Go package, so each file is mapped to this example's own (M options).
set -e
PROTO=${1:-../../proto}
MODULE=cardarena.example/gobot
FILES=$(cd "$PROTO" && ls cardarena/v1/*.proto)
MAPS=""
for f in $FILES; do
  MAPS="$MAPS --go_opt=M$f=$MODULE/cardarenav1 --go-grpc_opt=M$f=$MODULE/cardarenav1"
done
# shellcheck disable=SC2086  # $MAPS and $FILES are lists of words
protoc -I "$PROTO" --go_out=. --go_opt=module=$MODULE --go-grpc_out=. --go-grpc_opt=module=$MODULE $MAPS $FILES
