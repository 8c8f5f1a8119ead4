"""The modal conversations with the writer: settings, model downloads (offer and progress) and the
consent asked before text leaves the machine for Claude.

Each is opened by the window or a controller and reports back through signals or settings; none
imports the window.
"""
