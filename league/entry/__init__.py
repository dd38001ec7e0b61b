"""Entry: what a bot must pass before it plays, apart from every competition.

The entry checks a bot passes before it joins any season (``checks``), which endpoints the
platform may dial (``netpolicy``) and whether the bot at an endpoint is still the one
registered there (``identity``). Independent of the league's other rooms: it neither imports
them nor is imported by them.
"""
