"""What the games say: intervals and paired differences, matches and tournaments, the summary tables of a
run, and the report writer (Markdown, HTML and figures)."""
