"""Optional Claude assistance (off unless the writer turns it on with their own key).

Everything the model returns is checked by deterministic code before it counts: a judge's quote
must occur verbatim in the passage, an inserted citation must leave the prose byte-identical and
name a reference that exists, and the local judge must confirm it.
"""
