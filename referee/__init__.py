"""The rules engines of the games (one package each under ``referee.games``) and the referee that plays them against bots."""

from botsdk.runtime import configure_grpc

configure_grpc()  # before any module of this package imports grpc (botsdk.runtime)
