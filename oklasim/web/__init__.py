"""``oklasim serve``: the advisor, a table against the bots, the knock policy and the runs in a local web page.

One module per job: ``app`` (the application and its routes), ``safety`` (the page token, file names inside the
configured folders, the bounds on requests), ``advise`` (the advisor's form), ``play`` (game sessions on the
engine's referee), ``knock`` (the policy table), ``files`` (reports and runs), ``jobs`` (``simulate`` runs in the
background). Pages are rendered on the server from ``templates/``; ``static/`` holds every asset (no CDN).
"""
